package solver

import "math/bits"

// Burnside's lemma gives the fundamental count from the total: the classes
// number (total + 2·S90 + S180) / 8, where S90 counts the solutions a
// quarter turn maps onto themselves and S180 those a half turn does (for
// n > 1 no mirror fixes a solution, and the turns by 90 and 270 degrees fix
// the same ones). S90 and S180 come from a search over symmetric boards
// only, which places a queen's whole orbit at once and so needs a quarter
// or half of the rows' decisions.

// symSearch counts the solutions of an n-board that a turn by 90 degrees
// (quarter) or 180 degrees maps onto themselves.
func symSearch(n int, quarter bool) uint64 {
	w := symWalk{n: n, quarter: quarter}
	return w.rec(0, 0, 0, 0)
}

// symWalk places the lowest empty row's queen with its whole orbit under
// the turn, a direct recursion over bit masks: rows and columns taken,
// anti-diagonals (bit r+c) and diagonals (bit c-r+n-1).
type symWalk struct {
	n       int
	quarter bool
}

func (w *symWalk) rec(rows, cols uint32, a, d uint64) uint64 {
	n := w.n
	all := uint32(1)<<n - 1
	if rows == all {
		return 1
	}
	r := bits.TrailingZeros32(^rows)
	var t uint64
	for free := all &^ cols; free != 0; free &= free - 1 {
		c := bits.TrailingZeros32(free)
		nr, nc, na, nd := rows, cols, a, d
		ok := place(n, &nr, &nc, &na, &nd, r, c)
		if ok && (r != n-1-r || c != n-1-c) { // not the centre: its images differ
			ok = place(n, &nr, &nc, &na, &nd, n-1-r, n-1-c)
			if ok && w.quarter {
				ok = place(n, &nr, &nc, &na, &nd, c, n-1-r) && place(n, &nr, &nc, &na, &nd, n-1-c, r)
			}
		}
		if ok {
			t += w.rec(nr, nc, na, nd)
		}
	}
	return t
}

// place puts a queen on (r, c) if nothing there or on its lines is taken.
func place(n int, rows, cols *uint32, a, d *uint64, r, c int) bool {
	ba, bd := uint64(1)<<(r+c), uint64(1)<<(c-r+n-1)
	if *rows>>r&1 != 0 || *cols>>c&1 != 0 || *a&ba != 0 || *d&bd != 0 {
		return false
	}
	*rows, *cols, *a, *d = *rows|1<<r, *cols|1<<c, *a|ba, *d|bd
	return true
}

// fundamental returns the number of symmetry classes of an n-board's
// solutions given their total, by Burnside's lemma.
func fundamental(n int, total uint64) uint64 {
	if n == 1 {
		return 1
	}
	return (total + 2*symSearch(n, true) + symSearch(n, false)) / 8
}
