package worker

import (
	"context"
	"fmt"
	"sync"
	"time"

	"google.golang.org/protobuf/types/known/durationpb"

	nqueenspb "github.com/nqueens/nqueens/proto/nqueens/v1"
	"github.com/nqueens/nqueens/solver"
)

// Runs (issue 11): a coordinator may lease a run of consecutive plan tasks
// in one Assign (Assign.run) to a worker that works the plan's prefixes
// out itself, so that tasks of microseconds do not each cost a round of
// messages. The worker says so in its first Ready once it has made the
// job's plan and found its fingerprint and size equal to the job's.

// planCache keeps the plan of the last job joined, so that a worker that
// rejoins the same job (a broken stream) does not make it again; making a
// plan of 10^7 tasks takes a fraction of a second. Safe for concurrent
// use: a plan is only read once made.
type planCache struct {
	mu          sync.Mutex // held while a plan is made, so it is made once
	fingerprint uint64
	plan        solver.Plan
	ok          bool
}

// sharedPlans is the plan cache of every Run in the process: the embedded
// workers of a coordinator, or the thousand simulated workers of a load
// generator, make a job's plan once rather than once each (N=27 at depth
// 5: 80 ms and 2 MB each).
var sharedPlans planCache

// runPlan returns the plan of job for runs, and false when the worker
// cannot run the job's tasks in runs (a pinned job, or a plan that does
// not match: the worker then takes its tasks one by one).
func (c *planCache) runPlan(job *nqueenspb.Job) (solver.Plan, bool) {
	if job.GetKind() != nqueenspb.TaskKind_TASK_KIND_COUNT {
		return solver.Plan{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ok && c.fingerprint == job.GetPlanFingerprint() {
		return c.plan, true
	}
	p, err := solver.NewLazyPlan(int(job.GetN()), int(job.GetDepth()), solver.KindCount)
	if err != nil || p.Fingerprint() != job.GetPlanFingerprint() || uint64(p.Len()) != uint64(job.GetTasks()) {
		return solver.Plan{}, false
	}
	c.fingerprint, c.plan, c.ok = p.Fingerprint(), p, true
	return p, true
}

// runRange counts the run of tasks an Assign leases, one after the other
// with count (Config.Count), and returns one Result with every task's
// counts (run_counts) and their sums. A cancelled ctx stops it between
// tasks; the caller then discards the Result.
func runRange(ctx context.Context, a *nqueenspb.Assign, plan solver.Plan, count countFunc) *nqueenspb.Result {
	start := time.Now()
	res := &nqueenspb.Result{TaskId: a.GetTaskId(), LeaseId: a.GetLeaseId()}
	first, run := int(a.GetTaskId().GetIndex()), int(a.GetRun())
	switch {
	case plan.Len() == 0:
		res.Failure = "a run of tasks for a worker that did not ask for runs"
	case a.GetTaskId().GetPlanFingerprint() != plan.Fingerprint() || a.GetN() != uint32(plan.N):
		res.Failure = "a run of tasks of another plan"
	case a.GetKind() != nqueenspb.TaskKind_TASK_KIND_COUNT || a.GetWantSolutions():
		res.Failure = fmt.Sprintf("a run of %v tasks (want_solutions %v): runs only count", a.GetKind(), a.GetWantSolutions())
	case first+run > plan.Len():
		res.Failure = fmt.Sprintf("a run of tasks %d..%d of a plan of %d", first, first+run-1, plan.Len())
	}
	if res.Failure != "" {
		return res
	}
	res.RunCounts = make([]uint64, 0, 3*run)
	var sum solver.Counts
	var err error
	plan.Prefixes(first, run, func(i int, prefix []int) bool {
		if ctx.Err() != nil {
			return false
		}
		var c solver.Counts
		if c, err = count(plan.N, solver.Task{Index: i, Prefix: prefix}); err != nil {
			return false
		}
		res.RunCounts = append(res.RunCounts, c.Total, c.Unique, c.Nodes)
		sum = solver.Counts{Total: sum.Total + c.Total, Unique: sum.Unique + c.Unique, Nodes: solver.SaturatingAdd(sum.Nodes, c.Nodes)}
		return true
	})
	if err != nil {
		return &nqueenspb.Result{TaskId: a.GetTaskId(), LeaseId: a.GetLeaseId(), Failure: err.Error()}
	}
	res.Total, res.Unique, res.Nodes = sum.Total, sum.Unique, sum.Nodes
	res.Elapsed = durationpb.New(time.Since(start))
	return res
}
