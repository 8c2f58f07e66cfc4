package worker

import (
	"context"
	"testing"

	nqueenspb "github.com/nqueens/nqueens/proto/nqueens/v1"
	"github.com/nqueens/nqueens/solver"
)

// jobOf is the Job a coordinator of plan p sends.
func jobOf(p solver.Plan) *nqueenspb.Job {
	return &nqueenspb.Job{N: uint32(p.N), Depth: uint32(p.Depth), Kind: nqueenspb.TaskKind_TASK_KIND_COUNT, PlanFingerprint: p.Fingerprint(), Tasks: uint32(p.Len())}
}

// runAssign leases tasks first..first+run-1 of p.
func runAssign(p solver.Plan, first, run int) *nqueenspb.Assign {
	return &nqueenspb.Assign{TaskId: &nqueenspb.TaskId{PlanFingerprint: p.Fingerprint(), Index: uint32(first)}, N: uint32(p.N),
		Kind: nqueenspb.TaskKind_TASK_KIND_COUNT, Run: uint32(run), LeaseId: 7}
}

// TestRunRangeCounts: a run's Result holds each task's counts, as
// solver.CountTask gives them, and their sums; runs that cross frames of
// a lazy plan and end at its last task included.
func TestRunRangeCounts(t *testing.T) {
	var c planCache
	for _, depth := range []int{2, 5} {
		want, _ := solver.NewPlan(11, depth, solver.KindCount)
		p, ok := c.runPlan(jobOf(want))
		if !ok {
			t.Fatalf("depth %d: the worker made no plan for runs", depth)
		}
		for _, r := range [][2]int{{0, 1}, {3, min(40, want.Len()-3)}, {want.Len() - 17, 17}} {
			res := runRange(context.Background(), runAssign(p, r[0], r[1]), p, solver.CountTask)
			if res.GetFailure() != "" || len(res.GetRunCounts()) != 3*r[1] {
				t.Fatalf("depth %d run %v: failure %q, %d counts", depth, r, res.GetFailure(), len(res.GetRunCounts()))
			}
			var sum solver.Counts
			for i := range r[1] {
				tc, _ := solver.CountTask(11, want.Tasks[r[0]+i])
				got := solver.Counts{Total: res.RunCounts[3*i], Unique: res.RunCounts[3*i+1], Nodes: res.RunCounts[3*i+2]}
				if got != tc {
					t.Fatalf("depth %d run %v task %d: %+v, want %+v", depth, r, r[0]+i, got, tc)
				}
				sum, _ = sum.Add(tc)
			}
			if res.GetTotal() != sum.Total || res.GetUnique() != sum.Unique || res.GetNodes() != sum.Nodes || res.GetLeaseId() != 7 {
				t.Fatalf("depth %d run %v: sums %d/%d/%d lease %d, want %+v lease 7", depth, r, res.GetTotal(), res.GetUnique(), res.GetNodes(), res.GetLeaseId(), sum)
			}
		}
	}
}

// TestRunRangeRefuses: a run the worker cannot compute fails (the
// coordinator then leases it single tasks) rather than counting
// something else.
func TestRunRangeRefuses(t *testing.T) {
	p, _ := solver.NewLazyPlan(10, 4, solver.KindCount)
	other, _ := solver.NewLazyPlan(10, 3, solver.KindCount)
	listing := runAssign(p, 0, 2)
	listing.WantSolutions = true
	for name, tc := range map[string]struct {
		a    *nqueenspb.Assign
		plan solver.Plan
	}{
		"no plan":       {runAssign(p, 0, 2), solver.Plan{}},
		"another plan":  {runAssign(other, 0, 2), p},
		"past the end":  {runAssign(p, p.Len()-1, 2), p},
		"a listing":     {listing, p},
		"another board": {&nqueenspb.Assign{TaskId: runAssign(p, 0, 2).GetTaskId(), N: 11, Kind: nqueenspb.TaskKind_TASK_KIND_COUNT, Run: 2}, p},
	} {
		if res := runRange(context.Background(), tc.a, tc.plan, solver.CountTask); res.GetFailure() == "" || len(res.GetRunCounts()) != 0 {
			t.Errorf("%s: failure %q, %d counts; want a failure and no counts", name, res.GetFailure(), len(res.GetRunCounts()))
		}
	}
}

// TestPlanCacheRefuses: a worker asks for runs only of a counting job
// whose plan it makes exactly.
func TestPlanCacheRefuses(t *testing.T) {
	p, _ := solver.NewLazyPlan(10, 4, solver.KindCount)
	var c planCache
	for name, spoil := range map[string]func(j *nqueenspb.Job){
		"pinned":      func(j *nqueenspb.Job) { j.Kind = nqueenspb.TaskKind_TASK_KIND_PINNED },
		"fingerprint": func(j *nqueenspb.Job) { j.PlanFingerprint++ },
		"tasks":       func(j *nqueenspb.Job) { j.Tasks++ },
		"depth":       func(j *nqueenspb.Job) { j.Depth = 40 },
	} {
		j := jobOf(p)
		spoil(j)
		if _, ok := c.runPlan(j); ok {
			t.Errorf("%s: the worker would ask for runs", name)
		}
	}
	if got, ok := c.runPlan(jobOf(p)); !ok || got.Len() != p.Len() {
		t.Errorf("the job's own plan: ok %v, %d tasks; want %d", ok, got.Len(), p.Len())
	}
}
