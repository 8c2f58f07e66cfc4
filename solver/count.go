package solver

import (
	"fmt"
	"slices"
)

// frameDepth is the number of values of a KindCount prefix that name the
// border placement (see frame); values after them fix the queens of the
// first free rows.
const frameDepth = 3

// CountTask counts the solutions below a KindCount task of an n-board and
// returns its weighted contribution: the sum of CountTask over every task
// of a KindCount plan is the board's total and fundamental count.
//
// A KindCount prefix is [a, c, d, x1, x2, ...]: a is the column of the
// queen in the first row, c and d the rows of the queens in the first and
// last columns, and x1, x2, ... the columns of the queens in the first rows
// that none of those three holds, top down. The task covers every
// canonical border placement (see frame) with these a, c, d, whatever the
// column b of the queen in the last row. A prefix of fewer than 3 values
// stands for every (a, c, d) that starts with it; the empty prefix is the
// whole board.
func CountTask(n int, t Task) (Counts, error) {
	c, err := countPrefix(n, t.Prefix, true)
	if err != nil {
		return Counts{}, fmt.Errorf("count task %d: %w", t.Index, err)
	}
	return c, nil
}

// countPrefix counts a KindCount prefix; with unique false, the few
// symmetric frames skip the leaf check and Unique is left incomplete (for
// measuring what the fundamental count costs).
func countPrefix(n int, prefix []int, unique bool) (Counts, error) {
	if err := checkN(n); err != nil {
		return Counts{}, err
	}
	for i, v := range prefix[:min(len(prefix), frameDepth)] {
		if v < 0 || v >= n {
			return Counts{}, fmt.Errorf("prefix value %d (position %d) out of range 0..%d", v, i, n-1)
		}
	}
	if len(prefix) >= frameDepth {
		return countTriple(n, prefix[0], prefix[1], prefix[2], prefix[frameDepth:], unique)
	}
	var sum Counts
	var err error
	matched := false
	triples(n, prefix, func(a, c, d int) bool {
		matched = true
		var cnt Counts
		if cnt, err = countTriple(n, a, c, d, nil, unique); err != nil {
			return false
		}
		sum, err = sum.Add(cnt)
		return err == nil
	})
	if err != nil {
		return Counts{}, err
	}
	if !matched && len(prefix) > 0 {
		return Counts{}, fmt.Errorf("prefix %v: no canonical border placement of n=%d starts with it", prefix, n)
	}
	return sum, nil
}

// Count counts the whole n-board on the calling goroutine.
func Count(n int) (Counts, error) {
	return countPrefix(n, nil, true)
}

// countPlan lists the tasks of a KindCount plan of the given depth (see
// CountTask for what the prefixes mean), failing beyond limit tasks.
func countPlan(n, depth, limit int) ([]Task, error) {
	if depth == 0 {
		return []Task{{Index: 0, Prefix: []int{}}}, nil
	}
	var tasks []Task
	var err error
	var slab prefixSlab
	add := func(p []int) bool {
		if len(tasks) >= limit {
			err = fmt.Errorf("depth %d gives more than %d tasks for n=%d: choose a smaller depth", depth, limit, n)
			return false
		}
		tasks = append(tasks, Task{Index: len(tasks), Prefix: slab.clone(p)})
		return true
	}
	triples(n, nil, func(a, cc, d int) bool {
		key := []int{a, cc, d}
		if depth < frameDepth {
			if len(tasks) > 0 && slices.Equal(tasks[len(tasks)-1].Prefix, key[:depth]) {
				return true
			}
			return add(key[:depth])
		}
		q, nq, _ := tripleQueens(n, a, cc, d)
		var bd board
		bd.init(n, frame{queens: q, nq: nq})
		// Extra rows never reach the last free row, which may be row n-1,
		// left open for the frames' queen b.
		extra := max(0, min(depth-frameDepth, bd.k-1))
		p := make([]int, frameDepth+extra)
		copy(p, key)
		return bd.prefixes(0, extra, 0, 0, 0, p, add)
	})
	return tasks, err
}

// prefixes extends p with every valid placement of free rows i..extra-1.
func (bd *board) prefixes(i, extra int, cm, l, r uint32, p []int, add func([]int) bool) bool {
	if i == extra {
		return add(p) // add copies it
	}
	a := bd.all &^ (cm | l | r | bd.fx[i])
	for a != 0 {
		bit := a & -a
		a ^= bit
		p[frameDepth+i] = bitIndex(bit)
		if !bd.prefixes(i+1, extra, cm|bit, (l|bit)<<bd.sh[i], (r|bit)>>bd.sh[i], p, add) {
			return false
		}
	}
	return true
}

// prefixSlab hands out copies of prefixes from shared chunks: a plan of a
// million tasks then holds a few hundred allocations instead of a million
// (40 bytes a prefix of depth 5 instead of 48, and less for the GC to
// visit). Each copy is capped at its length, so no append can reach its
// neighbour.
type prefixSlab struct{ free []int }

func (s *prefixSlab) clone(p []int) []int {
	if len(s.free) < len(p) {
		s.free = make([]int, max(len(p), 4096))
	}
	q := s.free[:len(p):len(p)]
	copy(q, p)
	s.free = s.free[len(p):]
	return q
}

// countPlanSizes returns the number of tasks of the KindCount plans of
// depth 0..frameDepth, enumerating the border placements once.
func countPlanSizes(n int) (sizes [frameDepth + 1]int) {
	sizes[0] = 1
	var last [frameDepth]int
	first := true
	triples(n, nil, func(a, c, d int) bool {
		key := [frameDepth]int{a, c, d}
		same := !first
		for i := 1; i <= frameDepth; i++ {
			same = same && key[i-1] == last[i-1]
			if !same {
				sizes[i]++
			}
		}
		last, first = key, false
		return true
	})
	return sizes
}
