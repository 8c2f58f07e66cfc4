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
	quads      quads  // the west tables of the chunk (north-west, south-west)
	needN      []bool // north row sets of the chunk (bits from row 0)
	needS      []bool // south row sets, as the north-west rows they mirror
	want       []bool // a walk's row prefixes (see quarterWalk)
	chunk      []leanSet
	walkN      []quadPlacement
	walkS      []quadPlacement
	chunkSizes uint64
}

// leanSet is a canonical row set of a chunk with its number of images.
type leanSet struct {
	e    uint32
	mult uint64
}

// countLean is Count for a unit of a lean plan: its canonical row sets in
// chunks, each counted on tables built for its own rows.
func (jc *JoinCounter) countLean(u joinUnit) uint64 {
	p := jc.p
	n, h := p.N, p.N/2
	cfg := &p.cfgs[u.cfg]
	ls := &jc.lean
	if ls.needN == nil {
		ls.needN, ls.needS, ls.want = make([]bool, 1<<h), make([]bool, 1<<h), make([]bool, 2<<h)
	}
	rev := func(x uint32) uint32 { return bits.Reverse32(x) >> (32 - h) }
	var total uint64
	comb := unrankComb(u.lo, cfg.k)
	for r := u.lo; r < u.hi; {
		ls.chunk = ls.chunk[:0]
		clear(ls.needN)
		clear(ls.needS)
		var size uint64
		for ; r < u.hi; r, comb = r+1, nextComb(comb) {
			e := cfg.stretch(comb)
			ok, mult := cfg.canonical(n, e)
			if !ok {
				continue
			}
			w := cfg.freeRows &^ e
			keys := [4]uint32{e & (1<<h - 1), w & (1<<h - 1), rev(e >> (n - h)), rev(w >> (n - h))}
			var add uint64
			for k, key := range keys {
				if need := ls.need(k); !need[key] && (k != 1 || key != keys[0]) && (k != 3 || key != keys[2]) {
					add += uint64(p.lean.sizes[key])
				}
			}
			if len(ls.chunk) > 0 && size+add > p.lean.budget {
				break // the next chunk's first row set
			}
			for k, key := range keys {
				ls.need(k)[key] = true
			}
			size += add
			ls.chunk = append(ls.chunk, leanSet{e, mult})
		}
		jc.buildLean()
		for _, s := range ls.chunk {
			total += jc.countSet(u.cfg, s.e, s.mult)
		}
	}
	return total
}

// need returns the row sets of quarter k of a row set's keys: north for
// 0 and 1, south for 2 and 3.
func (ls *leanState) need(k int) []bool {
	if k < 2 {
		return ls.needN
	}
	return ls.needS
}

// buildLean builds the counter's west tables for the row sets of its
// chunk, and drops its filtered views of the last ones.
func (jc *JoinCounter) buildLean() {
	n, h := jc.p.N, jc.p.N/2
	ls := &jc.lean
	ls.walkN = ls.walk(n, ls.needN, ls.walkN)
	ls.walkS = ls.walk(n, ls.needS, ls.walkS)
	ls.quads = quads{0: newQuadTable(quarter{n, h, 0, 0}, ls.walkN), 2: newQuadTable(quarter{n, h, n - h, 0}, ls.walkS)}
	jc.viewCfg = 0
}

// walk returns in dst the north-west quarter's placements on the row sets
// need holds.
func (ls *leanState) walk(n int, need []bool, dst []quadPlacement) []quadPlacement {
	h := n / 2
	clear(ls.want)
	for s, ok := range need {
		if ok {
			for i := range h + 1 {
				ls.want[1<<i|s&(1<<i-1)] = true
			}
		}
	}
	w := quarterWalk{q: quarter{n, h, 0, 0}, out: dst[:0], store: true, want: ls.want}
	w.rec(0, 0, 0, 0, 0)
	return w.out
}
