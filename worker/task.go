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

// countFunc counts one task of a counting job (Config.Count).
type countFunc = func(n int, t solver.Task) (solver.Counts, error)

// runTask computes one assigned task, a counting one with count
// (Config.Count), and returns its Result (with Failure set when the task
// cannot be run). When the task wants solutions, it calls
// emit with each full batch, in order; emit returning false stops the task.
// A cancelled ctx stops listings early; a count task runs to its end
// (the solver is uninterruptible) and its result is discarded by the caller.
func runTask(ctx context.Context, a *nqueenspb.Assign, count countFunc, emit func(*nqueenspb.SolutionBatch) bool) *nqueenspb.Result {
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
	task := solver.Task{Index: int(a.GetTaskId().GetIndex()), Prefix: prefix}
	run, err := taskFuncs(a, n, count)
	if err != nil {
		res.Failure = err.Error()
		return res
	}
	if a.GetWantSolutions() {
		if !list(ctx, a, n, task, run.list, res, emit) {
			return res
		}
	} else {
		c, err := run.count(n, task)
		if err != nil {
			res.Failure = err.Error()
			return res
		}
		res.Total, res.Unique, res.Nodes = c.Total, c.Unique, c.Nodes
	}
	res.Elapsed = durationpb.New(time.Since(start))
	return res
}

// taskFunc is how a task kind is counted and listed.
type taskFunc struct {
	count countFunc
	list  func(n int, t solver.Task, yield func([]int) bool) (solver.Counts, error)
}

// taskFuncs returns the functions of the Assign's kind: count and
// solver.ListTask (class representatives), or, for a pinned task, the
// completions of its pins (every solution whole).
func taskFuncs(a *nqueenspb.Assign, n int, count countFunc) (taskFunc, error) {
	switch a.GetKind() {
	case nqueenspb.TaskKind_TASK_KIND_COUNT:
		return taskFunc{count, solver.ListTask}, nil
	case nqueenspb.TaskKind_TASK_KIND_PINNED:
		pins, err := solver.PinsFromColumns(n, a.GetPinnedColumns())
		if err != nil {
			return taskFunc{}, fmt.Errorf("pinned task: %w", err)
		}
		return taskFunc{
			count: func(n int, t solver.Task) (solver.Counts, error) { return solver.CountPinnedTask(n, pins, t) },
			list: func(n int, t solver.Task, yield func([]int) bool) (solver.Counts, error) {
				return solver.ListPinnedTask(n, pins, t, yield)
			},
		}, nil
	}
	return taskFunc{}, fmt.Errorf("unsupported task kind %v", a.GetKind())
}

// list streams what listTask yields for the task (the representative of
// every symmetry class for solver.ListTask, every completion for a pinned
// task) in batches, and sets the task's counts in res. It reports false
// when it was stopped or the task could not be run (then res.Failure says
// why).
func list(ctx context.Context, a *nqueenspb.Assign, n int, task solver.Task,
	listTask func(int, solver.Task, func([]int) bool) (solver.Counts, error),
	res *nqueenspb.Result, emit func(*nqueenspb.SolutionBatch) bool) bool {
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
	c, err := listTask(n, task, func(cols []int) bool {
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
