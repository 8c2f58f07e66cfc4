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
const autoTasksPerSlot = 64

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

// maxExtraRows is how many free rows beyond the border placement a
// KindCount plan may fix.
const maxExtraRows = 2

// maxEnumDepth is the deepest row prefix of an enumeration plan.
const maxEnumDepth = 8

// MaxDepth returns the largest depth NewPlan accepts for n and kind:
// min(n, 8) for enumeration plans, 5 for counting plans (3 border values
// and 2 more rows; see CountTask).
func MaxDepth(n int, kind Kind) int {
	if kind == KindCount {
		return frameDepth + maxExtraRows
	}
	return min(n, maxEnumDepth)
}

// NewPlan splits the search of an n-board into tasks. Depth must be
// 0..MaxDepth(n, kind); depth 0 is a single task holding the whole board.
// Enumeration plans (KindAll, KindUnique) fix the queens of the first
// depth rows: every valid placement, in lexicographic order. Counting plans
// (KindCount) fix the first depth values of the prefixes CountTask
// describes: border placements first, then rows. A depth that gives more
// than MaxPlanTasks tasks is refused.
func NewPlan(n, depth int, kind Kind) (Plan, error) {
	return newPlan(n, depth, kind, MaxPlanTasks)
}

func newPlan(n, depth int, kind Kind, limit int) (Plan, error) {
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
	var err error
	if kind == KindCount {
		p.Tasks, err = countPlan(n, depth, limit)
	} else {
		p.Tasks, err = prefixes(n, depth, n, limit)
	}
	if err != nil {
		return Plan{}, err
	}
	return p, nil
}

// AutoDepth picks the smallest depth whose plan has at least
// autoTasksPerSlot tasks per slot, so that with dynamic handout no
// straggler task holds up the end of a run (the largest KindCount task of
// N=16 at depth 3 is 2% of the work), while keeping the plan under
// autoMaxTasks tasks. It returns 0 for an n out of range (NewPlan then
// reports the error).
func AutoDepth(n, slots int, kind Kind) int {
	if checkN(n) != nil {
		return 0
	}
	want := autoTasksPerSlot * max(slots, 1)
	best := 0
	var sizes [frameDepth + 1]int
	if kind == KindCount {
		sizes = countPlanSizes(n)
	}
	for d := 1; d <= MaxDepth(n, kind); d++ {
		size := 0
		if kind == KindCount && d < len(sizes) {
			size = sizes[d]
		} else {
			p, err := newPlan(n, d, kind, autoMaxTasks)
			if err != nil {
				break
			}
			size = len(p.Tasks)
		}
		if size > autoMaxTasks {
			break
		}
		best = d
		if size >= want {
			break
		}
	}
	return best
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
