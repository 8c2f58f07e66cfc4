package coordinator

import (
	"errors"
	"testing"

	"github.com/nqueens/nqueens/solver"
)

// pack returns the solutions of the n-board below prefix, packed.
func pack(n int, prefix []int, unique bool) (packed []byte, count uint32) {
	seq := solver.Solutions(n, prefix)
	if unique {
		seq = solver.UniqueSolutions(n, prefix)
	}
	for cols := range seq {
		for _, c := range cols {
			packed = append(packed, byte(c))
		}
		count++
	}
	return packed, count
}

func TestBatchCheckerAcceptsSolver(t *testing.T) {
	for _, tc := range []struct {
		n      int
		prefix []int
		unique bool
		want   uint32
	}{
		{8, nil, false, 92},
		{8, nil, true, 12},
		{8, []int{0}, false, 4},
		{10, []int{1, 3}, false, 0},
		{1, nil, false, 1},
	} {
		packed, count := pack(tc.n, tc.prefix, tc.unique)
		if count != tc.want && tc.want != 0 {
			t.Fatalf("solver gave %d solutions for n=%d prefix %v, want %d", count, tc.n, tc.prefix, tc.want)
		}
		if count == 0 {
			continue
		}
		b := newBatchChecker(tc.n, tc.prefix, tc.unique)
		// Two batches: the first half, then the rest.
		half := count / 2
		if half > 0 {
			if err := b.check(0, half, packed[:int(half)*tc.n], nil); err != nil {
				t.Fatalf("n=%d prefix %v: first batch: %v", tc.n, tc.prefix, err)
			}
		}
		seq := uint32(0)
		if half > 0 {
			seq = 1
		}
		if err := b.check(seq, count-half, packed[int(half)*tc.n:], nil); err != nil {
			t.Fatalf("n=%d prefix %v: second batch: %v", tc.n, tc.prefix, err)
		}
		if b.count != uint64(count) {
			t.Errorf("n=%d prefix %v: checker counted %d, want %d", tc.n, tc.prefix, b.count, count)
		}
	}
}

func TestBatchCheckerRejects(t *testing.T) {
	first := []byte{0, 4, 7, 5, 2, 6, 1, 3} // 1 5 8 6 3 7 2 4
	second := []byte{0, 5, 7, 2, 6, 3, 1, 4}
	for _, tc := range []struct {
		name   string
		prefix []int
		unique bool
		seq    uint32
		count  uint32
		packed []byte
	}{
		{"attack", nil, false, 0, 1, []byte{0, 1, 2, 3, 4, 5, 6, 7}},
		{"column out of range", nil, false, 0, 1, []byte{0, 4, 7, 5, 2, 6, 1, 9}},
		{"outside prefix", []int{1}, false, 0, 1, first},
		{"not increasing", nil, false, 0, 2, append(append([]byte{}, second...), first...)},
		{"repeated", nil, false, 0, 2, append(append([]byte{}, first...), first...)},
		{"wrong seq", nil, false, 1, 1, first},
		{"empty", nil, false, 0, 0, nil},
		{"short", nil, false, 0, 2, first},
		{"not canonical", nil, true, 0, 1, []byte{7, 3, 0, 2, 5, 1, 6, 4}},
	} {
		b := newBatchChecker(8, tc.prefix, tc.unique)
		if err := b.check(tc.seq, tc.count, tc.packed, nil); !errors.Is(err, errBatch) {
			t.Errorf("%s: check = %v, want an errBatch error", tc.name, err)
		}
		if b.count != 0 || b.seq != 0 {
			t.Errorf("%s: a rejected batch moved the checker to seq %d count %d", tc.name, b.seq, b.count)
		}
	}
}

// FuzzBatchChecker feeds garbage to the batch decoder: it must never panic,
// and every solution it accepts must pass solver.Verify, extend the prefix
// and come strictly after the previous one.
func FuzzBatchChecker(f *testing.F) {
	packed, count := pack(6, nil, false)
	f.Add(uint8(6), []byte{}, uint32(0), count, packed)
	packed, count = pack(8, []int{0}, false)
	f.Add(uint8(8), []byte{0}, uint32(0), count, packed)
	f.Add(uint8(8), []byte{1, 3}, uint32(0), uint32(1), []byte{1, 3, 0, 0, 0, 0, 0, 0})
	f.Add(uint8(40), []byte{}, uint32(0), uint32(1), make([]byte, 40))
	f.Fuzz(func(t *testing.T, n8 uint8, prefixBytes []byte, seq, count uint32, packed []byte) {
		n := int(n8%solver.MaxN) + 1
		prefix := make([]int, 0, len(prefixBytes))
		for _, c := range prefixBytes {
			if len(prefix) == n {
				break
			}
			prefix = append(prefix, int(c)%n)
		}
		b := newBatchChecker(n, prefix, false)
		var prev []byte
		cols := make([]int, n)
		err := b.check(seq, count, packed, func(sol []byte) error {
			unpack(cols, sol)
			if err := solver.Verify(n, cols); err != nil {
				t.Fatalf("accepted an invalid solution %v: %v", sol, err)
			}
			for r, c := range prefix {
				if cols[r] != c {
					t.Fatalf("accepted %v outside prefix %v", sol, prefix)
				}
			}
			if prev != nil && string(sol) <= string(prev) {
				t.Fatalf("accepted %v after %v", sol, prev)
			}
			prev = append(prev[:0], sol...)
			return nil
		})
		if err == nil && b.count != uint64(count) {
			t.Fatalf("accepted %d solutions, count says %d", b.count, count)
		}
	})
}
