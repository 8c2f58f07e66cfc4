package solver

// count is the hot loop: it counts the completions of the free rows
// start..k-1 given the search queens' columns cm and diagonals l, r (as
// seen from free row start). It is an explicit-stack bitmask backtracker
// over fixed-size arrays (no allocation); the last free row is not pushed
// but counted at once, since it has at most one free column left.
func (bd *board) count(start int, cm, l, r uint32) (sols, nodes uint64) {
	k, all := bd.k, bd.all
	switch {
	case start == k:
		return 1, 0
	case start == k-1:
		if all&^(cm|l|r|bd.fx[start]) != 0 {
			return 1, 1
		}
		return 0, 0
	}
	var sa, sc, sl, sr [MaxN + 1]uint32
	last := k - 1
	i := start
	sc[i], sl[i], sr[i] = cm, l, r
	sa[i] = all &^ (cm | l | r | bd.fx[i])
	for {
		a := sa[i]
		if a == 0 {
			if i == start {
				break
			}
			i--
			continue
		}
		bit := a & -a
		sa[i] = a ^ bit
		nodes++
		s := bd.sh[i] & 31
		ncm := sc[i] | bit
		nl := (sl[i] | bit) << s
		nr := (sr[i] | bit) >> s
		na := all &^ (ncm | nl | nr | bd.fx[i+1])
		if i+1 == last {
			sols += uint64((na | -na) >> 31)
			continue
		}
		if na != 0 {
			i++
			sc[i], sl[i], sr[i], sa[i] = ncm, nl, nr, na
		}
	}
	return sols, nodes
}

// countSym counts the solutions of a frame that some symmetries fix,
// recording the board: a solution is fundamental when it is the smallest
// of its images under the frame's stabilizer. Such frames are few, so
// this slower path costs little.
func (bd *board) countSym(extra []int) (sols, uniq, nodes uint64) {
	n, f := bd.n, bd.frame
	var p [MaxN]int
	for i := 0; i < f.nq; i++ {
		p[f.queens[i][0]] = f.queens[i][1]
	}
	var cm, l, r uint32
	for i, col := range extra {
		b := uint32(1) << col
		p[bd.rows[i]] = col
		cm, l, r = cm|b, (l|b)<<bd.sh[i], (r|b)>>bd.sh[i]
	}
	var rec func(i int, cm, l, r uint32)
	rec = func(i int, cm, l, r uint32) {
		if i == bd.k {
			sols++
			if minimalUnder(f.stab, p[:n]) {
				uniq++
			}
			return
		}
		a := bd.all &^ (cm | l | r | bd.fx[i])
		for a != 0 {
			bit := a & -a
			a ^= bit
			nodes++
			p[bd.rows[i]] = bitIndex(bit)
			rec(i+1, cm|bit, (l|bit)<<bd.sh[i], (r|bit)>>bd.sh[i])
		}
	}
	rec(len(extra), cm, l, r)
	return sols, uniq, nodes
}

// minimalUnder reports whether solution p is no greater (lexicographically,
// as a column list) than its image under each symmetry in the set stab.
func minimalUnder(stab uint8, p []int) bool {
	n := len(p)
	m := n - 1
	var img [MaxN]int
	for g := 1; g < 8; g++ {
		if stab&(1<<g) == 0 {
			continue
		}
		for r, c := range p {
			rr, cc := transform(g, m, r, c)
			img[rr] = cc
		}
		for r := 0; r < n; r++ {
			if img[r] != p[r] {
				if img[r] < p[r] {
					return false
				}
				break
			}
		}
	}
	return true
}
