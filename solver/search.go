package solver

// count is the hot loop: it counts the completions of the free rows
// start..k-1 given the search queens' columns cm and diagonals l, r (as
// seen from free row start). It is a bitmask backtracker with the current
// row's masks in registers and an explicit stack of fixed-size arrays for
// the rows above (no allocation, no store-to-load round trip per node).
// The last three free rows are not searched level by level: only three
// columns are left for them, so lastThree counts the at most six ways to
// finish directly, without a stack level of their own. (Finishing the last
// three rows rather than two saves about 10% at N=16 and N=17 when built
// with GOAMD64=v3, 2-3% with the default v1.)
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
		s, nd := lastTwo(all&^cm, l, r, bd.fx[start], bd.sh[start]&31, bd.fx[start+1])
		return uint64(s), uint64(nd)
	case start == k-3:
		fin := bd.finish()
		s, nd := lastThree(all&^cm, l, r, &fin)
		return uint64(s), uint64(nd)
	}
	var sa, sc, sl, sr [MaxN + 1]uint32
	l3 := k - 3 // the level whose completions are counted directly
	fin := bd.finish()
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
		if i+1 == l3 {
			s3, n3 := lastThree(all&^ncm, nl, nr, &fin)
			sols += uint64(s3)
			nodes += uint64(n3)
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

// lastTwo counts the ways to finish the last two free rows with the two
// columns f left (lo and hi, one in each row, in either order), given the
// diagonals l, r and the frame's squares fx seen from the second-to-last
// row, s rows above the last one, whose frame squares are fxl. It also
// returns the nodes: the placements in the second-to-last row. The two
// queens attack each other in either order exactly when their columns are
// s apart.
func lastTwo(f, l, r, fx, s, fxl uint32) (sols, nodes uint32) {
	lo := f & -f
	hi := f ^ lo
	up := f &^ (l | r | fx)                  // fit the second-to-last row
	down := f &^ ((l << s) | (r >> s) | fxl) // fit the last row
	apart := nz((lo << s) ^ hi)
	fitLo, fitHi := nz(up&lo), nz(up&hi)
	return -apart & (fitLo&nz(down&hi) + fitHi&nz(down&lo)), fitLo + fitHi
}

// ending describes the last three free rows: the frame's squares in each
// and the row distances between them.
type ending struct {
	fx3, fx2, fx1 uint32 // frame squares in rows k-3, k-2, k-1
	s3, s2        uint32 // distances from row k-3 to k-2 and from k-2 to k-1
}

// finish returns the ending of bd's free rows (k >= 3).
func (bd *board) finish() ending {
	k := bd.k
	return ending{
		fx3: bd.fx[(k-3)&31], fx2: bd.fx[(k-2)&31], fx1: bd.fx[(k-1)&31],
		s3: bd.sh[(k-3)&31] & 31, s2: bd.sh[(k-2)&31] & 31,
	}
}

// lastThree counts the ways to finish the last three free rows with the
// three columns f left, given the diagonals l, r seen from row k-3. It also
// returns the nodes: the placements in rows k-3 and k-2. It loops over the
// queen x of row k-3 and finishes the other two rows as lastTwo does, with
// what the rows above k-3 attack in rows k-2 and k-1 worked out once.
func lastThree(f, l, r uint32, e *ending) (sols, nodes uint32) {
	a := f &^ (l | r | e.fx3)
	if a == 0 {
		return 0, 0
	}
	s3, s2 := e.s3, e.s2
	t := (s3 + s2) & 31
	l1, r1 := l<<s3, r>>s3
	up := f &^ (l1 | r1 | e.fx2)                   // fit row k-2, as far as the rows above k-3 say
	down := f &^ ((l1 << s2) | (r1 >> s2) | e.fx1) // fit row k-1, likewise
	for a != 0 {
		x := a & -a
		a ^= x
		g := f ^ x
		lo := g & -g
		hi := g ^ lo
		upX := up &^ ((x << s3) | (x >> s3))
		downX := down &^ ((x << t) | (x >> t))
		fitLo, fitHi := nz(upX&lo), nz(upX&hi)
		nodes += 1 + fitLo + fitHi
		sols += -nz((lo<<s2)^hi) & (fitLo&nz(downX&hi) + fitHi&nz(downX&lo))
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
