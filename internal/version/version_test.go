package version

import (
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
