package solver

import "iter"

// walk calls yield with every solution of the n-board that extends prefix,
// in lexicographic order, reusing one slice; it stops early when yield
// returns false. It returns the number of search nodes visited. The prefix
// must be valid (CheckPrefix).
func walk(n int, prefix []int, yield func([]int) bool) (nodes uint64, stopped bool) {
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
		return 1, !yield(cols)
	}
	var sc, sl, sr, sa [MaxN + 1]uint32
	sp := k
	sc[sp], sl[sp], sr[sp] = c, l, r
	sa[sp] = all &^ (c | l | r)
	for sp >= k {
		a := sa[sp]
		if a == 0 {
			sp--
			continue
		}
		bit := a & -a
		sa[sp] = a ^ bit
		nodes++
		cols[sp] = bitIndex(bit)
		c := sc[sp] | bit
		if c == all {
			if !yield(cols) {
				return nodes, true
			}
			continue
		}
		l, r := (sl[sp]|bit)<<1, (sr[sp]|bit)>>1
		sp++
		sc[sp], sl[sp], sr[sp] = c, l, r
		sa[sp] = all &^ (c | l | r)
	}
	return nodes, false
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
func Canonical(cols []int) bool {
	n := len(cols)
	var buf [MaxN]int
	var inv []int
	if n <= MaxN {
		inv = buf[:n]
	} else {
		inv = make([]int, n)
	}
	for r, c := range cols {
		if c < 0 || c >= n {
			return false
		}
		inv[c] = r
	}
	m := n - 1
	// The 8 images: {cols, inverse} with rows and/or columns reflected.
	for t := 1; t < 8; t++ {
		src := cols
		if t&4 != 0 {
			src = inv
		}
		flipRows, flipCols := t&1 != 0, t&2 != 0
		for r := 0; r < n; r++ {
			rr := r
			if flipRows {
				rr = m - r
			}
			v := src[rr]
			if flipCols {
				v = m - v
			}
			if v < cols[r] {
				return false
			}
			if v > cols[r] {
				break
			}
		}
	}
	return true
}
