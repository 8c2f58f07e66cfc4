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

// joinTasks counts the units of a join job (TASK_KIND_JOIN): the job's
// join plan, made at its first task and shared by the worker's slots (and
// by the embedded workers of one process, solver.SharedJoinPlan), and a
// JoinCounter per slot, whose buffers are reused from task to task.
type joinTasks struct {
	job      *nqueenspb.Job
	once     sync.Once
	plan     *solver.JoinPlan
	err      error                    // why the job's plan cannot be made here
	counters chan *solver.JoinCounter // the idle counters, at most one per slot
}

// newJoinTasks returns the join state of a session of job, nil for a job
// of another kind.
func newJoinTasks(job *nqueenspb.Job, slots int) *joinTasks {
	if job.GetKind() != nqueenspb.TaskKind_TASK_KIND_JOIN {
		return nil
	}
	return &joinTasks{job: job, counters: make(chan *solver.JoinCounter, max(slots, 1))}
}

// load makes the job's plan once and checks that it is the coordinator's:
// the same fingerprint and number of units.
func (j *joinTasks) load() error {
	j.once.Do(func() {
		n := int(j.job.GetN())
		p, err := solver.NewJoinTaskPlan(n)
		switch {
		case err != nil:
			j.err = err
		case p.Fingerprint() != j.job.GetPlanFingerprint() || p.Len() != int(j.job.GetTasks()):
			j.err = fmt.Errorf("join plan of n=%d: this worker makes %d units (fingerprint %x), the job has %d (%x): another solver build",
				n, p.Len(), p.Fingerprint(), j.job.GetTasks(), j.job.GetPlanFingerprint())
		default:
			j.plan, j.err = solver.SharedJoinPlan(n)
		}
	})
	return j.err
}

// run counts one leased join unit: with the join, or for a verification
// lease with the backtracker up to solver.JoinVerifyMaxN, so that two
// different algorithms count each sampled unit. The count is not
// interruptible; a cancelled lease's result is discarded by the caller.
func (j *joinTasks) run(ctx context.Context, a *nqueenspb.Assign) *nqueenspb.Result {
	start := time.Now()
	res := &nqueenspb.Result{TaskId: a.GetTaskId(), LeaseId: a.GetLeaseId()}
	idx := int(a.GetTaskId().GetIndex())
	switch {
	case j == nil:
		res.Failure = "a join task in a job of another kind"
	case a.GetWantSolutions() || a.GetRun() > 1:
		res.Failure = "a join task is counted alone: no solutions, no runs"
	case a.GetN() != j.job.GetN() || a.GetTaskId().GetPlanFingerprint() != j.job.GetPlanFingerprint():
		res.Failure = "a join task of another plan"
	case len(a.GetPrefix()) != 1 || int(a.GetPrefix()[0]) != idx:
		res.Failure = fmt.Sprintf("join task %d: prefix %v is not [%d]", idx, a.GetPrefix(), idx)
	}
	if res.Failure != "" {
		return res
	}
	if err := j.load(); err != nil {
		res.Failure = err.Error()
		return res
	}
	if a.GetVerify() && int(j.job.GetN()) <= solver.JoinVerifyMaxN {
		// A verification: the backtracker must agree with the join.
		c, err := solver.JoinTaskBacktrack(int(j.job.GetN()), solver.Task{Index: idx, Prefix: []int{idx}})
		if err != nil {
			res.Failure = err.Error()
			return res
		}
		res.Total, res.Nodes = c.Total, c.Nodes // nodes: the sign of a backtracked count
		res.Elapsed = durationpb.New(time.Since(start))
		return res
	}
	var jc *solver.JoinCounter
	select {
	case jc = <-j.counters:
	default:
		jc = j.plan.NewCounter()
	}
	total, err := jc.Count(idx)
	select {
	case j.counters <- jc:
	default: // more counters than slots: let it go
	}
	if err != nil {
		res.Failure = err.Error()
		return res
	}
	res.Total = total
	res.Elapsed = durationpb.New(time.Since(start))
	return res
}
