package solver

import "math/bits"

// From N=20 the shared quarter tables take hundreds of MB (241 MB at N=20,
// eight times that every two rows), so a plan of such a board builds none:
// each counter builds tables for the row sets of the unit at hand only, a
// chunk of them at a time, each chunk's quarter placements within
// joinLeanEntries. A row set needs four row sets of quarters (its east and
// west rows in the north and the south quarter), and the row sets of a
// unit, consecutive in colex order, share their south rows: a chunk's
// tables hold a small part of the board's. Memory is then bounded by the
// chunk, not the board, for some rebuilding (docs/engine.md).

// joinLeanFromN is the smallest board whose plan builds tables per chunk
// of row sets instead of once.
const joinLeanFromN = 20

// joinLeanEntries bounds the quarter placements of a chunk's tables (40
// bytes each while they are built: a placement and its entry).
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
	quads quads     // the chunk's tables (see buildLean)
	need  [4][]bool // the row sets of each table (bits from row 0 of the north-west quarter)
	want  []bool    // a walk's row prefixes (see quarterWalk)
	chunk []leanSet
	walks [4][]quadPlacement
}

// leanSet is a canonical row set of a chunk with its number of images.
type leanSet struct {
	e    uint32
	mult uint64
}

// countLean is Count for a unit of a lean plan: its canonical row sets in
// chunks, each counted on tables built for its own rows. It asks jc.stop
// before each chunk's tables and each row set (ErrStopped).
func (jc *JoinCounter) countLean(u joinUnit) (uint64, error) {
	p := jc.p
	n, h := p.N, p.N/2
	cfg := &p.cfgs[u.cfg]
	ls := &jc.lean
	if ls.want == nil {
		for k := range ls.need {
			ls.need[k] = make([]bool, 1<<h)
		}
		ls.want = make([]bool, 2<<h)
	}
	rev := func(x uint32) uint32 { return bits.Reverse32(x) >> (32 - h) }
	var total uint64
	comb := unrankComb(u.lo, cfg.k)
	for r := u.lo; r < u.hi; {
		ls.chunk = ls.chunk[:0]
		for k := range ls.need {
			clear(ls.need[k])
		}
		var size uint64
		for ; r < u.hi; r, comb = r+1, nextComb(comb) {
			e := cfg.stretch(comb)
			ok, mult := cfg.canonical(n, e)
			if !ok {
				continue
			}
			w := cfg.freeRows &^ e
			// The tables' row sets as the north-west rows they come from.
			keys := [4]uint32{w & (1<<h - 1), e & (1<<h - 1), rev(w >> (n - h)), rev(e >> (n - h))}
			var add uint64
			for k, key := range keys {
				if !ls.need[k][key] {
					add += uint64(p.lean.sizes[key])
				}
			}
			if len(ls.chunk) > 0 && size+add > p.lean.budget {
				break // the next chunk's first row set
			}
			for k, key := range keys {
				ls.need[k][key] = true
			}
			size += add
			ls.chunk = append(ls.chunk, leanSet{e, mult})
		}
		if !jc.buildLean(cfg) {
			return 0, ErrStopped
		}
		for _, s := range ls.chunk {
			if jc.stopped() {
				return 0, ErrStopped
			}
			total += jc.countSet(u.cfg, s.e, s.mult)
		}
	}
	return total, nil
}

// buildLean builds the counter's tables for the row sets of its chunk of
// configuration cfg: as JoinCounter.tables gives them (west and mirrored
// east, north and south), each for its own rows only and without the
// placements the fixed queens (west) or their mirror images (east) attack.
// It asks jc.stop before each table (a tenth of a second's work at N=20)
// and reports false if told to stop.
func (jc *JoinCounter) buildLean(cfg *joinConfig) bool {
	n, h := jc.p.N, jc.p.N/2
	ls := &jc.lean
	for k := range ls.quads {
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
