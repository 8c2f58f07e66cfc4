package solver

import "fmt"

// CountTask counts the solutions below a KindCount task of an n-board and
// returns its weighted contribution: the sum of CountTask over every task
// of a KindCount plan is the board's total and fundamental count.
func CountTask(n int, t Task) (Counts, error) {
	if err := CheckPrefix(n, t.Prefix); err != nil {
		return Counts{}, fmt.Errorf("count task %d: %w", t.Index, err)
	}
	if len(t.Prefix) == 0 {
		return Count(n)
	}
	if t.Prefix[0] >= (n+1)/2 {
		return Counts{}, fmt.Errorf("count task %d: first column %d is not in the left half 0..%d", t.Index, t.Prefix[0], (n+1)/2-1)
	}
	return countPrefix(n, t.Prefix), nil
}

// countPrefix counts a mirror-halved prefix: a first queen left of the
// middle stands for its mirror image too.
func countPrefix(n int, prefix []int) Counts {
	w := uint64(2)
	if n%2 == 1 && prefix[0] == n/2 {
		w = 1
	}
	var cnt Counts
	nodes, _ := walk(n, prefix, func(cols []int) bool {
		cnt.Total += w
		if Canonical(cols) {
			cnt.Unique++
		}
		return true
	})
	cnt.Nodes = nodes
	return cnt
}

// Count counts the whole n-board on the calling goroutine.
func Count(n int) (Counts, error) {
	if err := checkN(n); err != nil {
		return Counts{}, err
	}
	var sum Counts
	for c := 0; c < (n+1)/2; c++ {
		sum, _ = sum.Add(countPrefix(n, []int{c}))
	}
	return sum, nil
}
