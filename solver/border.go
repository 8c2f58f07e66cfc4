package solver

import (
	"fmt"
	"slices"
)

// Counting works on border placements, the Q27 / NQueensFAF idea: every
// solution has exactly one queen in each of the four border lines (row 0,
// row n-1, column 0, column n-1), and the 8 symmetries of the board map
// border lines to border lines. A border placement ("frame") is
//
//	[a, b, c, d] = [column of the queen in row 0, column of the queen in
//	               row n-1, row of the queen in column 0, row of the queen
//	               in column n-1]
//
// (a corner queen is shared by a row and a column). Only canonical frames,
// the smallest of their 8 images in the order of sigKey, are searched: a frame
// whose orbit has size |O| stands for |O| frames, so its solutions weigh
// |O| in the total. Most frames have no symmetry (|O| = 8) and each of
// their solutions is a fundamental solution of its own; for the few frames
// that a subgroup H of the symmetries fixes, a solution counts as
// fundamental when it is the smallest of its images under H.
//
// A task fixes a, c and d (three queens placed before the search) and
// leaves b to the search: the last row only accepts the columns b that
// complete a canonical frame. With the border constrained from the start,
// the search at N=15 visits 28.6M nodes where the plain mirror-halved
// backtracker visits 91.9M. Placing b first as well repeats the upper
// rows' search for every b (51.5M nodes); leaving d to the search too
// loses its pruning (40.3M with the (a, c, d, b) order).

// frame is a canonical border placement with what the search needs.
type frame struct {
	sig    [4]int // a, b, c, d
	orbit  uint64 // number of distinct images: the weight of its solutions
	stab   uint8  // bit g set when symmetry g fixes the frame (bit 0 always)
	queens [4][2]int
	nq     int // distinct queens in queens
}

// transform maps square (r, c) of an n-board by symmetry g (0 identity,
// 1..3 rotations by 90, 180, 270 degrees, 4 column mirror, 5 row mirror,
// 6 transpose, 7 anti-transpose).
func transform(g, m, r, c int) (int, int) {
	switch g {
	case 1:
		return c, m - r
	case 2:
		return m - r, m - c
	case 3:
		return m - c, r
	case 4:
		return r, m - c
	case 5:
		return m - r, c
	case 6:
		return c, r
	case 7:
		return m - c, m - r
	}
	return r, c
}

// frameQueens returns the distinct queens of signature s on an n-board, or
// ok=false when the signature is inconsistent or two of its queens attack
// each other.
func frameQueens(n int, s [4]int) (q [4][2]int, nq int, ok bool) {
	m := n - 1
	a, b, c, d := s[0], s[1], s[2], s[3]
	for _, v := range s {
		if v < 0 || v > m {
			return q, 0, false
		}
	}
	// A corner queen belongs to a row and a column at once.
	if (a == 0) != (c == 0) || (a == m) != (d == 0) || (b == 0) != (c == m) || (b == m) != (d == m) {
		return q, 0, false
	}
	pts := [4][2]int{{0, a}, {m, b}, {c, 0}, {d, m}}
	return distinctQueens(pts[:])
}

// distinctQueens collects the distinct queens of pts (a corner queen may be
// named twice, once by its row and once by its column), or ok=false when two
// of them attack each other.
func distinctQueens(pts [][2]int) (q [4][2]int, nq int, ok bool) {
	for _, p := range pts {
		if slices.Contains(q[:nq], p) {
			continue
		}
		for _, o := range q[:nq] {
			dr, dc := o[0]-p[0], o[1]-p[1]
			if dr == 0 || dc == 0 || dr == dc || dr == -dc {
				return q, 0, false
			}
		}
		q[nq] = p
		nq++
	}
	return q, nq, true
}

// imageSig returns the signature of the image of queens q under g.
func imageSig(g, m int, q [4][2]int, nq int) [4]int {
	var s [4]int
	for i := 0; i < nq; i++ {
		r, c := transform(g, m, q[i][0], q[i][1])
		if r == 0 {
			s[0] = c
		}
		if r == m {
			s[1] = c
		}
		if c == 0 {
			s[2] = r
		}
		if c == m {
			s[3] = r
		}
	}
	return s
}

// lessSig orders signatures by sigKey: the canonical frame is the smallest
// of its images in this order. Any order works for correctness; b comes
// last so that a task can fix a, c and d and leave the last row's queen b
// to the search.
func lessSig(x, y [4]int) bool {
	kx, ky := sigKey(x), sigKey(y)
	for i := range kx {
		if kx[i] != ky[i] {
			return kx[i] < ky[i]
		}
	}
	return false
}

// sigKey is the order in which frames compete to be canonical. Of the
// orders tried, the one that prefers the side queens (rows c and d) low on
// the board visits the fewest nodes: N=15 28.6M, against 35.8M for plain
// (a, c, d, b) and 48.9M when they are high.
func sigKey(s [4]int) [5]int {
	a, b, c, d := s[0], s[1], s[2], s[3]
	return [5]int{-max(c, d), -min(c, d), a, c, b}
}

// makeFrame checks signature s and returns its frame if it is valid and
// canonical.
func makeFrame(n int, s [4]int) (frame, bool) {
	q, nq, ok := frameQueens(n, s)
	if !ok {
		return frame{}, false
	}
	f := frame{sig: s, queens: q, nq: nq}
	var seen [8][4]int
	distinct := 0
	for g := 0; g < 8; g++ {
		img := imageSig(g, n-1, q, nq)
		if lessSig(img, s) {
			return frame{}, false
		}
		if img == s {
			f.stab |= 1 << g
		}
		dup := false
		for i := 0; i < distinct; i++ {
			if seen[i] == img {
				dup = true
				break
			}
		}
		if !dup {
			seen[distinct] = img
			distinct++
		}
	}
	f.orbit = uint64(distinct)
	return f, true
}

// triples calls fn with every (a, c, d) of an n-board, starting with
// prefix (at most 3 values), in lexicographic order, for which some b
// makes (a, b, c, d) a canonical frame, until fn returns false.
func triples(n int, prefix []int, fn func(a, c, d int) bool) {
	var lo, hi [3]int
	for i := range lo {
		lo[i], hi[i] = 0, n-1
		if i < len(prefix) {
			lo[i], hi[i] = prefix[i], prefix[i]
		}
	}
	for a := lo[0]; a <= hi[0]; a++ {
		for c := lo[1]; c <= hi[1]; c++ {
			for d := lo[2]; d <= hi[2]; d++ {
				if memoFramesOf(n, a, c, d).canon != 0 && !fn(a, c, d) {
					return
				}
			}
		}
	}
}

// board is the inner search of one frame: the rows not in the frame
// ("free rows") in order, with the columns and diagonals the frame's
// queens attack in each, and the row distance to the next free row.
type board struct {
	n    int
	all  uint32
	k    int              // free rows
	rows [MaxN]int        // free row numbers
	fx   [MaxN + 1]uint32 // per free row: squares attacked by the frame
	sh   [MaxN + 1]uint32 // per free row: distance to the next free row
	// The frame's diagonals, as count carries them in its own masks: fl
	// and fr hold the frame squares of free row i on the diagonals that
	// move right-to-left (like l) and left-to-right (like r) from row to
	// row; il and ir the squares of free row i+1 that the diagonals of
	// row i do not carry there (a diagonal that enters the board, or the
	// queen of a frame row in between starting one).
	fl, fr, il, ir [MaxN + 1]uint32
	fcols          uint32 // the columns of the frame's queens
	frame          frame
}

// init prepares the search of the rows of an n-board that hold none of
// the queens of f (only f.queens and f.nq are read).
func (bd *board) init(n int, f frame) {
	*bd = board{n: n, frame: f}
	bd.all = uint32(1)<<n - 1
	if n == 32 {
		bd.all = ^uint32(0)
	}
	inFrame := func(r int) bool {
		for i := 0; i < f.nq; i++ {
			if f.queens[i][0] == r {
				return true
			}
		}
		return false
	}
	for i := 0; i < f.nq; i++ {
		bd.fcols |= 1 << f.queens[i][1]
	}
	for r := 0; r < n; r++ {
		if inFrame(r) {
			continue
		}
		var m, ml, mr uint32
		for i := 0; i < f.nq; i++ {
			qr, qc := f.queens[i][0], f.queens[i][1]
			m |= 1 << qc
			dist := r - qr
			if c := qc + dist; c >= 0 && c < n {
				ml |= 1 << c
			}
			if c := qc - dist; c >= 0 && c < n {
				mr |= 1 << c
			}
		}
		bd.rows[bd.k] = r
		bd.fx[bd.k] = m | ml | mr
		bd.fl[bd.k], bd.fr[bd.k] = ml, mr
		bd.k++
	}
	for i := 0; i+1 < bd.k; i++ {
		s := uint32(bd.rows[i+1] - bd.rows[i])
		bd.sh[i] = s
		bd.il[i] = bd.fl[i+1] &^ (bd.fl[i] << s)
		bd.ir[i] = bd.fr[i+1] &^ (bd.fr[i] >> s)
	}
}

// countFrameTask counts the solutions of frame f whose first free rows
// hold the queens of extra (already checked against the frame without its
// last-row queen: if that queen attacks them, there is nothing to count).
func countFrameTask(n int, f frame, extra []int, unique bool) Counts {
	var bd board
	bd.init(n, f)
	cm, l, r, err := bd.place(extra)
	if err != nil {
		return Counts{}
	}
	symmetric := f.stab != 1 && unique
	if symmetric && (len(extra) > 0 || !rotational(f.stab)) {
		// Burnside (fixed.go) needs the whole frame: a part of it (extra)
		// has its solutions' images in other parts.
		sols, uniq, nodes := bd.countSym(extra)
		return Counts{Total: sols * f.orbit, Unique: uniq, Nodes: nodes}
	}
	sols, nodes := bd.count(len(extra), cm, l, r)
	uniq := sols
	if symmetric { // a whole frame that rotations keep in place
		uniq = burnsideUnique(n, f, sols)
	}
	return Counts{Total: sols * f.orbit, Unique: uniq, Nodes: nodes}
}

// place puts the queens of extra in the first free rows and returns the
// masks the search continues from.
func (bd *board) place(extra []int) (cm, l, r uint32, err error) {
	if len(extra) > bd.k {
		return 0, 0, 0, fmt.Errorf("%d extra rows, but only %d rows are free", len(extra), bd.k)
	}
	for i, col := range extra {
		if col < 0 || col >= bd.n {
			return 0, 0, 0, fmt.Errorf("column %d out of range 0..%d", col, bd.n-1)
		}
		b := uint32(1) << col
		if (cm|l|r|bd.fx[i])&b != 0 {
			return 0, 0, 0, fmt.Errorf("queen at row %d column %d is attacked", bd.rows[i], col)
		}
		cm, l, r = cm|b, (l|b)<<bd.sh[i], (r|b)>>bd.sh[i]
	}
	return cm, l, r, nil
}

// countTriple counts every canonical frame (a, b, c, d) with the given a,
// c, d whose first free rows hold extra. The queen b of the last row is
// left to the search when the frame has no symmetry: the last row then
// only accepts the columns b of such canonical frames. Symmetric frames,
// and frames whose last row is already taken by c or d, are counted one
// by one.
func countTriple(n, a, c, d int, extra []int, unique bool) (Counts, error) {
	q, nq, ok := tripleQueens(n, a, c, d)
	if !ok {
		return Counts{}, fmt.Errorf("border placement (%d, %d, %d) of n=%d is not valid", a, c, d, n)
	}
	var bd board
	bd.init(n, frame{queens: q, nq: nq})
	cm, l, r, err := bd.place(extra)
	if err != nil {
		return Counts{}, err
	}
	if len(extra) >= bd.k && bd.k > 0 {
		return Counts{}, fmt.Errorf("%d extra rows leave no row free for the search", len(extra))
	}
	tf := memoFramesOf(n, a, c, d)
	if tf.canon == 0 {
		return Counts{}, fmt.Errorf("no canonical border placement of n=%d has (a, c, d) = (%d, %d, %d)", n, a, c, d)
	}
	var sum Counts
	for _, f := range tf.each {
		if sum, err = sum.Add(countFrameTask(n, f, extra, unique)); err != nil {
			return Counts{}, err
		}
	}
	lazy := tf.lazy // columns b left to the search
	if lazy == 0 {
		return sum, nil
	}
	bd.fx[bd.k-1] |= bd.all &^ lazy // row n-1 is the last free row
	sols, nodes := bd.count(len(extra), cm, l, r)
	return sum.Add(Counts{Total: 8 * sols, Unique: sols, Nodes: nodes})
}

// tripleQueens returns the distinct queens (0, a), (c, 0), (d, n-1), or
// ok=false if they are inconsistent or attack each other.
func tripleQueens(n, a, c, d int) (q [4][2]int, nq int, ok bool) {
	m := n - 1
	if a < 0 || a > m || c < 0 || c > m || d < 0 || d > m || (a == 0) != (c == 0) || (a == m) != (d == 0) {
		return q, 0, false
	}
	pts := [3][2]int{{0, a}, {c, 0}, {d, m}}
	return distinctQueens(pts[:])
}
