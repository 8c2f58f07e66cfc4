package solver

import (
	"cmp"
	"math/bits"
	"slices"
)

// From N=20 the shared quarter tables take hundreds of MB (241 MB at N=20,
// eight times that every two rows), so a plan of such a board builds none:
// each counter builds tables for the row sets of the unit at hand only, a
// group of them at a time, each side's quarter placements within half of
// joinLeanEntries. A row set needs four row sets of quarters (its east and
// west rows in the north and the south quarter), and the row sets of a
// unit, consecutive in colex order, share their south rows: a group's
// tables hold a small part of the board's. Memory is then bounded by the
// budget, not the board, for some rebuilding (docs/engine.md).

// joinLeanFromN is the smallest board whose plan builds tables per group
// of row sets instead of once.
const joinLeanFromN = 20

// joinLeanEntries bounds the quarter placements of the tables a counter
// holds at once (40 bytes each while they are built: a placement and its
// entry), half for each side of the row sets (see countLean).
const joinLeanEntries = 1 << 20

// joinLeanMaxN is the largest board a lean plan takes, for measuring its
// memory and time beyond joinMaxN (docs/engine.md): a half-board's
// interface (2(2h-1) bits) fits a word to N=33 and a lean table's entries
// carry no fixedBits, but nothing beyond 21 is checked against known
// counts, so NewJoinPlan refuses it.
const joinLeanMaxN = 24

// leanPlan is what a lean plan keeps instead of tables: how many
// placements the north-west quarter has on each of its row sets.
type leanPlan struct {
	budget uint64
	sizes  []uint32 // placements of the north-west quarter by row set
}

// newLeanPlan counts the north-west quarter's placements by row set (a
// walk that keeps none).
func newLeanPlan(n int, budget uint64) *leanPlan {
	h := n / 2
	lp := &leanPlan{budget: budget, sizes: make([]uint32, 1<<h)}
	w := quarterWalk{q: quarter{n, h, 0, 0}, sizes: lp.sizes}
	w.rec(0, 0, 0, 0, 0)
	return lp
}

// leanState is a counter's tables of a lean plan and their row sets.
type leanState struct {
	quads quads     // the tables at hand (see buildLean)
	need  [4][]bool // the row sets of each table (bits from row 0 of the north-west quarter)
	want  []bool    // a walk's row prefixes (see quarterWalk)
	sets  []leanSet // the unit's canonical row sets
	walks [4][]quadPlacement
	n     int
	free  uint32 // the configuration's free rows
}

// leanSet is a canonical row set of a unit with its number of images.
type leanSet struct {
	e    uint32
	mult uint64
}

// The two sides of a row set: its north rows (the north-west and
// north-east tables, 0 and 1) and its south rows (tables 2 and 3).
const (
	north = 0
	south = 1
)

// countLean is Count for a unit of a lean plan. A row set's two north
// tables depend only on which of its north rows go east (its north
// pattern), its two south tables on its south pattern, so the unit's row
// sets are a matrix of north by south patterns. The counter takes the
// patterns of one side in groups whose tables fit half the budget and
// builds those once; for each group it builds the other side's tables in
// chunks of the other half, and counts each row set once its four tables
// stand. Taken in rank order (colex, the north rows varying fastest) each
// chunk rebuilt nearly every north table: 13 times the unit's placements
// at N=21. It asks jc.stop before each table and each row set
// (ErrStopped).
func (jc *JoinCounter) countLean(u joinUnit) (uint64, error) {
	p := jc.p
	cfg := &p.cfgs[u.cfg]
	ls := &jc.lean
	ls.unitSets(p.N, cfg, u)
	outer, inner := ls.sides(p.lean)
	ls.sortSide(ls.sets, outer)
	var total uint64
	for i := 0; i < len(ls.sets); {
		j := ls.take(ls.sets, i, outer, p.lean)
		if !jc.buildLean(cfg, outer) {
			return 0, ErrStopped
		}
		group := ls.sets[i:j]
		ls.sortSide(group, inner)
		for a := 0; a < len(group); {
			b := ls.take(group, a, inner, p.lean)
			if !jc.buildLean(cfg, inner) {
				return 0, ErrStopped
			}
			for _, s := range group[a:b] {
				if jc.stopped() {
					return 0, ErrStopped
				}
				total += jc.countSet(u.cfg, s.e, s.mult)
			}
			a = b
		}
		i = j
	}
	return total, nil
}

// unitSets fills ls.sets with the canonical row sets of unit u of
// configuration cfg, in rank order.
func (ls *leanState) unitSets(n int, cfg *joinConfig, u joinUnit) {
	h := n / 2
	if ls.want == nil || ls.n != n {
		for k := range ls.need {
			ls.need[k] = make([]bool, 1<<h)
		}
		ls.want = make([]bool, 2<<h)
	}
	ls.n, ls.free, ls.sets = n, cfg.freeRows, ls.sets[:0]
	comb := unrankComb(u.lo, cfg.k)
	for r := u.lo; r < u.hi; r, comb = r+1, nextComb(comb) {
		e := cfg.stretch(comb)
		if ok, mult := cfg.canonical(n, e); ok {
			ls.sets = append(ls.sets, leanSet{e, mult})
		}
	}
}

// pattern returns which rows of side of row set e go east (bits from the
// quarter's first row).
func (ls *leanState) pattern(e uint32, side int) uint32 {
	h := ls.n / 2
	if side == north {
		return e & (1<<h - 1)
	}
	return e >> (ls.n - h)
}

// keys returns the row sets, as north-west rows, of the two tables of side
// that row set e needs: its west rows and its east rows there (a south
// quarter's rows are the north-west's mirrored).
func (ls *leanState) keys(e uint32, side int) (west, east uint32) {
	h := ls.n / 2
	pe, pw := ls.pattern(e, side), ls.pattern(ls.free&^e, side)
	if side == north {
		return pw, pe
	}
	rev := func(x uint32) uint32 { return bits.Reverse32(x) >> (32 - h) }
	return rev(pw), rev(pe)
}

// sides returns the side whose patterns group the unit's row sets (the
// one whose tables hold fewer placements: they are built once) and the
// other, whose tables are built again for each group.
func (ls *leanState) sides(lp *leanPlan) (outer, inner int) {
	var size [2]uint64
	for side := range 2 {
		// need[0] marks the patterns seen here; take clears it before
		// marking the tables it names.
		clear(ls.need[0])
		for _, s := range ls.sets {
			if p := ls.pattern(s.e, side); !ls.need[0][p] {
				ls.need[0][p] = true
				kw, ke := ls.keys(s.e, side)
				size[side] += uint64(lp.sizes[kw]) + uint64(lp.sizes[ke])
			}
		}
	}
	if size[south] < size[north] {
		return south, north
	}
	return north, south
}

// sortSide sorts sets by their pattern on side, patterns of as many east
// rows together, so that a group of patterns meets few of the other
// side's.
func (ls *leanState) sortSide(sets []leanSet, side int) {
	slices.SortStableFunc(sets, func(a, b leanSet) int {
		pa, pb := ls.pattern(a.e, side), ls.pattern(b.e, side)
		return cmp.Or(cmp.Compare(bits.OnesCount32(pa), bits.OnesCount32(pb)), cmp.Compare(pa, pb))
	})
}

// take marks the tables of side that sets[i:] need, a pattern at a time,
// until the next pattern's placements would pass half of lp's budget (at
// least one pattern), and returns where it stopped.
func (ls *leanState) take(sets []leanSet, i, side int, lp *leanPlan) int {
	w, e := 2*side, 2*side+1
	clear(ls.need[w])
	clear(ls.need[e])
	var size uint64
	j := i
	for j < len(sets) {
		kw, ke := ls.keys(sets[j].e, side)
		add := uint64(lp.sizes[kw]) + uint64(lp.sizes[ke])
		if j > i && size+add > lp.budget/2 {
			break
		}
		ls.need[w][kw], ls.need[e][ke] = true, true
		size += add
		p := ls.pattern(sets[j].e, side)
		for j < len(sets) && ls.pattern(sets[j].e, side) == p {
			j++
		}
	}
	return j
}

// buildLean builds the counter's two tables of side for the row sets
// marked in ls.need, of configuration cfg: as JoinCounter.tables gives
// them (west and mirrored east), each for its own rows only and without
// the placements the fixed queens (west) or their mirror images (east)
// attack. It asks jc.stop before each table (a tenth of a second's work
// at N=20) and reports false if told to stop.
func (jc *JoinCounter) buildLean(cfg *joinConfig, side int) bool {
	n, h := jc.p.N, jc.p.N/2
	ls := &jc.lean
	for k := 2 * side; k < 2*side+2; k++ {
		if jc.stopped() {
			return false
		}
		avoidA, avoidC, south := cfg.diagA, cfg.diagC, k >= 2
		if k%2 == 1 {
			avoidA, avoidC = cfg.mirA, cfg.mirC
		}
		ls.walks[k] = ls.walk(n, ls.need[k], avoidA, avoidC, south, ls.walks[k])
		row0 := 0
		if south {
			row0 = n - h
		}
		ls.quads[k] = newQuadTable(quarter{n, h, row0, 0}, ls.walks[k], false)
	}
	return true
}

// walk returns in dst the north-west quarter's placements on the row sets
// need holds that, as a table's entries (mirrored into the south quarter
// if south), share no anti-diagonal of avoidA and no diagonal of avoidC
// (bits c-r+n-1).
func (ls *leanState) walk(n int, need []bool, avoidA, avoidC uint64, south bool, dst []quadPlacement) []quadPlacement {
	h := n / 2
	clear(ls.want)
	for s, ok := range need {
		if ok {
			for i := range h + 1 {
				ls.want[1<<i|s&(1<<i-1)] = true
			}
		}
	}
	w := quarterWalk{q: quarter{n, h, 0, 0}, out: dst[:0], store: true, want: ls.want, avoidA: avoidA, avoidC: avoidC, south: south}
	w.rec(0, 0, 0, 0, 0)
	return w.out
}
