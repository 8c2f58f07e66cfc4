package solver

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
)

// MaxPlanTasks caps the size of a plan: a coordinator keeps every task of a
// plan in memory and in its journal, so a depth that would produce more
// tasks than this is refused.
const MaxPlanTasks = 1 << 20

// autoTasksPerSlot is how many tasks AutoDepth aims for per worker slot:
// tens per slot, so that with dynamic handout no single straggler task
// holds up the end of a run.
const autoTasksPerSlot = 32

// autoMaxTasks caps AutoDepth's plans so they stay cheap to plan, lease and
// journal.
const autoMaxTasks = 100_000

// Plan is the ordered list of tasks that together cover the whole search
// exactly once.
type Plan struct {
	N, Depth int
	Kind     Kind
	Tasks    []Task
}

// MaxDepth returns the largest depth NewPlan accepts for n and kind.
func MaxDepth(n int, kind Kind) int {
	return min(n, 8)
}

// NewPlan splits the search of an n-board into tasks by fixing the queens
// of the first depth rows. Depth must be 0..MaxDepth(n, kind) (at most
// min(n, 8)); depth 0 is a single task holding the whole board.
func NewPlan(n, depth int, kind Kind) (Plan, error) {
	if err := checkN(n); err != nil {
		return Plan{}, err
	}
	if kind != KindCount && kind != KindAll && kind != KindUnique {
		return Plan{}, fmt.Errorf("unknown plan kind %d: want 1 (count), 2 (all) or 3 (unique)", uint8(kind))
	}
	if maxd := MaxDepth(n, kind); depth < 0 || depth > maxd {
		return Plan{}, fmt.Errorf("depth %d out of range: for n=%d it must be 0..%d", depth, n, maxd)
	}
	p := Plan{N: n, Depth: depth, Kind: kind}
	firstLimit := n
	if kind == KindCount && depth > 0 {
		firstLimit = (n + 1) / 2 // mirror halving: the first queen in the left half
	}
	var err error
	p.Tasks, err = prefixes(n, depth, firstLimit, MaxPlanTasks)
	if err != nil {
		return Plan{}, err
	}
	return p, nil
}

// prefixes lists every valid placement of the first depth rows whose first
// queen is in a column below firstLimit, in lexicographic order, failing if
// there are more than limit.
func prefixes(n, depth, firstLimit, limit int) ([]Task, error) {
	if depth == 0 {
		return []Task{{Index: 0, Prefix: []int{}}}, nil
	}
	var tasks []Task
	cols := make([]int, depth)
	var rec func(row int, c, l, r uint32) error
	all := uint32(1)<<n - 1
	if n == 32 {
		all = ^uint32(0)
	}
	rec = func(row int, c, l, r uint32) error {
		if row == depth {
			if len(tasks) >= limit {
				return fmt.Errorf("depth %d gives more than %d tasks for n=%d: choose a smaller depth", depth, limit, n)
			}
			tasks = append(tasks, Task{Index: len(tasks), Prefix: append([]int(nil), cols...)})
			return nil
		}
		avail := all &^ (c | l | r)
		for col := 0; col < n; col++ {
			if row == 0 && col >= firstLimit {
				break
			}
			b := uint32(1) << col
			if avail&b == 0 {
				continue
			}
			cols[row] = col
			if err := rec(row+1, c|b, (l|b)<<1, (r|b)>>1); err != nil {
				return err
			}
		}
		return nil
	}
	if err := rec(0, 0, 0, 0); err != nil {
		return nil, err
	}
	return tasks, nil
}

// AutoDepth picks the smallest depth whose plan has tens of tasks per slot
// (so that dynamic handout leaves no straggler at the end), while keeping
// the plan under autoMaxTasks tasks.
func AutoDepth(n, slots int, kind Kind) int {
	if checkN(n) != nil {
		return 0
	}
	slots = max(slots, 1)
	want := autoTasksPerSlot * slots
	best := 0
	for d := 0; d <= MaxDepth(n, kind); d++ {
		p, err := NewPlanLimit(n, d, kind, autoMaxTasks)
		if err != nil {
			break
		}
		best = d
		if len(p.Tasks) >= want {
			break
		}
	}
	return best
}

// NewPlanLimit is NewPlan with a smaller cap on the number of tasks.
func NewPlanLimit(n, depth int, kind Kind, limit int) (Plan, error) {
	p, err := NewPlan(n, depth, kind)
	if err != nil {
		return p, err
	}
	if len(p.Tasks) > limit {
		return Plan{}, fmt.Errorf("depth %d gives %d tasks for n=%d, more than %d", depth, len(p.Tasks), n, limit)
	}
	return p, nil
}

// Fingerprint hashes N, Depth, Kind and Version: with a task's index it
// forms the task id, so results from another plan or solver version are
// never mistaken for this one's.
func (p Plan) Fingerprint() uint64 {
	h := fnv.New64a()
	var b [8 * 4]byte
	binary.LittleEndian.PutUint64(b[0:], uint64(p.N))
	binary.LittleEndian.PutUint64(b[8:], uint64(p.Depth))
	binary.LittleEndian.PutUint64(b[16:], uint64(p.Kind))
	binary.LittleEndian.PutUint64(b[24:], uint64(Version))
	h.Write(b[:])
	return h.Sum64()
}
