package solver

import (
	"cmp"
	"fmt"
	"math/bits"
	"slices"
)

// A join unit's count can be checked by a second algorithm: a bitmask
// backtracker that places one queen a row, each row's queen confined to
// the half of the board that the unit's row sets give it (the east half
// for the rows of a row set, the west half for the others), the fixed
// queens of the unit's configuration in their rows. It finds every
// solution whose east rows are one of the unit's canonical row sets and
// weights each as the join does: by the configuration's orbit, and by the
// row set's mirror images. On mirrored configurations the join pairs the
// long diagonals' queens by their reflections (JoinCounter.diagPairs): the
// backtracker files each solution by how many long-diagonal queens each
// half holds and applies the same weights, so the two agree unit by unit,
// not only in total. It needs no quarter tables: a few KB whatever the
// board, at the backtracker's speed (docs/engine.md).

// joinRowSet is a canonical row set of a unit with what the join weights
// its solutions by: wt[3*east+west] for a solution whose east half holds
// east queens on the board's two long diagonals and whose west half holds
// west of them.
type joinRowSet struct {
	e   uint32
	wt  [9]uint64
	cnt [9]uint64 // solutions found, by class
}

// joinCheck is the state of the backtracker for one unit.
type joinCheck struct {
	n        int
	side     [2]uint32  // free columns of the west and the east half
	fixed    [32]uint32 // the column bit of a fixed queen's row, 0 for a free row
	long     [32]uint32 // columns of row r on a long diagonal
	sets     []joinRowSet
	mirrored bool // long-diagonal classes matter (the join's diagPairs)
	nodes    uint64
}

// JoinTaskBacktrack counts task t of the KindJoin plan of an n-board with
// the backtracker instead of the join: the same number as CountJoinTask
// by another algorithm, for verification. It holds no tables. Nodes is
// the number of queens it placed.
func JoinTaskBacktrack(n int, t Task) (Counts, error) {
	if n < 1 || n > joinMaxN {
		return Counts{}, fmt.Errorf("board size %d out of range: the join engine counts n = 1..%d", n, joinMaxN)
	}
	if len(t.Prefix) != 1 || t.Prefix[0] != t.Index {
		return Counts{}, fmt.Errorf("join task %d: prefix %v is not [%d]", t.Index, t.Prefix, t.Index)
	}
	if n == 1 {
		if t.Index != 0 {
			return Counts{}, fmt.Errorf("join task %d out of range 0..0", t.Index)
		}
		return Counts{Total: 1, Nodes: 1}, nil
	}
	cfgs, units := joinLayout(n, DefaultJoinTasks)
	if t.Index < 0 || t.Index >= len(units) {
		return Counts{}, fmt.Errorf("join task %d out of range 0..%d", t.Index, len(units)-1)
	}
	total, nodes := backtrackUnit(n, &cfgs[units[t.Index].cfg], units[t.Index])
	return Counts{Total: total, Nodes: nodes}, nil
}

// backtrackUnit returns unit u's count and the queens placed to find it.
func backtrackUnit(n int, cfg *joinConfig, u joinUnit) (uint64, uint64) {
	if cfg.k == 0 {
		return 0, 0 // n = 2, 3: no east column left
	}
	c := joinCheck{n: n, side: [2]uint32{cfg.west, cfg.east}, mirrored: cfg.rowSym}
	c.sets = unitRowSets(n, cfg, u)
	if len(c.sets) == 0 {
		return 0, 0
	}
	for r := range n {
		c.long[r] = 1<<r | 1<<(n-1-r)
	}
	// The fixed queens: the middle row's outside the middle column, the
	// middle column's outside the middle row, or the centre.
	h := n / 2
	if n%2 == 1 {
		allRows := uint32(1)<<n - 1
		for r := range n {
			if cfg.freeRows>>r&1 == 0 && r != h {
				c.fixed[r] = 1 << h // the middle column's queen
			}
		}
		mid := allRows &^ (cfg.west | cfg.east) &^ (1 << h) // the middle row's queen's column
		if mid == 0 {
			mid = 1 << h // the centre
		}
		c.fixed[h] = mid
	}
	c.rec(n-1, 0, 0, 0, 0, 0, len(c.sets))
	var total uint64
	for i := range c.sets {
		s := &c.sets[i]
		for k, w := range s.wt {
			total += w * s.cnt[k]
		}
	}
	return total, c.nodes
}

// unitRowSets returns the canonical row sets of unit u with their weights,
// in increasing order: the order of rec, which places the queens from the
// last row up, as a unit's row sets (consecutive in colex order) share
// their last rows and differ in the first. From row 0 down, every unit
// would walk the first rows' placements again: 40 times the nodes at N=16.
func unitRowSets(n int, cfg *joinConfig, u joinUnit) []joinRowSet {
	var sets []joinRowSet
	comb := unrankComb(u.lo, cfg.k)
	for r := u.lo; r < u.hi; r, comb = r+1, nextComb(comb) {
		e := cfg.stretch(comb)
		ok, orbit := cfg.canonical(n, e)
		if !ok {
			continue
		}
		s := joinRowSet{e: e}
		if !cfg.rowSym {
			s.wt = [9]uint64{0: cfg.weight * orbit}
		} else {
			// As diagPairs: east halves without long-diagonal queens
			// against every west half, weighted 1, 2, 4 (for pair row
			// sets), and the mirrored roles for the rest of the orbit.
			pair := uint64(2)
			if e == bits.Reverse32(e)>>(32-n) {
				pair = 1
			}
			other := orbit - pair
			s.wt = [9]uint64{0: orbit, 1: 2 * pair, 2: 4 * pair, 3: 2 * other, 6: 4 * other}
			for k := range s.wt {
				s.wt[k] *= cfg.weight
			}
		}
		sets = append(sets, s)
	}
	slices.SortFunc(sets, func(a, b joinRowSet) int { return cmp.Compare(a.e, b.e) })
	return sets
}

// rec places the queen of row r given the columns, diagonals (shifted to
// row r: ld moves left, rd right) and the long-diagonal class cls taken so
// far by rows r+1..n-1, for the row sets sets[lo:hi], which agree on those
// rows.
func (c *joinCheck) rec(r int, cols, ld, rd uint32, cls int, lo, hi int) {
	if r < 0 {
		c.sets[lo].cnt[cls]++ // one row set is left
		return
	}
	taken := cols | ld | rd
	if f := c.fixed[r]; f != 0 {
		if f&taken == 0 {
			c.nodes++
			c.rec(r-1, cols|f, (ld|f)<<1, (rd|f)>>1, cls, lo, hi)
		}
		return
	}
	// sets[lo:mid] put row r's queen west, sets[mid:hi] east.
	mid, top := lo, hi // binary search: the bit rises once in sets[lo:hi]
	for mid < top {
		m := int(uint(mid+top) >> 1)
		if c.sets[m].e>>r&1 == 0 {
			mid = m + 1
		} else {
			top = m
		}
	}
	for side, span := range [2][2]int{{lo, mid}, {mid, hi}} {
		if span[0] == span[1] {
			continue
		}
		step := 1 + 2*side // a long-diagonal queen adds 1 west, 3 east
		for free := c.side[side] &^ taken; free != 0; free &= free - 1 {
			bit := free & -free
			k := cls
			if c.mirrored && bit&c.long[r] != 0 {
				k += step
			}
			c.nodes++
			c.rec(r-1, cols|bit, (ld|bit)<<1, (rd|bit)>>1, k, span[0], span[1])
		}
	}
}

// JoinVerifyMaxN is the largest board whose join units a verification
// recounts with the backtracker (JoinTaskBacktrack); above it a unit is
// recounted by the join again, on another worker. A unit's mean time on
// one core (docs/engine.md): 0.09 s at N=16 (the join's 0.003 s), 0.5 s at
// 17 (0.09 s), 2.6 s at 18 (0.1 s), minutes at 19.
const JoinVerifyMaxN = 18
