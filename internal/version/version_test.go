package version

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/nqueens/nqueens/solver"
)

func TestString(t *testing.T) {
	tests := []struct {
		info Info
		want string
	}{
		{Info{Module: "(devel)", Solver: 3, Go: "go1.26"}, "(devel) (no VCS stamp) solver 3 go1.26"},
		{Info{Module: "v1.2.0", Revision: "0123456789abcdef", Time: "2026-12-01T00:00:00Z", Solver: 3, Go: "go1.26"},
			"v1.2.0 (rev 0123456789ab, 2026-12-01T00:00:00Z) solver 3 go1.26"},
		{Info{Module: "(devel)", Revision: "0123456789abcdef", Dirty: true, Solver: 4, Go: "go1.26"},
			"(devel) (rev 0123456789ab-dirty) solver 4 go1.26"},
	}
	for _, tt := range tests {
		if got := tt.info.String(); got != tt.want {
			t.Errorf("%+v.String() = %q, want %q", tt.info, got, tt.want)
		}
	}
}

func TestGetNamesTheSolver(t *testing.T) {
	got := String("worker")
	if !strings.HasPrefix(got, "worker ") || !strings.Contains(got, "solver ") {
		t.Errorf("String(worker) = %q, want the name and the solver version", got)
	}
	if Get().Solver != solver.Version {
		t.Errorf("Get().Solver = %d, want %d", Get().Solver, solver.Version)
	}
}

// TestFromBuild: what the linker sets wins over the toolchain's stamp, and a
// revision other than the stamped one drops the stamp's time and dirty flag.
func TestFromBuild(t *testing.T) {
	stamped := &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261204100000-0123456789ab"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "0123456789abcdef"}, {Key: "vcs.time", Value: "2026-12-04T10:00:00Z"}, {Key: "vcs.modified", Value: "true"},
	}}
	for _, tc := range []struct {
		bi   *debug.BuildInfo
		ld   stamp
		want string
	}{
		{nil, stamp{}, "(devel) (no VCS stamp)"},
		{&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, stamp{}, "(devel) (no VCS stamp)"},
		{stamped, stamp{}, "v0.0.0-20261204100000-0123456789ab (rev 0123456789ab-dirty, 2026-12-04T10:00:00Z)"},
		{stamped, stamp{tag: "v0.1.0"}, "v0.1.0 (rev 0123456789ab-dirty, 2026-12-04T10:00:00Z)"},
		{stamped, stamp{tag: "v0.1.0", revision: "0123456789abcdef"}, "v0.1.0 (rev 0123456789ab-dirty, 2026-12-04T10:00:00Z)"},
		{stamped, stamp{tag: "v0.1.0", revision: "fedcba9876543210"}, "v0.1.0 (rev fedcba987654)"},
		{nil, stamp{"v0.2.0", "fedcba9876543210", "2027-01-01T00:00:00Z"}, "v0.2.0 (rev fedcba987654, 2027-01-01T00:00:00Z)"},
	} {
		info := fromBuild(tc.bi, tc.ld)
		want := tc.want + " solver " + strconv.Itoa(solver.Version) + " " + runtime.Version()
		if got := info.String(); got != want {
			t.Errorf("fromBuild(%v, %+v) = %q, want %q", tc.bi != nil, tc.ld, got, want)
		}
	}
}

// TestReleaseLinkerFlags: the -X flags that the release configuration and
// the Dockerfile give the linker name this package's variables. The linker
// ignores a -X for a variable that does not exist, so a misspelt one would
// ship binaries whose --version says "(devel)": build one with each file's
// variables and read its --version.
func TestReleaseLinkerFlags(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a binary")
	}
	const pkg = "github.com/nqueens/nqueens/internal/version"
	values := map[string]string{"tag": "v9.8.7", "revision": "0123456789abcdef0123", "revisionTime": "2030-01-02T03:04:05Z"}
	xflag := regexp.MustCompile(`-X ` + regexp.QuoteMeta(pkg) + `\.(\w+)=`)
	for _, file := range []string{"../../.goreleaser.yaml", "../../Dockerfile"} {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		ldflags := []string{"-s", "-w"}
		for _, m := range xflag.FindAllStringSubmatch(string(data), -1) {
			v, ok := values[m[1]]
			if !ok {
				t.Errorf("%s sets %s.%s, which the test does not know", file, pkg, m[1])
				continue
			}
			ldflags = append(ldflags, "-X", pkg+"."+m[1]+"="+v)
		}
		if len(ldflags) != 2+2*len(values) {
			t.Errorf("%s gives the linker %q, want tag, revision and revisionTime once each", file, ldflags[2:])
		}
		bin := filepath.Join(t.TempDir(), "healthprobe")
		build := exec.Command("go", "build", "-o", bin, "-ldflags", strings.Join(ldflags, " "), "github.com/nqueens/nqueens/cmd/nqueens-healthprobe")
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("go build with %s's -X flags: %v\n%s", file, err, out)
		}
		out, err := exec.Command(bin, "--version").Output()
		if err != nil {
			t.Fatalf("healthprobe --version: %v", err)
		}
		if want := "healthprobe v9.8.7 (rev 0123456789ab, 2030-01-02T03:04:05Z) "; !strings.HasPrefix(string(out), want) {
			t.Errorf("built with %s's -X flags, --version = %q, want it to start %q", file, out, want)
		}
	}
}
