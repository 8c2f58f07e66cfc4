package solver

import "iter"

// walk calls yield with every solution of the n-board that extends prefix,
// in lexicographic order, reusing one slice; it stops early when yield
// returns false, and then reports true. The prefix must be valid
// (CheckPrefix).
//
// It is the plain bitmask backtracker with an explicit stack: the order of
// the classic sequential programs, for learners and tests. Listing a whole
// board goes through ListTask, an eighth of the search.
func walk(n int, prefix []int, yield func([]int) bool) (stopped bool) {
	all := uint32(1)<<n - 1
	if n == 32 {
		all = ^uint32(0)
	}
	var sol [MaxN]int
	cols := sol[:n]
	var c, l, r uint32
	for i, col := range prefix {
		b := uint32(1) << col
		cols[i] = col
		c, l, r = c|b, (l|b)<<1, (r|b)>>1
	}
	k := len(prefix)
	if k == n {
		return !yield(cols)
	}
	var sa, sc, sl, sr [MaxN]uint32
	i := k
	a := all &^ (c | l | r)
	for {
		if a == 0 {
			if i == k {
				return false
			}
			i--
			a, c, l, r = sa[i&31], sc[i&31], sl[i&31], sr[i&31]
			continue
		}
		bit := a & -a
		a ^= bit
		sol[i&31] = bitIndex(bit)
		if i+1 == n {
			if !yield(cols) {
				return true
			}
			continue
		}
		sa[i&31], sc[i&31], sl[i&31], sr[i&31] = a, c, l, r
		c, l, r = c|bit, (l|bit)<<1, (r|bit)>>1
		i++
		a = all &^ (c | l | r)
	}
}

// Solutions yields every solution of the n-board whose first rows are
// prefix, in lexicographic order of the column lists (0-based). The yielded
// slice is reused: copy it to keep it. An invalid n or prefix (see
// CheckPrefix) yields nothing.
func Solutions(n int, prefix []int) iter.Seq[[]int] {
	return func(yield func([]int) bool) {
		if CheckPrefix(n, prefix) != nil {
			return
		}
		walk(n, prefix, yield)
	}
}

// UniqueSolutions yields the canonical solutions (see Canonical) of the
// n-board whose first rows are prefix, in lexicographic order: one per
// symmetry class, 12 for n=8. The yielded slice is reused.
func UniqueSolutions(n int, prefix []int) iter.Seq[[]int] {
	return func(yield func([]int) bool) {
		if CheckPrefix(n, prefix) != nil {
			return
		}
		walk(n, prefix, func(cols []int) bool {
			if !Canonical(cols) {
				return true
			}
			return yield(cols)
		})
	}
}

// Canonical reports whether cols, a solution in column-list form, is the
// canonical member of its symmetry class: the lexicographically smallest
// of its images under the 8 rotations and reflections of the board.
//
// The three images that keep rows as rows are tried first: together they
// reject most solutions before the inverse permutation is built.
func Canonical(cols []int) bool {
	n := len(cols)
	for _, c := range cols {
		if c < 0 || c >= n {
			return false
		}
	}
	m := n - 1
	// The 8 images: {cols, inverse} with rows and/or columns reflected.
	for t := 1; t < 4; t++ {
		if smallerImage(cols, cols, t, m) {
			return false
		}
	}
	var buf [MaxN]int
	var inv []int
	if n <= MaxN {
		inv = buf[:n]
	} else {
		inv = make([]int, n)
	}
	for r, c := range cols {
		inv[c] = r
	}
	for t := 4; t < 8; t++ {
		if smallerImage(cols, inv, t, m) {
			return false
		}
	}
	return true
}

// smallerImage reports whether image t of cols (src is cols for t < 4,
// the inverse permutation for t >= 4; bit 0 of t reflects the rows, bit 1
// the columns) is lexicographically smaller than cols.
func smallerImage(cols, src []int, t, m int) bool {
	flipRows, flipCols := t&1 != 0, t&2 != 0
	for r := range cols {
		rr := r
		if flipRows {
			rr = m - r
		}
		v := src[rr]
		if flipCols {
			v = m - v
		}
		if v != cols[r] {
			return v < cols[r]
		}
	}
	return false
}
