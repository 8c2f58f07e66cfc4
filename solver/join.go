package solver

import (
	"fmt"
	"math/bits"
)

// The join engine counts the solutions of a board without backtracking
// through all of it: it splits the columns into a west and an east half,
// chooses which rows put their queen in the east half, builds every
// placement of each half-board for that choice (a small search), and counts
// the pairs of west and east placements whose diagonals do not meet. On odd
// boards the middle row and column first take their one or two queens.
// docs/engine.md describes the method and its costs.

// joinMaxN is the largest board the join engine counts: a half-board's
// diagonals that can meet the other half's fit in 31 bits each, and row sets
// are uint32 masks.
const joinMaxN = 21

// joinConfig is one placement of the fixed queens (none on even boards, the
// middle row's and middle column's on odd ones) with what is left to fill.
type joinConfig struct {
	weight   uint64 // boards the config stands for (its orbit under the 8 symmetries)
	rowSym   bool   // row sets are reduced by the north-south and east-west mirrors
	freeRows uint32 // rows that still need a queen
	west     uint32 // free columns of the west half
	east     uint32 // free columns of the east half
	diagA    uint64 // anti-diagonals (r+c) the fixed queens hold
	diagD    uint64 // diagonals (r-c+n-1) the fixed queens hold
	diagC    uint64 // the same diagonals as bits c-r+n-1
	mirA     uint64 // the anti-diagonals (r+c) of their east-west mirror images
	mirC     uint64 // and their diagonals as bits c-r+n-1
	eastKey  uint32 // east's columns mirrored into the west half (bit n-1-c)
	k        int    // rows that go east: bits.OnesCount32(east)
	free     []int8 // the free rows in increasing order
}

// joinConfigs returns the fixed-queen configurations of an n-board, one per
// orbit of the board's symmetries, with their weights.
func joinConfigs(n int) []joinConfig {
	h := n / 2
	all := uint32(1)<<n - 1
	if n%2 == 0 {
		return []joinConfig{newJoinConfig(n, all, 1, true, nil)}
	}
	// Odd: the middle row's queen sits x columns right of the centre and
	// the middle column's y rows below it. The symmetries map (x, y) to
	// (±x, ±y) and (±y, ±x): the centre is alone, every other pair (x, y
	// nonzero, |x| != |y|) has an orbit of 8 with one member x > y > 0.
	cfgs := []joinConfig{newJoinConfig(n, all&^(1<<h), 1, true, [][2]int{{h, h}})}
	for x := 1; x <= h; x++ {
		for y := 1; y < x; y++ {
			q := [][2]int{{h, h + x}, {h + y, h}}
			cfgs = append(cfgs, newJoinConfig(n, all&^(1<<h|1<<(h+y)), 8, false, q))
		}
	}
	return cfgs
}

func newJoinConfig(n int, freeRows uint32, weight uint64, rowSym bool, fixed [][2]int) joinConfig {
	h := n / 2
	c := joinConfig{weight: weight, rowSym: rowSym, freeRows: freeRows}
	c.west = uint32(1)<<h - 1
	c.east = (uint32(1)<<n - 1) &^ (uint32(1)<<(n-h) - 1)
	for _, q := range fixed {
		c.west &^= 1 << q[1]
		c.east &^= 1 << q[1]
		c.diagA |= 1 << (q[0] + q[1])
		c.diagD |= 1 << (q[0] - q[1] + n - 1)
		c.diagC |= 1 << (q[1] - q[0] + n - 1)
	}
	for _, q := range fixed {
		c.mirA |= 1 << (q[0] + n - 1 - q[1])
		c.mirC |= 1 << (n - 1 - q[1] - q[0] + n - 1)
	}
	for x := c.east; x != 0; x &= x - 1 {
		c.eastKey |= 1 << (n - 1 - bits.TrailingZeros32(x))
	}
	c.k = bits.OnesCount32(c.east)
	for r := range n {
		if freeRows>>r&1 != 0 {
			c.free = append(c.free, int8(r))
		}
	}
	return c
}

// canonical reports whether the east row set e is the smallest of its
// images under the mirrors, and how many distinct images it has.
func (c *joinConfig) canonical(n int, e uint32) (bool, uint64) {
	if !c.rowSym {
		return true, 1
	}
	rev := func(x uint32) uint32 { return bits.Reverse32(x) >> (32 - n) }
	w := c.freeRows &^ e
	imgs := [4]uint32{e, rev(e), w, rev(w)}
	distinct := uint64(0)
	for i, x := range imgs {
		if x < e {
			return false, 0
		}
		seen := false
		for _, y := range imgs[:i] {
			seen = seen || y == x
		}
		if !seen {
			distinct++
		}
	}
	return true, distinct
}

// halfBoards appends to dst the packed masks (see pack) of every placement
// of one queen in each row of rows, in distinct columns of cols, attacking
// neither each other nor the fixed queens, and returns dst: the plain
// recursive reference for JoinCounter.halves.
func (c *joinConfig) halfBoards(n int, rows, cols uint32, dst []uint64) []uint64 {
	h := n / 2
	var d0 uint64
	for r := range n {
		for col := range n {
			if c.diagD>>(r-col+n-1)&1 != 0 {
				d0 |= 1 << (col - r + n - 1)
			}
		}
	}
	var rec func(rows, cols uint32, a, d uint64)
	rec = func(rows, cols uint32, a, d uint64) {
		if rows == 0 {
			dst = append(dst, pack(a^c.diagA, d^d0, n, h, uint64(1)<<(2*h-1)-1, uint(2*h-1)))
			return
		}
		r := bits.TrailingZeros32(rows)
		for avail := cols; avail != 0; avail &= avail - 1 {
			col := bits.TrailingZeros32(avail)
			ba, bd := uint64(1)<<(r+col), uint64(1)<<(col-r+n-1)
			if a&ba != 0 || d&bd != 0 {
				continue
			}
			rec(rows&(rows-1), cols&^(1<<col), a|ba, d|bd)
		}
	}
	rec(rows, cols, c.diagA, d0)
	return dst
}

// countPairs returns how many (w, e) pairs of west and east masks share no
// bit.
func countPairs(west, east []uint64) uint64 {
	var t uint64
	for _, w := range west {
		for _, e := range east {
			if w&e == 0 {
				t++
			}
		}
	}
	return t
}

// joinTotal counts the solutions of an n-board with the join engine's
// plain reference: halfBoards and countPairs on every row set.
func joinTotal(n int) (uint64, error) {
	if n < 1 || n > joinMaxN {
		return 0, fmt.Errorf("board size %d out of range: the join engine counts n = 1..%d", n, joinMaxN)
	}
	if n == 1 {
		return 1, nil
	}
	var total uint64
	var west, east []uint64
	for _, cfg := range joinConfigs(n) {
		f := len(cfg.free)
		for comb := uint32(1)<<cfg.k - 1; comb < 1<<f; comb = nextComb(comb) {
			e := cfg.stretch(comb)
			ok, mult := cfg.canonical(n, e)
			if !ok {
				continue
			}
			east = cfg.halfBoards(n, e, cfg.east, east[:0])
			west = cfg.halfBoards(n, cfg.freeRows&^e, cfg.west, west[:0])
			total += cfg.weight * mult * countPairs(west, east)
			if cfg.k == 0 {
				break
			}
		}
	}
	return total, nil
}

// stretch maps a combination of free-row indices onto the rows themselves.
func (c *joinConfig) stretch(comb uint32) uint32 {
	var e uint32
	for ; comb != 0; comb &= comb - 1 {
		e |= 1 << c.free[bits.TrailingZeros32(comb)]
	}
	return e
}

// nextComb returns the next larger integer with as many one bits as x
// (Gosper's hack); x must be nonzero.
func nextComb(x uint32) uint32 {
	low := x & -x
	ripple := x + low
	return ripple | ((x^ripple)>>2)/low
}
