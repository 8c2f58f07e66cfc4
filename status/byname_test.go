package status

import (
	"math"
	"testing"

	"github.com/nqueens/nqueens/coordinator"
)

// TestByNameSaturates: two sessions with one name add up, and their node
// counts stop at 2^64-1 instead of wrapping to a small number.
func TestByNameSaturates(t *testing.T) {
	ws := []coordinator.WorkerStatus{
		{ID: "w1", Name: "same", Tasks: 2, Nodes: math.MaxUint64 - 1},
		{ID: "w2", Name: "same", Tasks: 3, Nodes: math.MaxUint64 - 1},
		{ID: "w3", Tasks: 1, Nodes: 7},
	}
	got := byName(ws)
	if len(got) != 2 || got[0].Name != "same" || got[0].Tasks != 5 || got[0].Nodes != math.MaxUint64 || got[1].Name != "w3" || got[1].Nodes != 7 {
		t.Errorf("byName = %+v, want same: 5 tasks, %d nodes; w3: 7 nodes", got, uint64(math.MaxUint64))
	}
}
