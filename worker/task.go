package worker

import (
	"context"
	"fmt"
	"slices"
	"time"

	"google.golang.org/protobuf/types/known/durationpb"

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
// A cancelled ctx stops enumerations early; a count task runs to its end
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
	switch a.GetKind() {
	case nqueenspb.TaskKind_TASK_KIND_COUNT:
		c, err := solver.CountTask(n, solver.Task{Index: int(a.GetTaskId().GetIndex()), Prefix: prefix})
		if err != nil {
			res.Failure = err.Error()
			return res
		}
		res.Total, res.Unique, res.Nodes = c.Total, c.Unique, c.Nodes
	case nqueenspb.TaskKind_TASK_KIND_ALL, nqueenspb.TaskKind_TASK_KIND_UNIQUE:
		if err := solver.CheckPrefix(n, prefix); err != nil {
			res.Failure = err.Error()
			return res
		}
		if !enumerate(ctx, a, n, prefix, res, emit) {
			return res
		}
	default:
		res.Failure = fmt.Sprintf("unknown task kind %v", a.GetKind())
	}
	res.Elapsed = durationpb.New(time.Since(start))
	return res
}

// enumerate lists the task's solutions, counting them into res and
// streaming them when asked. It reports false when it was stopped.
func enumerate(ctx context.Context, a *nqueenspb.Assign, n int, prefix []int, res *nqueenspb.Result, emit func(*nqueenspb.SolutionBatch) bool) bool {
	unique := a.GetKind() == nqueenspb.TaskKind_TASK_KIND_UNIQUE
	seq := solver.Solutions(n, prefix)
	if unique {
		seq = solver.UniqueSolutions(n, prefix)
	}
	var (
		buf     []byte
		count   uint32
		batchNo uint32
		since   int
	)
	if a.GetWantSolutions() {
		buf = make([]byte, 0, BatchBytes+n)
	}
	flush := func() bool {
		if count == 0 {
			return true
		}
		b := &nqueenspb.SolutionBatch{TaskId: a.GetTaskId(), LeaseId: a.GetLeaseId(), Seq: batchNo, Count: count, Packed: slices.Clone(buf)}
		batchNo++
		buf, count = buf[:0], 0
		return emit(b)
	}
	for cols := range seq {
		if unique {
			res.Unique++
			res.Total += uint64(ClassSize(cols))
		} else {
			res.Total++
			// The images with rows reflected start with cols[n-1] and
			// n-1-cols[n-1]: a canonical solution starts no higher. This
			// cheap test spares most solutions the call.
			if m := n - 1; cols[0] <= cols[m] && cols[0] <= m-cols[m] && solver.Canonical(cols) {
				res.Unique++
			}
		}
		if a.GetWantSolutions() {
			at := len(buf)
			buf = buf[:at+n]
			for i, c := range cols[:n] {
				buf[at+i] = byte(c)
			}
			count++
			if len(buf) >= BatchBytes && !flush() {
				return false
			}
		}
		if since++; since == checkEvery {
			since = 0
			if ctx.Err() != nil {
				return false
			}
		}
	}
	if ctx.Err() != nil {
		return false
	}
	return flush()
}

// ClassSize returns how many distinct solutions the symmetry class of the
// solution cols holds: 8, or 4 when a half turn maps it to itself, or 2
// when a quarter turn does (1 for n=1). No solution of n>1 is symmetric
// under a reflection, so the rotations decide.
func ClassSize(cols []int) int {
	n := len(cols)
	if n <= 1 {
		return 1
	}
	quarter, half := true, true
	for r, c := range cols {
		// A quarter turn moves the queen (r, c) to (c, n-1-r).
		if cols[c] != n-1-r {
			quarter = false
		}
		// A half turn moves it to (n-1-r, n-1-c).
		if cols[n-1-r] != n-1-c {
			half = false
		}
	}
	switch {
	case quarter:
		return 2
	case half:
		return 4
	}
	return 8
}
