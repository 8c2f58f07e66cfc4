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
	Pins     Pins      // the pinned queens of a KindPinned plan (NewPinnedPlan); nil otherwise
	lazy     *lazyPlan // NewLazyPlan's plan past frameDepth: Tasks is nil
}

// maxExtraRows is how many free rows beyond the border placement a
// KindCount plan may fix.
const maxExtraRows = 4

// MaxDepth returns the largest depth NewPlan accepts: 7 for counting and
// listing plans (3 border values and 4 more rows; see CountTask), 5 for
// pinned ones (rows), whatever n. A coordinator splits deeper on demand.
func MaxDepth(n int, kind Kind) int {
	if kind == KindPinned {
		return maxPinnedDepth
	}
	return frameDepth + maxExtraRows
}

// maxPinnedDepth is the largest depth of a pinned plan.
const maxPinnedDepth = 5

// NewPlan splits the search of an n-board into tasks. Depth must be
// 0..MaxDepth(n, kind); depth 0 is a single task holding the whole board.
// Every kind has the same tasks, which fix the first depth values of the
// prefixes CountTask describes: border placements first, then rows. The
// kind says what a worker returns for them: counts (KindCount, CountTask),
// or also the class representatives it lists (KindAll and KindUnique,
// ListTask), and it goes into the plan's Fingerprint. A depth that gives
// more than MaxPlanTasks tasks is refused.
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
	if p.Tasks, err = countPlan(n, depth, limit); err != nil {
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
	sizes := countPlanSizes(n)
	for d := 1; d <= MaxDepth(n, kind); d++ {
		size := 0
		if d < len(sizes) {
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

// Fingerprint hashes N, Depth, Kind, Version, the pins (if any) and a join
// plan's number of units: with a task's index it forms the task id, so
// results from another plan, engine, pin set or solver version are never
// mistaken for this one's.
func (p Plan) Fingerprint() uint64 {
	h := fnv.New64a()
	var b [8 * 4]byte
	binary.LittleEndian.PutUint64(b[0:], uint64(p.N))
	binary.LittleEndian.PutUint64(b[8:], uint64(p.Depth))
	binary.LittleEndian.PutUint64(b[16:], uint64(p.Kind))
	binary.LittleEndian.PutUint64(b[24:], uint64(Version))
	h.Write(b[:])
	if p.Kind == KindJoin { // its units: a change of DefaultJoinTasks is another plan
		binary.LittleEndian.PutUint64(b[0:], uint64(p.Len()))
		h.Write(b[:8])
	}
	for _, pin := range p.Pins { // none for unpinned plans: their hashes stay as they were
		binary.LittleEndian.PutUint64(b[0:], uint64(pin.Row))
		binary.LittleEndian.PutUint64(b[8:], uint64(pin.Col))
		h.Write(b[:16])
	}
	return h.Sum64()
}
