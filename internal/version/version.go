// Package version says which build a binary is: the module version, the VCS
// revision and time it was built from (and whether the tree was dirty), as
// stamped by the Go toolchain, plus the solver version that decides which
// workers and coordinators can work together.
//
//	fmt.Println(version.String("coordinator"))
//	// coordinator v0.0.0 (rev 96bff21a3c4d, 2026-12-01T19:50:00Z, dirty) solver 3 go1.26.8
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

// Get reads the build information the Go toolchain stamped into the binary.
func Get() Info {
	info := Info{Module: "(devel)", Solver: solver.Version, Go: runtime.Version()}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return info
	}
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
