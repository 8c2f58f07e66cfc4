// Package version says which build a binary is: the module version, the VCS
// revision and time it was built from (and whether the tree was dirty), as
// stamped by the Go toolchain, plus the solver version that decides which
// workers and coordinators can work together.
//
//	fmt.Println(version.String("coordinator"))
//	// coordinator v0.1.0 (rev 96bff21a3c4d, 2026-12-01T19:50:00Z) solver 3 go1.26.8
//
// The Go toolchain stamps all of it by itself for `go install
// module@v0.1.0` and for a build inside a git checkout (Go 1.24 and later
// take the module version from the tag). Release builds (goreleaser, the
// Dockerfile given VERSION) set it with the linker instead, since they may
// build where the toolchain cannot stamp (GOFLAGS=-buildvcs=false, a build
// context without .git):
//
//	go build -ldflags "-X github.com/nqueens/nqueens/internal/version.tag=v0.1.0 \
//	    -X github.com/nqueens/nqueens/internal/version.revision=$(git rev-parse HEAD) \
//	    -X github.com/nqueens/nqueens/internal/version.revisionTime=2026-12-04T10:00:00Z" ./cmd/nqueens-coordinator
package version

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/nqueens/nqueens/solver"
)

// Info is what a build knows of itself.
type Info struct {
	Module   string // module version: "(devel)" for a local build
	Revision string // VCS revision, "" when the build was not stamped
	Time     string // VCS commit time (RFC 3339), "" when not stamped
	Dirty    bool   // the work tree had uncommitted changes
	Solver   int    // solver.Version
	Go       string // runtime.Version()
}

// Set by the linker (-X) in release builds; each one, when set, wins over
// what the toolchain stamped: the release's tag names the build better than
// a pseudo-version, and a stamp may be missing altogether.
var tag, revision, revisionTime string

// Get reads the build information stamped into the binary: by the linker
// (tag, revision, revisionTime) where set, else by the Go toolchain.
func Get() Info {
	bi, _ := debug.ReadBuildInfo() // nil in a binary built without module support
	return fromBuild(bi, stamp{tag, revision, revisionTime})
}

// stamp is what a release build gives the linker.
type stamp struct{ tag, revision, time string }

// fromBuild combines the toolchain's build information (nil when the binary
// has none) with the linker's stamp.
func fromBuild(bi *debug.BuildInfo, ld stamp) Info {
	info := Info{Module: "(devel)", Solver: solver.Version, Go: runtime.Version()}
	if bi != nil {
		if v := bi.Main.Version; v != "" {
			info.Module = v
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				info.Revision = s.Value
			case "vcs.time":
				info.Time = s.Value
			case "vcs.modified":
				info.Dirty = s.Value == "true"
			}
		}
	}
	if ld.tag != "" {
		info.Module = ld.tag
	}
	if ld.revision != "" && ld.revision != info.Revision {
		// Another revision than the toolchain saw: its dirty flag and time
		// belong to that one, not to this.
		info.Revision, info.Dirty, info.Time = ld.revision, false, ""
	}
	if ld.time != "" {
		info.Time = ld.time
	}
	return info
}

// Short is the revision cut to 12 characters, or "unknown": enough to tell
// two builds apart in a log line or an error.
func (i Info) Short() string {
	if i.Revision == "" {
		return "unknown"
	}
	r := i.Revision
	if len(r) > 12 {
		r = r[:12]
	}
	if i.Dirty {
		r += "-dirty"
	}
	return r
}

// String is one line for --version: the program's name, module version,
// revision, commit time, dirty flag, solver version and Go version.
func (i Info) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s", i.Module)
	if i.Revision != "" {
		parts := []string{"rev " + i.Short()}
		if i.Time != "" {
			parts = append(parts, i.Time)
		}
		fmt.Fprintf(&b, " (%s)", strings.Join(parts, ", "))
	} else {
		b.WriteString(" (no VCS stamp)")
	}
	fmt.Fprintf(&b, " solver %d %s", i.Solver, i.Go)
	return b.String()
}

// String is the --version line of the program called name.
func String(name string) string { return name + " " + Get().String() }
