package solver

// Burnside's lemma gives the fundamental count of a whole frame whose
// stabilizer holds rotations: its solutions fall into orbits under the
// stabilizer S, one fundamental solution each, and the number of orbits is
// the mean over S of the solutions each symmetry fixes. The identity fixes
// all of them (the fast loop counts those); a rotation fixes only the
// rotationally symmetric solutions, which are few and are found here by
// placing a queen's whole orbit at once. So a symmetric frame needs the
// fast loop and this small search, not a recording search that compares
// every solution with its images (countSym).

// symBoard is a partial placement for fixedSolutions, copied on each step
// so that going back costs nothing.
type symBoard struct {
	col    [MaxN]int8 // column of the queen in each row, -1 if none
	cols   uint32     // columns taken
	d1, d2 uint64     // diagonals taken: r-c+n-1 and r+c
}

// put places the queen (r, c) on an m+1-board, or reports false if a queen
// already there attacks it; placing the same queen again is a no-op.
func (b *symBoard) put(m, r, c int) bool {
	if b.col[r] == int8(c) {
		return true
	}
	if b.col[r] >= 0 || b.cols>>c&1 != 0 || b.d1>>(r-c+m)&1 != 0 || b.d2>>(r+c)&1 != 0 {
		return false
	}
	b.col[r] = int8(c)
	b.cols |= 1 << c
	b.d1 |= 1 << (r - c + m)
	b.d2 |= 1 << (r + c)
	return true
}

// putOrbit places (r, c) and its images under rotation g (1: 90°, 2: 180°).
func (b *symBoard) putOrbit(g, m, r, c int) bool {
	r0, c0 := r, c
	for {
		if !b.put(m, r, c) {
			return false
		}
		if r, c = transform(g, m, r, c); r == r0 && c == c0 {
			return true
		}
	}
}

// fixedSolutions counts the solutions of frame f on an n-board that
// rotation g (1: 90°, 2: 180°) maps to themselves.
func fixedSolutions(n int, f frame, g int) uint64 {
	m := n - 1
	var b symBoard
	for i := range b.col {
		b.col[i] = -1
	}
	for i := 0; i < f.nq; i++ {
		if !b.putOrbit(g, m, f.queens[i][0], f.queens[i][1]) {
			return 0
		}
	}
	var rec func(b symBoard, r int) uint64
	rec = func(b symBoard, r int) uint64 {
		for r < n && b.col[r] >= 0 {
			r++
		}
		if r == n {
			return 1
		}
		var sols uint64
		for c := 0; c < n; c++ {
			next := b
			if next.putOrbit(g, m, r, c) {
				sols += rec(next, r+1)
			}
		}
		return sols
	}
	return rec(b, 0)
}

// rotational reports whether stabilizer stab is a group of rotations
// larger than the identity: {0°, 180°} or all four.
func rotational(stab uint8) bool { return stab == 0b0101 || stab == 0b1111 }

// burnsideUnique is the fundamental count of a whole frame f with sols
// solutions whose stabilizer is rotational.
func burnsideUnique(n int, f frame, sols uint64) uint64 {
	if f.stab == 0b0101 { // the identity and 180°
		return (sols + fixedSolutions(n, f, 2)) / 2
	}
	// every rotation: 90° and 270° fix the same solutions
	return (sols + fixedSolutions(n, f, 2) + 2*fixedSolutions(n, f, 1)) / 4
}
