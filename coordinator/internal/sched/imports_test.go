package sched

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoWireImports keeps the wall between the lease policy and the wire:
// the scheduler speaks plain Go types, so neither gRPC nor the generated
// protocol may reach it, even through another package.
func TestNoWireImports(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 || !strings.Contains(string(out), "github.com/nqueens/nqueens/solver") {
		t.Fatalf("go list -deps listed %d packages, without the solver: not the dependencies of this package", len(deps))
	}
	for _, d := range deps {
		if strings.HasPrefix(d, "google.golang.org/grpc") || strings.Contains(d, "/proto/") || strings.HasPrefix(d, "google.golang.org/protobuf") {
			t.Errorf("the scheduler depends on %s: the wire belongs to package coordinator", d)
		}
	}
}
