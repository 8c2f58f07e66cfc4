package sched

import (
	"testing"

	"github.com/nqueens/nqueens/solver"
)

// TestRecountJoinByBacktracker: the coordinator's truth for a join unit
// comes from the backtracker up to solver.JoinVerifyMaxN, from the join
// above it, and both sum over the units to the published total.
func TestRecountJoinByBacktracker(t *testing.T) {
	for _, n := range []int{9, 12} {
		plan, err := solver.NewJoinTaskPlan(n)
		if err != nil {
			t.Fatal(err)
		}
		var sum uint64
		for _, task := range plan.Tasks {
			c, how, err := recount(plan, false, task)
			if err != nil {
				t.Fatalf("n=%d task %d: %v", n, task.Index, err)
			}
			if how != "backtrack" || c.Nodes != 0 {
				t.Fatalf("n=%d task %d: recounted by %s with %d nodes, want the backtracker and no nodes", n, task.Index, how, c.Nodes)
			}
			join, err := solver.CountJoinTask(n, task)
			if err != nil || join.Total != c.Total {
				t.Fatalf("n=%d task %d: backtracker %d, join %d (%v)", n, task.Index, c.Total, join.Total, err)
			}
			sum += c.Total
		}
		if want, _ := solver.Known(n); sum != want.Total {
			t.Errorf("n=%d: units sum to %d, want %d", n, sum, want.Total)
		}
	}
}
