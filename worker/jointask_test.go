package worker

import (
	"context"
	"testing"

	nqueenspb "github.com/nqueens/nqueens/proto/nqueens/v1"
	"github.com/nqueens/nqueens/solver"
)

// TestJoinTaskVerify checks that a join task's verification lease is
// counted by the backtracker (which reports the queens it placed; the
// join reports none) and an ordinary lease by the join, with the same
// totals, every unit of N=12 and some of N=15.
func TestJoinTaskVerify(t *testing.T) {
	for _, n := range []int{12, 15} {
		p, err := solver.NewJoinTaskPlan(n)
		if err != nil {
			t.Fatal(err)
		}
		job := &nqueenspb.Job{N: uint32(n), Kind: nqueenspb.TaskKind_TASK_KIND_JOIN, PlanFingerprint: p.Fingerprint(), Tasks: uint32(p.Len())}
		j := newJoinTasks(job, 1)
		step := 1
		if n > 12 {
			step = 37
		}
		for i := 0; i < p.Len(); i += step {
			var got [2]*nqueenspb.Result
			for k, verify := range []bool{false, true} {
				a := &nqueenspb.Assign{
					TaskId: &nqueenspb.TaskId{PlanFingerprint: p.Fingerprint(), Index: uint32(i)},
					N:      uint32(n), Kind: nqueenspb.TaskKind_TASK_KIND_JOIN, Prefix: []uint32{uint32(i)},
					Verify: verify,
				}
				got[k] = j.run(context.Background(), a)
				if got[k].GetFailure() != "" {
					t.Fatalf("n=%d unit %d (verify %v): %s", n, i, verify, got[k].GetFailure())
				}
			}
			if got[0].GetTotal() != got[1].GetTotal() {
				t.Errorf("n=%d unit %d: join %d, backtracker %d", n, i, got[0].GetTotal(), got[1].GetTotal())
			}
			if got[0].GetNodes() != 0 || got[1].GetTotal() != 0 && got[1].GetNodes() == 0 {
				t.Errorf("n=%d unit %d: nodes %d (join), %d (verification); want 0 and some", n, i, got[0].GetNodes(), got[1].GetNodes())
			}
		}
	}
}
