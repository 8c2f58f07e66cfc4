package worker

import (
	"context"
	"fmt"
	"slices"
	"time"

	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/nqueens/nqueens/internal/packed"
	nqueenspb "github.com/nqueens/nqueens/proto/nqueens/v1"
	"github.com/nqueens/nqueens/solver"
)

// BatchBytes is where a worker cuts a SolutionBatch: far under gRPC's 4 MiB
// message limit, large enough that per-message overhead is negligible.
const BatchBytes = 64 << 10

// checkEvery is how many solutions an enumeration yields between looks at
// its context.
const checkEvery = 256

// runTask computes one assigned task and returns its Result (with Failure
// set when the task cannot be run). When the task wants solutions, it calls
// emit with each full batch, in order; emit returning false stops the task.
// A cancelled ctx stops listings early; a count task runs to its end
// (the solver is uninterruptible) and its result is discarded by the caller.
func runTask(ctx context.Context, a *nqueenspb.Assign, emit func(*nqueenspb.SolutionBatch) bool) *nqueenspb.Result {
	start := time.Now()
	res := &nqueenspb.Result{TaskId: a.GetTaskId(), LeaseId: a.GetLeaseId()}
	n := int(a.GetN())
	if n < 1 || n > solver.MaxN {
		res.Failure = fmt.Sprintf("n = %d out of range 1..%d", n, solver.MaxN)
		return res
	}
	prefix := make([]int, len(a.GetPrefix()))
	for i, c := range a.GetPrefix() {
		prefix[i] = int(c)
	}
	if a.GetKind() != nqueenspb.TaskKind_TASK_KIND_COUNT {
		res.Failure = fmt.Sprintf("unsupported task kind %v", a.GetKind())
		return res
	}
	task := solver.Task{Index: int(a.GetTaskId().GetIndex()), Prefix: prefix}
	if a.GetWantSolutions() {
		if !list(ctx, a, n, task, res, emit) {
			return res
		}
	} else {
		c, err := solver.CountTask(n, task)
		if err != nil {
			res.Failure = err.Error()
			return res
		}
		res.Total, res.Unique, res.Nodes = c.Total, c.Unique, c.Nodes
	}
	res.Elapsed = durationpb.New(time.Since(start))
	return res
}

// list streams the representative of every symmetry class of the task
// (solver.ListTask) in batches, and sets the task's counts in res. It
// reports false when it was stopped or the task could not be run (then
// res.Failure says why).
func list(ctx context.Context, a *nqueenspb.Assign, n int, task solver.Task, res *nqueenspb.Result, emit func(*nqueenspb.SolutionBatch) bool) bool {
	buf := make([]byte, 0, BatchBytes+n)
	var count, batchNo uint32
	flush := func() bool {
		if count == 0 {
			return true
		}
		b := &nqueenspb.SolutionBatch{TaskId: a.GetTaskId(), LeaseId: a.GetLeaseId(), Seq: batchNo, Count: count, Packed: slices.Clone(buf)}
		batchNo++
		buf, count = buf[:0], 0
		return emit(b)
	}
	stopped, since := false, 0
	c, err := solver.ListTask(n, task, func(cols []int) bool {
		buf = packed.Append(buf, cols)
		count++
		if len(buf) >= BatchBytes && !flush() {
			stopped = true
			return false
		}
		if since++; since == checkEvery {
			since = 0
			if ctx.Err() != nil {
				stopped = true
				return false
			}
		}
		return true
	})
	if err != nil {
		res.Failure = err.Error()
		return false
	}
	if stopped || ctx.Err() != nil || !flush() {
		return false
	}
	res.Total, res.Unique, res.Nodes = c.Total, c.Unique, c.Nodes
	return true
}
