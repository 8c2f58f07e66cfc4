package solver

import (
	"cmp"
	"fmt"
	"slices"
)

// Listing every solution of a board costs little more than counting it
// when the same symmetry reduction is used: ListTask searches a KindCount
// task exactly as CountTask does and yields one member of each symmetry
// class (its representative), from which the caller makes the class's 2, 4
// or 8 solutions with the 8 symmetries of the board. The images land in
// every part of the board, so the caller sorts them (the coordinator's
// bucket sort) to list the board in lexicographic order.
//
// The representative of a class is the member the border search meets:
// its border placement is canonical (see frame), and when that placement
// is symmetric, it is the smallest (as a column list) of its images under
// the placement's stabilizer, as in the fundamental count. It is not in
// general the lexicographically smallest member (see Canonical).

// ListTask calls yield with the representative of every symmetry class of
// solutions that KindCount task t of an n-board covers, and returns the
// task's Counts: Unique, as in CountTask, is the number of
// representatives, and Total the number of solutions in their classes
// (see ClassSize). Total may differ from CountTask's task by task, since
// the members of a class with a symmetric border placement can fall in two
// tasks and the class is listed whole by one; over a plan both sum to the
// board's total. The representatives come in ListOrder, increasing. The
// yielded slice (column of the queen in each row, 0-based) is reused: copy
// it to keep it. When yield returns false, ListTask stops and returns the
// counts so far.
func ListTask(n int, t Task, yield func(cols []int) bool) (Counts, error) {
	c, err := listPrefix(n, t.Prefix, yield)
	if err != nil {
		return Counts{}, fmt.Errorf("list task %d: %w", t.Index, err)
	}
	return c, nil
}

func listPrefix(n int, prefix []int, yield func([]int) bool) (Counts, error) {
	if err := checkN(n); err != nil {
		return Counts{}, err
	}
	for i, v := range prefix[:min(len(prefix), frameDepth)] {
		if v < 0 || v >= n {
			return Counts{}, fmt.Errorf("prefix value %d (position %d) out of range 0..%d", v, i, n-1)
		}
	}
	if len(prefix) >= frameDepth {
		c, _, err := listTriple(n, prefix[0], prefix[1], prefix[2], prefix[frameDepth:], yield)
		return c, err
	}
	var sum Counts
	var err error
	matched := false
	triples(n, prefix, func(a, c, d int) bool {
		matched = true
		cnt, stopped, lerr := listTriple(n, a, c, d, nil, yield)
		if lerr != nil {
			err = lerr
			return false
		}
		if sum, err = sum.Add(cnt); err != nil {
			return false
		}
		return !stopped
	})
	if err != nil {
		return Counts{}, err
	}
	if !matched && len(prefix) > 0 {
		return Counts{}, fmt.Errorf("prefix %v: no canonical border placement of n=%d starts with it", prefix, n)
	}
	return sum, nil
}

// listTriple lists the representatives of every canonical frame (a, b, c,
// d) whose first free rows hold extra, in one search: the last row, when
// free, accepts only the columns b of canonical frames, and b then says
// which frame a solution belongs to.
func listTriple(n, a, c, d int, extra []int, yield func([]int) bool) (cnt Counts, stopped bool, err error) {
	m := n - 1
	q, nq, ok := tripleQueens(n, a, c, d)
	if !ok {
		return Counts{}, false, fmt.Errorf("border placement (%d, %d, %d) of n=%d is not valid", a, c, d, n)
	}
	var bd board
	bd.init(n, frame{queens: q, nq: nq})
	cm, l, r, err := bd.place(extra)
	if err != nil {
		return Counts{}, false, err
	}
	if len(extra) >= bd.k && bd.k > 0 {
		return Counts{}, false, fmt.Errorf("%d extra rows leave no row free for the search", len(extra))
	}
	tf := memoFramesOf(n, a, c, d)
	stab, bs := tf.stab, tf.canon
	if bs == 0 {
		return Counts{}, false, fmt.Errorf("no canonical border placement of n=%d has (a, c, d) = (%d, %d, %d)", n, a, c, d)
	}
	if c != m && d != m {
		bd.fx[bd.k-1] |= bd.all &^ bs // row n-1 is the last free row
	} // else a queen of the triple holds row n-1, and bs is its column alone.
	var p [MaxN]int
	for i := range nq {
		p[q[i][0]] = q[i][1]
	}
	for i, col := range extra {
		p[bd.rows[i]] = col
	}
	cols := p[:n]
	nodes, stopped := bd.list(len(extra), cm, l, r, &p, func() bool {
		switch s := stab[p[m]]; {
		case s == 1: // no symmetry: a class of 8, met once
			cnt.Total += 8
		case !minimalUnder(s, cols):
			return true
		default:
			cnt.Total += uint64(ClassSize(cols))
		}
		cnt.Unique++
		return yield(cols)
	})
	cnt.Nodes = nodes
	return cnt, stopped, nil
}

// list is count that records the board: it writes the column of each
// queen it places into p at its row, and calls yield at every solution. It
// returns the nodes visited and whether yield stopped it.
func (bd *board) list(start int, cm, l, r uint32, p *[MaxN]int, yield func() bool) (nodes uint64, stopped bool) {
	k, all := bd.k, bd.all
	cm |= bd.fcols
	if k-start < 3 {
		return bd.listShort(start, cm, l, r, p, yield)
	}
	var sa, sc, sl, sr [MaxN + 1]uint32
	l2 := k - 2 // the level whose two completions are tried directly
	fx2, s2, fxl := bd.fx[l2&31], bd.sh[l2&31]&31, bd.fx[(k-1)&31]
	row2, rowL := bd.rows[l2&31]&31, bd.rows[(k-1)&31]&31
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
			// The two columns left, lo and hi, in either order.
			f := all &^ ncm
			lo := f & -f
			hi := f ^ lo
			av := f &^ (nl | nr | fx2)
			fitLo, fitHi := av&lo, av&hi
			endLo := hi &^ (((nl | lo) << s2) | ((nr | lo) >> s2) | fxl)
			endHi := lo &^ (((nl | hi) << s2) | ((nr | hi) >> s2) | fxl)
			nodes += uint64(nz(fitLo) + nz(fitHi))
			okLo, okHi := nz(fitLo)&nz(endLo), nz(fitHi)&nz(endHi)
			if okLo|okHi == 0 {
				continue
			}
			// The columns of the rows above, from the stack.
			sc[i&31] = cm
			for j := start; j < i; j++ {
				p[bd.rows[j&31]&31] = bitIndex(sc[(j+1)&31] ^ sc[j&31])
			}
			p[bd.rows[i&31]&31] = bitIndex(bit)
			if okLo != 0 {
				p[row2], p[rowL] = bitIndex(lo), bitIndex(hi)
				if !yield() {
					return nodes, true
				}
			}
			if okHi != 0 {
				p[row2], p[rowL] = bitIndex(hi), bitIndex(lo)
				if !yield() {
					return nodes, true
				}
			}
			continue
		}
		na := all &^ (ncm | nl | nr | bd.fx[(i+1)&31])
		if na != 0 {
			sa[i&31], sc[i&31], sl[i&31], sr[i&31] = a, cm, l, r
			i++
			a, cm, l, r = na, ncm, nl, nr
		}
	}
	return nodes, false
}

// listShort is list for at most two free rows left: a plain backtracker.
func (bd *board) listShort(i int, cm, l, r uint32, p *[MaxN]int, yield func() bool) (nodes uint64, stopped bool) {
	if i == bd.k {
		return 0, !yield()
	}
	for a := bd.all &^ (cm | l | r | bd.fx[i]); a != 0; a &= a - 1 {
		bit := a & -a
		nodes++
		p[bd.rows[i]] = bitIndex(bit)
		sub, stop := bd.listShort(i+1, cm|bit, (l|bit)<<bd.sh[i], (r|bit)>>bd.sh[i], p, yield)
		nodes += sub
		if stop {
			return nodes, true
		}
	}
	return nodes, false
}

// ClassSize returns how many distinct solutions the symmetry class of the
// solution cols holds: 8, or 4 when a half turn maps it to itself, or 2
// when a quarter turn does (1 for n=1). No solution of n>1 is symmetric
// under a reflection, so the rotations decide.
func ClassSize(cols []int) int {
	n := len(cols)
	if n <= 1 {
		return 1
	}
	quarter, half := true, true
	for r, c := range cols {
		// A quarter turn moves the queen (r, c) to (c, n-1-r).
		if cols[c] != n-1-r {
			quarter = false
		}
		// A half turn moves it to (n-1-r, n-1-c).
		if cols[n-1-r] != n-1-c {
			half = false
		}
	}
	switch {
	case quarter:
		return 2
	case half:
		return 4
	}
	return 8
}

// ListChecker checks, for a coordinator that does not trust its workers,
// that a stream of solutions is what ListTask yields for one task: each is
// a representative of its class inside the task, and each comes after the
// one before in ListOrder. It checks neither that the stream is complete
// (the counts do that) nor that each is a solution (see Verify).
type ListChecker struct {
	n       int
	prefix  []int
	last    []int // the previous solution; nil before the first
	lastTri [3]int

	// The frames of the triple (a, c, d) last seen.
	tri   [3]int
	valid bool
	rows  [MaxN]int // its free rows, top down
	free  int       // how many
	stab  [MaxN]uint8
}

// NewListChecker returns a checker for KindCount task prefix of an
// n-board.
func NewListChecker(n int, prefix []int) *ListChecker {
	return &ListChecker{n: n, prefix: prefix}
}

// Check checks the next solution of the stream, which must be a solution
// of the n-board.
func (k *ListChecker) Check(cols []int) error {
	n, m := k.n, k.n-1
	if len(cols) != n {
		return fmt.Errorf("%d rows, want %d", len(cols), n)
	}
	tri := triple(cols)
	for i, v := range k.prefix[:min(len(k.prefix), frameDepth)] {
		if tri[i] != v {
			return fmt.Errorf("border placement %v is outside the task %v", tri, k.prefix)
		}
	}
	if !k.valid || tri != k.tri {
		k.setTriple(tri)
	}
	if !k.valid {
		return fmt.Errorf("border placement %v is not valid", tri)
	}
	for i, x := range k.prefix[min(len(k.prefix), frameDepth):] {
		if i >= k.free {
			return fmt.Errorf("task %v fixes more rows than are free", k.prefix)
		}
		if r := k.rows[i]; cols[r] != x {
			return fmt.Errorf("row %d: column %d is outside the task %v", r, cols[r], k.prefix)
		}
	}
	switch s := k.stab[cols[m]]; {
	case s == 0:
		return fmt.Errorf("border placement %v with %d in the last row is not canonical", tri, cols[m])
	case s != 1 && !minimalUnder(s, cols):
		return fmt.Errorf("not the representative of its class")
	}
	if k.last != nil && (tri == k.lastTri && slices.Compare(k.last, cols) >= 0 || cmpTriple(tri, k.lastTri) < 0) {
		return fmt.Errorf("not after the previous solution")
	}
	if k.last == nil {
		k.last = make([]int, n)
	}
	copy(k.last, cols)
	k.lastTri = tri
	return nil
}

func (k *ListChecker) setTriple(tri [3]int) {
	k.tri, k.valid = tri, false
	q, nq, ok := tripleQueens(k.n, tri[0], tri[1], tri[2])
	if !ok {
		return
	}
	var bd board
	bd.init(k.n, frame{queens: q, nq: nq})
	k.rows, k.free = bd.rows, bd.k
	k.stab = memoFramesOf(k.n, tri[0], tri[1], tri[2]).stab
	k.valid = true
}

// ListOrder compares two solutions of one board in the order ListTask
// yields them: by the triple (a, c, d) of their border placements (see
// CountTask), then as column lists. It returns -1, 0 or +1.
func ListOrder(x, y []int) int {
	if c := cmpTriple(triple(x), triple(y)); c != 0 {
		return c
	}
	return slices.Compare(x, y)
}

func cmpTriple(x, y [3]int) int {
	for i := range x {
		if x[i] != y[i] {
			return cmp.Compare(x[i], y[i])
		}
	}
	return 0
}

// triple returns (a, c, d) of solution cols: the column of the first row's
// queen and the rows of the first and last columns' queens.
func triple(cols []int) [3]int {
	t := [3]int{cols[0], -1, -1}
	m := len(cols) - 1
	for r, c := range cols {
		if c == 0 {
			t[1] = r
		}
		if c == m {
			t[2] = r
		}
	}
	return t
}
