package solver

import (
	"slices"
	"testing"
)

// TestSplitSums splits every task recursively, as deep as the board
// allows, and checks at every step that the children's counts add up to
// their parent's: the whole board's counts are the oracle at the root.
func TestSplitSums(t *testing.T) {
	for n := 1; n <= 11; n++ {
		root, err := CountTask(n, Task{Prefix: []int{}})
		if err != nil {
			t.Fatal(err)
		}
		if k, _ := Known(n); root.Total != k.Total || root.Unique != k.Unique {
			t.Fatalf("CountTask(%d, root) = %d/%d, want %d/%d", n, root.Total, root.Unique, k.Total, k.Unique)
		}
		deepest := checkSplit(t, n, []int{}, root)
		if n >= 8 && deepest < 7 {
			t.Errorf("n=%d: deepest split %d, want at least 7 (3 border values and 4 rows)", n, deepest)
		}
	}
}

// checkSplit checks the split of prefix (whose counts are want) and of
// every descendant, and returns the deepest prefix length it reached.
func checkSplit(t *testing.T, n int, prefix []int, want Counts) int {
	t.Helper()
	kids, err := Split(n, prefix)
	if err != nil {
		t.Fatalf("Split(%d, %v): %v", n, prefix, err)
	}
	if kids == nil {
		return len(prefix)
	}
	if len(kids) == 0 {
		t.Fatalf("Split(%d, %v) = no children, want nil", n, prefix)
	}
	var sum Counts
	deepest := 0
	for i, k := range kids {
		if len(k) != len(prefix)+1 || !slices.Equal(k[:len(prefix)], prefix) {
			t.Fatalf("Split(%d, %v)[%d] = %v: not one value longer", n, prefix, i, k)
		}
		if i > 0 && kids[i-1][len(prefix)] >= k[len(prefix)] {
			t.Fatalf("Split(%d, %v): children out of order: %v then %v", n, prefix, kids[i-1], k)
		}
		c, err := CountTask(n, Task{Prefix: k})
		if err != nil {
			t.Fatalf("CountTask(%d, %v): %v", n, k, err)
		}
		sum, _ = sum.Add(c)
		deepest = max(deepest, checkSplit(t, n, k, c))
	}
	if sum.Total != want.Total || sum.Unique != want.Unique {
		t.Fatalf("children of %v (n=%d) count %d/%d, parent %d/%d", prefix, n, sum.Total, sum.Unique, want.Total, want.Unique)
	}
	return deepest
}

// TestSplitListing checks that the children of a listing task list
// exactly the parent's solutions.
func TestSplitListing(t *testing.T) {
	const n = 9
	list := func(prefix []int) (sols [][]int) {
		if _, err := ListTask(n, Task{Prefix: prefix}, func(c []int) bool { sols = append(sols, slices.Clone(c)); return true }); err != nil {
			t.Fatal(err)
		}
		return sols
	}
	var walkTree func(prefix []int)
	walkTree = func(prefix []int) {
		kids, err := Split(n, prefix)
		if err != nil || kids == nil {
			return
		}
		want := list(prefix)
		var got [][]int
		for _, k := range kids {
			got = append(got, list(k)...)
			walkTree(k)
		}
		cmp := func(a, b []int) int { return slices.Compare(a, b) }
		slices.SortFunc(want, cmp)
		slices.SortFunc(got, cmp)
		if !slices.EqualFunc(got, want, slices.Equal) {
			t.Fatalf("children of %v list %d representatives, parent %d", prefix, len(got), len(want))
		}
	}
	walkTree([]int{})
}

func TestSplitErrors(t *testing.T) {
	for _, tc := range []struct {
		n      int
		prefix []int
	}{
		{0, nil}, {8, []int{8}}, {8, []int{-1}}, {8, []int{0, 3}}, {8, []int{1, 2, 3, 9}}, {8, []int{1, 2, 6, 1}},
	} {
		if kids, err := Split(tc.n, tc.prefix); err == nil {
			t.Errorf("Split(%d, %v) = %v, want an error", tc.n, tc.prefix, kids)
		}
	}
}
