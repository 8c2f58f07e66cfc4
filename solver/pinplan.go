package solver

import (
	"fmt"
	"math/bits"
	"slices"
)

// KindPinned tasks count (or list) the completions of pinned queens
// (CountPinnedTask, ListPinnedTask): plain row prefixes, every solution
// counted once, no symmetry used, so Counts.Unique is always 0. A symmetry
// of the board maps the completions of one pin set onto those of another,
// so it may only be used for pin sets it keeps in place; pinned plans use
// none, and the fundamental count is not computed for them.
const KindPinned Kind = 4

// NewPinnedPlan splits the search for the completions of pins on an
// n-board into tasks. A task's prefix fixes the rows from the top down to
// the depth-th row that holds no pin: the pinned rows among them hold
// their pins, the free ones every column that attacks neither the queens
// above nor any pin. The tasks come in lexicographic order of their
// prefixes, so their completions, task after task, are in the order of
// Solutions. Depth must be 0..MaxDepth(n, KindPinned) and at most the
// number of rows the pins leave free; depth 0 is a single task with an
// empty prefix. The plan's Fingerprint covers the pins, so results of
// another pin set never match. A plan over MaxPlanTasks tasks is refused,
// as are pins ParsePins would refuse (an empty pin set is allowed: the
// plan then covers every solution, without symmetry).
func NewPinnedPlan(n, depth int, pins Pins) (Plan, error) {
	return newPinnedPlan(n, depth, pins, MaxPlanTasks)
}

func newPinnedPlan(n, depth int, pins Pins, limit int) (Plan, error) {
	s, _, _, _, _, err := newCompletions(n, pins, nil)
	if err != nil {
		return Plan{}, err
	}
	free := n - len(pins)
	if maxd := min(MaxDepth(n, KindPinned), free); depth < 0 || depth > maxd {
		return Plan{}, fmt.Errorf("depth %d out of range: with %d pinned queens on n=%d it must be 0..%d", depth, len(pins), n, maxd)
	}
	rows := 0 // the rows a prefix fixes: down to the depth-th free row
	for left := depth; left > 0; rows++ {
		if s.pinned[rows] == 0 {
			left--
		}
	}
	p := Plan{N: n, Depth: depth, Kind: KindPinned, Pins: slices.Clone(pins)}
	prefix := make([]int, 0, rows)
	var tasks []Task
	var walk func(row int, c, l, r uint64) bool
	walk = func(row int, c, l, r uint64) bool {
		if row == rows {
			if len(tasks) == limit {
				return false
			}
			tasks = append(tasks, Task{Index: len(tasks), Prefix: slices.Clone(prefix)})
			return true
		}
		avail := s.all &^ (c | l | r | s.forbid[row])
		if pin := s.pinned[row]; pin != 0 {
			avail = pin &^ (c | l | r)
		}
		for ; avail != 0; avail &= avail - 1 {
			bit := avail & -avail
			prefix = append(prefix, bits.TrailingZeros64(bit))
			ok := walk(row+1, c|bit, (l|bit)<<1&s.all, (r|bit)>>1)
			prefix = prefix[:len(prefix)-1]
			if !ok {
				return false
			}
		}
		return true
	}
	if !walk(0, 0, 0, 0) {
		return Plan{}, fmt.Errorf("depth %d gives more than %d tasks: choose a smaller depth", depth, limit)
	}
	p.Tasks = tasks
	return p, nil
}

// AutoPinnedDepth is AutoDepth for NewPinnedPlan: the smallest depth whose
// plan has at least autoTasksPerSlot tasks per slot, keeping it under
// autoMaxTasks tasks. It returns 0 for an n or pins NewPinnedPlan refuses
// (which then reports the error).
func AutoPinnedDepth(n, slots int, pins Pins) int {
	if checkN(n) != nil || pins.check(n) != nil {
		return 0
	}
	want := autoTasksPerSlot * max(slots, 1)
	best := 0
	for d := 1; d <= min(MaxDepth(n, KindPinned), n-len(pins)); d++ {
		p, err := newPinnedPlan(n, d, pins, autoMaxTasks)
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

// CountPinnedTask counts the completions of pins below task t of a
// KindPinned plan (CountCompletions of its prefix): Total is every
// solution once, Unique 0.
func CountPinnedTask(n int, pins Pins, t Task) (Counts, error) {
	return CountCompletions(n, pins, t.Prefix)
}

// ListPinnedTask is CountPinnedTask that hands every completion to yield,
// in lexicographic order (ListCompletions): whole solutions, not class
// representatives. The slice is reused; yield returning false stops.
func ListPinnedTask(n int, pins Pins, t Task, yield func(cols []int) bool) (Counts, error) {
	return ListCompletions(n, pins, t.Prefix, yield)
}

// PinnedChecker checks, for a coordinator that does not trust its
// workers, that a stream of solutions is what ListPinnedTask yields for
// one task: each holds every pin and the task's prefix, and each comes
// strictly after the one before in lexicographic order (so none comes
// twice). It checks neither that the stream is complete (the count does)
// nor that each is a solution (see Verify).
type PinnedChecker struct {
	n      int
	pins   Pins
	prefix []int
	last   []int // the previous solution; nil before the first
}

// NewPinnedChecker returns a checker for the task prefix of a KindPinned
// plan of pins on an n-board.
func NewPinnedChecker(n int, pins Pins, prefix []int) *PinnedChecker {
	return &PinnedChecker{n: n, pins: pins, prefix: prefix}
}

// Check checks the next solution of the stream.
func (k *PinnedChecker) Check(cols []int) error {
	if len(cols) != k.n {
		return fmt.Errorf("%d rows, want %d", len(cols), k.n)
	}
	for _, p := range k.pins {
		if cols[p.Row] != p.Col {
			return fmt.Errorf("row %d: column %d, but %v is pinned", p.Row+1, cols[p.Row]+1, p)
		}
	}
	if len(k.prefix) > k.n || !slices.Equal(cols[:len(k.prefix)], k.prefix) {
		return fmt.Errorf("solution is outside the task %v", k.prefix)
	}
	if k.last != nil && slices.Compare(k.last, cols) >= 0 {
		return fmt.Errorf("not after the previous solution")
	}
	if k.last == nil {
		k.last = make([]int, k.n)
	}
	copy(k.last, cols)
	return nil
}

// PinnedColumns is pins as one entry per row of an n-board: 0 for a free
// row, else the pin's 1-based column (the wire's form).
func PinnedColumns(n int, pins Pins) []uint32 {
	if len(pins) == 0 {
		return nil
	}
	out := make([]uint32, n)
	for _, p := range pins {
		out[p.Row] = uint32(p.Col + 1)
	}
	return out
}

// PinsFromColumns reads PinnedColumns' form back, refusing what ParsePins
// would refuse and a list that is not one entry per row.
func PinsFromColumns(n int, cols []uint32) (Pins, error) {
	if err := checkN(n); err != nil {
		return nil, err
	}
	if len(cols) != n {
		return nil, fmt.Errorf("%d pinned columns for n=%d, want one per row", len(cols), n)
	}
	var ps Pins
	for r, c := range cols {
		if c > uint32(n) {
			return nil, fmt.Errorf("row %d: pinned column %d out of range 1..%d", r+1, c, n)
		}
		if c != 0 {
			ps = append(ps, Pin{r, int(c) - 1})
		}
	}
	if err := ps.check(n); err != nil {
		return nil, err
	}
	return ps, nil
}
