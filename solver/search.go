package solver

//go:generate go run gen_nest.go

// count counts the completions of the free rows start..k-1 given the
// search queens' columns cm and diagonals l, r (as seen from free row
// start). The search itself is nest_gen.go's nested loops (see nest);
// count handles the boards of three free rows or fewer and sets the
// loops up.
//
// The frame's diagonals travel in l and r with the search queens' (fl, fr
// from the start row on) and the columns off the board are set in cm, so
// a row's free squares are ^(cm | l | r), with nothing loaded per node.
// Most steps go to the next board row and shift by one; the few odd ones
// (over a frame row, or where a frame diagonal enters the board) shift by
// sh and add il, ir.
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
	var p nest
	end := p.init(bd, start)
	l |= bd.fl[start&31]
	r |= bd.fr[start&31]
	cm |= ^all // the columns off the board are taken: a row's free squares are ^(cm | l | r)
	a := ^(cm | l | r)
	switch {
	case end < 0:
		return tail(a, cm, l, r, p.sLast, &p.fin)
	case end <= maxNest:
		return nestCount(end, a, cm, l, r, &p)
	}
	return p.upper(end, a, cm, l, r)
}

// nest is what the nested loops of nest_gen.go read. The search of the
// free rows above the last four is a plain bitmask backtracker, written
// out by gen_nest.go as one nested loop per level, for each number of
// levels up to maxNest: each level's masks are its own variables, its
// step to the next level its own code (a branch on odd that goes the
// same way at every node of a board), and no index, stack or depth test
// is left at a node. The innermost level places the queen of row k-5
// and then the tail (the last four rows) is written out as tail does.
//
// A queen's bit is added to the masks (cm + bit, l + bit) rather than
// or-ed in: the square is free, so the bit is in none of them and the sum
// is the same, but an add may be a three-operand LEA, and the compiler then
// keeps the bit in a register instead of spilling and reloading it.
//
// Levels are numbered by their distance d from that innermost level (the
// tail's entry): sh[d] is the shift from level d to the next, il[d] and
// ir[d] the frame diagonals that enter there, and bit d of odd is set
// when the step is not a plain shift by one.
type nest struct {
	sh, il, ir [MaxN + 1]uint32
	odd        uint32
	sLast      uint32 // the shift from row k-4 to row k-3
	fin        ending
}

// init fills p for bd's search from free row start (at least four rows
// above the last) and returns the distance from start to the tail's entry
// level, k-5 (negative when start is row k-4).
func (p *nest) init(bd *board, start int) int {
	k := bd.k
	end := k - 5 - start
	p.fin = bd.finish()
	p.sLast = bd.sh[(k-4)&31] & 31
	for d := 0; d <= end; d++ {
		i := (start + end - d) & 31
		p.sh[d], p.il[d], p.ir[d] = bd.sh[i]&31, bd.il[i], bd.ir[i]
		if bd.sh[i] != 1 || bd.il[i] != 0 || bd.ir[i] != 0 {
			p.odd |= 1 << d
		}
	}
	return end
}

// upper places the queens of level d >= 1 and hands each child to the
// nested loop of level d-1, or to upper again above maxNest. Only the
// searches of boards beyond N=20 or so have levels above maxNest, and
// those levels hold few of the nodes, so a call per node costs little.
func (p *nest) upper(d int, a, cm, l, r uint32) (sols, nodes uint64) {
	s, il, ir := p.sh[d&31]&31, p.il[d&31], p.ir[d&31]
	for a != 0 {
		bit := a & -a
		a &= a - 1
		nodes++
		ncm, nl, nr := cm|bit, (l|bit)<<s|il, (r|bit)>>s|ir
		var sl, nd uint64
		if d-1 <= maxNest {
			sl, nd = nestCount(d-1, ^(ncm | nl | nr), ncm, nl, nr, p)
		} else {
			sl, nd = p.upper(d-1, ^(ncm | nl | nr), ncm, nl, nr)
		}
		sols, nodes = sols+sl, nodes+nd
	}
	return sols, nodes
}

// tail counts the completions of the last four free rows: a holds the
// free squares of the first of them, cm, l, r the masks there (cm with
// the columns off the board set), s the distance to the next free row.
// It places each queen of a and finishes the last three rows as
// lastThree does, written out (this is one of the specialised loops). A
// queen that leaves one of the last three rows with no square is dropped
// before that loop (the nodes counted are the placements made, so this
// skip makes them fewer than a plain backtracker's). The nested loops of
// nest_gen.go end with the same code.
func tail(a, cm, l, r, s uint32, fin *ending) (sols, nodes uint64) {
	s3, s2 := fin.s3, fin.s2
	t := (s3 + s2) & 31
	for a != 0 {
		bit := a & -a
		a ^= bit
		nodes++
		f := ^(cm | bit)
		nl, nr := (l|bit)<<(s&31), (r|bit)>>(s&31)
		x3 := f &^ (nl | nr | fin.fx3)
		l1, r1 := nl<<(s3&31), nr>>(s3&31)
		up := f &^ (l1 | r1 | fin.fx2)
		down := f &^ ((l1 << (s2 & 31)) | (r1 >> (s2 & 31)) | fin.fx1)
		if nz(x3)&nz(up)&nz(down) == 0 {
			continue // one of the last three rows has no square left
		}
		for x3 != 0 {
			x := x3 & -x3
			x3 ^= x
			g := f ^ x
			lo := g & -g
			hi := g ^ lo
			upX := up &^ ((x << (s3 & 31)) | (x >> (s3 & 31)))
			downX := down &^ ((x << (t & 31)) | (x >> (t & 31)))
			fitLo, fitHi := nz(upX&lo), nz(upX&hi)
			nodes += uint64(1 + fitLo + fitHi)
			sols += uint64(-nz((lo<<(s2&31))^hi) & (fitLo&nz(downX&hi) + fitHi&nz(downX&lo)))
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
