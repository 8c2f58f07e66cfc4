package solver

// count is the hot loop: it counts the completions of the free rows
// start..k-1 given the search queens' columns cm and diagonals l, r (as
// seen from free row start). It is a bitmask backtracker with the current
// row's masks in registers and an explicit stack of fixed-size arrays for
// the rows above (no allocation, no store-to-load round trip per node).
// The last two free rows are not searched but counted without branches:
// only two columns are left for them, so there are at most two ways to
// finish (see lastTwo).
func (bd *board) count(start int, cm, l, r uint32) (sols, nodes uint64) {
	k, all := bd.k, bd.all
	cm |= bd.fcols
	switch {
	case start == k:
		return 1, 0
	case start == k-1:
		if all&^(cm|l|r|bd.fx[start]) != 0 {
			return 1, 1
		}
		return 0, 0
	case start == k-2:
		return bd.lastTwo(cm, l, r)
	}
	var sa, sc, sl, sr [MaxN + 1]uint32
	l2 := k - 2 // the level whose completions are counted directly
	fx2, s2, fxl := bd.fx[l2&31], bd.sh[l2&31]&31, bd.fx[(k-1)&31]
	i := start
	a := all &^ (cm | l | r | bd.fx[i&31])
	for {
		if a == 0 {
			if i == start {
				break
			}
			i--
			a, cm, l, r = sa[i&31], sc[i&31], sl[i&31], sr[i&31]
			continue
		}
		bit := a & -a
		a ^= bit
		nodes++
		s := bd.sh[i&31] & 31
		ncm := cm | bit
		nl := (l | bit) << s
		nr := (r | bit) >> s
		if i+1 == l2 {
			// lastTwo, inlined: lo then hi, or hi then lo.
			f := all &^ ncm
			lo := f & -f
			hi := f ^ lo
			av := f &^ (nl | nr | fx2)
			fitLo, fitHi := av&lo, av&hi
			endLo := hi &^ (((nl | lo) << s2) | ((nr | lo) >> s2) | fxl)
			endHi := lo &^ (((nl | hi) << s2) | ((nr | hi) >> s2) | fxl)
			nodes += uint64(nz(fitLo) + nz(fitHi))
			sols += uint64(nz(fitLo)&nz(endLo) + nz(fitHi)&nz(endHi))
			continue
		}
		na := all &^ (ncm | nl | nr | bd.fx[(i+1)&31])
		if na != 0 {
			sa[i&31], sc[i&31], sl[i&31], sr[i&31] = a, cm, l, r
			i++
			a, cm, l, r = na, ncm, nl, nr
		}
	}
	return sols, nodes
}

// nz is 1 if v != 0, else 0, without a branch.
func nz(v uint32) uint32 { return (v | -v) >> 31 }

// lastTwo counts the ways to finish the last two free rows: the two
// columns left, lo and hi, go one in each row, in either order.
func (bd *board) lastTwo(cm, l, r uint32) (sols, nodes uint64) {
	k := bd.k
	f := bd.all &^ (cm | bd.fcols)
	lo := f & -f
	hi := f ^ lo
	a := f &^ (l | r | bd.fx[(k-2)&31]) // free in the second-to-last row
	s := bd.sh[(k-2)&31] & 31
	fl := bd.fx[(k-1)&31]
	loHi := (a & lo) != 0 // lo fits first
	hiLo := (a & hi) != 0
	if loHi {
		nodes++
		if hi&(((l|lo)<<s)|((r|lo)>>s)|fl) == 0 {
			sols++
		}
	}
	if hiLo {
		nodes++
		if lo&(((l|hi)<<s)|((r|hi)>>s)|fl) == 0 {
			sols++
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
