package solver

import (
	"fmt"
	"sync"
)

// KindJoin tasks are the units of a JoinPlan (the quadrant join): task i
// counts unit i's solutions (CountJoinTask). Their totals add up to the
// board's; their Unique is 0, as a unit cannot tell which of its solutions
// are fundamental: the whole board's fundamental count comes from the
// total by Burnside's lemma (JoinPlan.Fundamental). Join tasks are never
// split and never listed.
const KindJoin Kind = 5

// NewJoinTaskPlan returns the Plan whose tasks are the units of the join
// plan of an n-board (DefaultJoinTasks of them, about): task i's prefix is
// []int{i}, so a plan's tasks stay distinct and its scheduler needs no
// other handle. Its Fingerprint differs from every backtracking plan's
// (its Kind) and names its number of units. It builds no quarter tables:
// a coordinator of remote workers never holds them.
func NewJoinTaskPlan(n int) (Plan, error) {
	if n < 1 || n > joinMaxN {
		return Plan{}, fmt.Errorf("board size %d out of range: the join engine counts n = 1..%d", n, joinMaxN)
	}
	tasks := make([]Task, joinUnits(n, DefaultJoinTasks))
	for i := range tasks {
		tasks[i] = Task{Index: i, Prefix: []int{i}}
	}
	return Plan{N: n, Kind: KindJoin, Tasks: tasks}, nil
}

// joinUnits is NewJoinPlan(n, tasks).NumTasks() without the quarter
// tables.
func joinUnits(n, tasks int) int {
	if n == 1 {
		return 1
	}
	_, units := joinLayout(n, tasks)
	return len(units)
}

// JoinFundamental returns the fundamental solutions of an n-board from
// its total, as JoinPlan.Fundamental does, without a plan's tables.
func JoinFundamental(n int, total uint64) uint64 {
	return fundamental(n, total)
}

// sharedJoin is the last join plan SharedJoinPlan made: a coordinator and
// its embedded workers, in one process, then hold its tables once.
var sharedJoin struct {
	sync.Mutex
	n    int
	plan *JoinPlan
}

// SharedJoinPlan returns the join plan of an n-board in DefaultJoinTasks
// units, made once per process for the last n asked for (a plan's quarter
// tables are read-only, so every goroutine may share it, each with its own
// JoinCounter).
func SharedJoinPlan(n int) (*JoinPlan, error) {
	sharedJoin.Lock()
	defer sharedJoin.Unlock()
	if sharedJoin.plan != nil && sharedJoin.n == n {
		return sharedJoin.plan, nil
	}
	p, err := NewJoinPlan(n, DefaultJoinTasks)
	if err != nil {
		return nil, err
	}
	sharedJoin.n, sharedJoin.plan = n, p
	return p, nil
}

// CountJoinTask counts task t of the KindJoin plan of an n-board (a
// coordinator's recount; a worker keeps a JoinCounter per slot instead).
// Unique is 0 (see KindJoin); Nodes is 0, as the join visits none.
func CountJoinTask(n int, t Task) (Counts, error) {
	jp, err := SharedJoinPlan(n)
	if err != nil {
		return Counts{}, err
	}
	if len(t.Prefix) != 1 || t.Prefix[0] != t.Index {
		return Counts{}, fmt.Errorf("join task %d: prefix %v is not [%d]", t.Index, t.Prefix, t.Index)
	}
	total, err := jp.CountTask(t.Index)
	if err != nil {
		return Counts{}, err
	}
	return Counts{Total: total}, nil
}

// JoinMemory estimates the bytes a worker process of one slot holds at
// its peak to count an n-board's join tasks: the plan's quarter tables
// while they are built, and a counter's buffers. N=16..19 are the peak RSS
// of a worker measured through the cluster (27, 39, 87 and 156 MB),
// rounded up; from N=20 a counter builds tables per group of row-set
// patterns (joinLeanEntries), measured at 100 MB (N=20) and 92 MB (N=21)
// in one process, with room for a worker's own and for longer half-board
// lists than the units measured (docs/engine.md). Beyond joinMaxN the figure is the
// shared tables' (about eightfold every two rows), which no plan builds.
func JoinMemory(n int) int64 {
	peaks := [...]int64{16: 32, 17: 48, 18: 96, 19: 176, 20: 256, 21: 320} // MiB
	switch {
	case n < 16:
		return peaks[16] << 20
	case n < len(peaks):
		return peaks[n] << 20
	}
	return 1600 << (20 + 3*uint((n-len(peaks)+2)/2))
}
