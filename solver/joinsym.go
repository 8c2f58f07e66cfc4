package solver

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
	all := uint32(1)<<n - 1
	var rec func(rows, cols uint32, a, d uint64) uint64
	rec = func(rows, cols uint32, a, d uint64) uint64 {
		if rows == all {
			return 1
		}
		r := 0
		for rows>>r&1 != 0 {
			r++
		}
		var t uint64
		for c := range n {
			if cols>>c&1 != 0 {
				continue
			}
			orbit := [4][2]int{{r, c}, {n - 1 - r, n - 1 - c}, {c, n - 1 - r}, {n - 1 - c, r}}
			k := 2
			if quarter {
				k = 4
			}
			nr, nc, na, nd, ok := rows, cols, a, d, true
			for i, p := range orbit[:k] {
				dup := false
				for _, q := range orbit[:i] {
					dup = dup || q == p
				}
				if dup {
					continue
				}
				ba, bd := uint64(1)<<(p[0]+p[1]), uint64(1)<<(p[0]-p[1]+n-1)
				if nr>>p[0]&1 != 0 || nc>>p[1]&1 != 0 || na&ba != 0 || nd&bd != 0 {
					ok = false
					break
				}
				nr, nc, na, nd = nr|1<<p[0], nc|1<<p[1], na|ba, nd|bd
			}
			if ok {
				t += rec(nr, nc, na, nd)
			}
		}
		return t
	}
	return rec(0, 0, 0, 0)
}

// fundamental returns the number of symmetry classes of an n-board's
// solutions given their total, by Burnside's lemma.
func fundamental(n int, total uint64) uint64 {
	if n == 1 {
		return 1
	}
	return (total + 2*symSearch(n, true) + symSearch(n, false)) / 8
}
