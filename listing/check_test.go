package listing

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/nqueens/nqueens/internal/packed"
	"github.com/nqueens/nqueens/solver"
)

// pack returns the class representatives of KindCount task prefix of the
// n-board, packed, as a worker streams them, and the task's counts.
func pack(n int, prefix []int) (packed []byte, c solver.Counts) {
	c, _ = solver.ListTask(n, solver.Task{Prefix: prefix}, func(cols []int) bool {
		for _, col := range cols {
			packed = append(packed, byte(col))
		}
		return true
	})
	return packed, c
}

func TestCheckerAcceptsSolver(t *testing.T) {
	for _, tc := range []struct {
		n      int
		prefix []int
		want   solver.Counts
	}{
		{8, nil, solver.Counts{Total: 92, Unique: 12}},
		{10, nil, solver.Counts{Total: 724, Unique: 92}},
		{12, []int{1}, solver.Counts{}},
		{12, planTask(12, 4, 30), solver.Counts{}},
		{12, planTask(12, 5, 100), solver.Counts{}},
		{1, nil, solver.Counts{Total: 1, Unique: 1}},
	} {
		packed, c := pack(tc.n, tc.prefix)
		if tc.want.Total != 0 && (c.Total != tc.want.Total || c.Unique != tc.want.Unique) {
			t.Fatalf("solver gave %d, %d for n=%d prefix %v, want %d, %d", c.Total, c.Unique, tc.n, tc.prefix, tc.want.Total, tc.want.Unique)
		}
		count := uint32(c.Unique)
		if count == 0 {
			t.Fatalf("n=%d prefix %v: no representatives", tc.n, tc.prefix)
		}
		b := NewChecker(solver.Plan{N: tc.n}, tc.prefix)
		// Two batches: the first half, then the rest.
		half := count / 2
		seq := uint32(0)
		if half > 0 {
			if err := b.Check(0, half, packed[:int(half)*tc.n], nil); err != nil {
				t.Fatalf("n=%d prefix %v: first batch: %v", tc.n, tc.prefix, err)
			}
			seq = 1
		}
		if err := b.Check(seq, count-half, packed[int(half)*tc.n:], nil); err != nil {
			t.Fatalf("n=%d prefix %v: second batch: %v", tc.n, tc.prefix, err)
		}
		if b.streamed.Unique != c.Unique || b.streamed.Total != c.Total {
			t.Errorf("n=%d prefix %v: checker counted %d, %d; want %d, %d", tc.n, tc.prefix, b.streamed.Unique, b.streamed.Total, c.Unique, c.Total)
		}
	}
}

func TestCheckerRejects(t *testing.T) {
	reps, _ := pack(8, nil)
	first, second := reps[:8], reps[8:16]
	// An image of a representative is a solution, but not the one the
	// search streams.
	image := slices.Clone(first)
	slices.Reverse(image)
	for _, tc := range []struct {
		name   string
		prefix []int
		seq    uint32
		count  uint32
		packed []byte
	}{
		{"attack", nil, 0, 1, []byte{0, 1, 2, 3, 4, 5, 6, 7}},
		{"column out of range", nil, 0, 1, []byte{0, 4, 7, 5, 2, 6, 1, 9}},
		{"outside the task", []int{int(first[0]) + 1}, 0, 1, first},
		{"not a representative", nil, 0, 1, image},
		{"not increasing", nil, 0, 2, append(slices.Clone(second), first...)},
		{"repeated", nil, 0, 2, append(slices.Clone(first), first...)},
		{"wrong seq", nil, 1, 1, first},
		{"empty", nil, 0, 0, nil},
		{"short", nil, 0, 2, first},
	} {
		b := NewChecker(solver.Plan{N: 8}, tc.prefix)
		if err := b.Check(tc.seq, tc.count, tc.packed, nil); !errors.Is(err, ErrBatch) {
			t.Errorf("%s: check = %v, want an ErrBatch error", tc.name, err)
		}
		if b.seq != 0 {
			t.Errorf("%s: a rejected batch moved the checker to seq %d", tc.name, b.seq)
		}
	}
}

// planTask returns the prefix of the first task from i on, of the n-board's
// plan of depth d, that has solutions.
func planTask(n, d, i int) []int {
	p, err := solver.NewPlan(n, d, solver.KindCount)
	if err != nil {
		panic(err)
	}
	for _, t := range p.Tasks[i:] {
		if _, c := pack(n, t.Prefix); c.Unique > 0 {
			return t.Prefix
		}
	}
	panic("no task with solutions")
}

func packCols(cols []int) []byte {
	b := make([]byte, len(cols))
	for i, c := range cols {
		b[i] = byte(c)
	}
	return b
}

// FuzzChecker feeds garbage to the batch decoder: it must never panic,
// and every solution it accepts must pass solver.Verify and
// solver.ListChecker, and the counts must add up.
func FuzzChecker(f *testing.F) {
	reps, c := pack(6, nil)
	f.Add(uint8(6), []byte{}, uint32(0), uint32(c.Unique), reps)
	reps, c = pack(8, []int{1})
	f.Add(uint8(8), []byte{1}, uint32(0), uint32(c.Unique), reps)
	f.Add(uint8(8), []byte{1, 3}, uint32(0), uint32(1), []byte{1, 3, 0, 0, 0, 0, 0, 0})
	f.Add(uint8(40), []byte{}, uint32(0), uint32(1), make([]byte, 40))
	f.Fuzz(func(t *testing.T, n8 uint8, prefixBytes []byte, seq, count uint32, sols []byte) {
		n := int(n8%solver.MaxN) + 1
		prefix := make([]int, 0, len(prefixBytes))
		for _, c := range prefixBytes {
			if len(prefix) == solver.MaxDepth(n, solver.KindCount) {
				break
			}
			prefix = append(prefix, int(c)%n)
		}
		b := NewChecker(solver.Plan{N: n}, prefix)
		check := solver.NewListChecker(n, prefix)
		cols := make([]int, n)
		var total uint64
		err := b.Check(seq, count, sols, func(sol []byte) error {
			packed.Unpack(cols, sol)
			if err := solver.Verify(n, cols); err != nil {
				t.Fatalf("accepted an invalid solution %v: %v", sol, err)
			}
			if err := check.Check(cols); err != nil {
				t.Fatalf("accepted %v, which ListChecker refuses: %v", sol, err)
			}
			total += uint64(solver.ClassSize(cols))
			return nil
		})
		if err == nil && (b.streamed.Unique != uint64(count) || b.streamed.Total != total) {
			t.Fatalf("accepted %d classes of %d, count says %d, classes hold %d", b.streamed.Unique, b.streamed.Total, count, total)
		}
	})
}

// TestCheckerPinned: a pinned task's checker counts whole solutions
// once each and refuses one without the pin, outside the prefix or out of
// order.
func TestCheckerPinned(t *testing.T) {
	pins, _ := solver.ParsePins(8, "1:1")
	plan, err := solver.NewPinnedPlan(8, 1, pins)
	if err != nil {
		t.Fatal(err)
	}
	idx := slices.IndexFunc(plan.Tasks, func(task solver.Task) bool { return slices.Equal(task.Prefix, []int{0, 6}) })
	b := NewChecker(plan, plan.Tasks[idx].Prefix)
	two := packed.Append(packed.Append(nil, []int{0, 6, 3, 5, 7, 1, 4, 2}), []int{0, 6, 4, 7, 1, 3, 5, 2})
	if err := b.Check(0, 2, two, nil); err != nil || b.Streamed() != (solver.Counts{Total: 2}) {
		t.Fatalf("check of the 2 completions of 1 7: %v, streamed %+v", err, b.Streamed())
	}
	for _, tc := range []struct {
		sol  []int
		want string
	}{
		{[]int{0, 6, 4, 7, 1, 3, 5, 2}, "not after"},
		{[]int{0, 4, 7, 5, 2, 6, 1, 3}, "outside the task"},
		{[]int{1, 3, 5, 7, 2, 0, 6, 4}, "(1,1) is pinned"},
		{[]int{0, 6, 4, 7, 1, 3, 2, 5}, "attacked"},
	} {
		b := NewChecker(plan, plan.Tasks[idx].Prefix)
		b.Check(0, 1, packed.Append(nil, []int{0, 6, 4, 7, 1, 3, 5, 2}), nil)
		if err := b.Check(1, 1, packed.Append(nil, tc.sol), nil); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("check(%v) = %v, want %q", tc.sol, err, tc.want)
		}
	}
}
