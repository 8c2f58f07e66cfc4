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
// (its Kind) and names its number of units.
func NewJoinTaskPlan(n int) (Plan, error) {
	jp, err := SharedJoinPlan(n)
	if err != nil {
		return Plan{}, err
	}
	tasks := make([]Task, jp.NumTasks())
	for i := range tasks {
		tasks[i] = Task{Index: i, Prefix: []int{i}}
	}
	return Plan{N: n, Kind: KindJoin, Tasks: tasks}, nil
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

// JoinMemory estimates the bytes a worker process holds to count an
// n-board's join tasks on one slot: the plan's quarter tables and one
// counter's buffers, from peaks measured at n = 16..20 (docs in the
// coordinator's --worker-memory). Each added row multiplies them by about
// 2.8.
func JoinMemory(n int) int64 {
	const at18 = 96 << 20 // bytes, N=18: tables 60 MB, plus a counter's buffers and the runtime's slack
	m := float64(at18)
	for i := 18; i < n; i++ {
		m *= 2.8
	}
	for i := n; i < 18; i++ {
		m /= 2.8
	}
	return int64(m)
}
