package solver

import (
	"slices"
	"testing"
)

// TestJoinLeanHalvesBeyond checks a lean counter's half-boards beyond
// joinMaxN, where no count is known and a whole count takes hours: for a
// few row sets of N=21 to 23 (the odd ones with fixed queens whose
// diagonals no longer fit an entry's word at 23), the west and east
// half-boards joined from tables built for that row set alone must be the
// plain search's. Under the race detector only the first row set of
// each configuration, whose half-boards are few.
func TestJoinLeanHalvesBeyond(t *testing.T) {
	for _, n := range []int{21, 22, 23} {
		cfgs, _ := joinLayout(n, 1)
		p := &JoinPlan{N: n, cfgs: cfgs, lean: &leanPlan{budget: joinLeanEntries}}
		jc := p.NewCounter()
		picks := slices.Compact([]int{0, min(1, len(cfgs)-1), len(cfgs) / 2, len(cfgs) - 1})
		for _, ci := range picks {
			cfg := &cfgs[ci]
			ranks := []uint64{0, binomial(len(cfg.free), cfg.k) / 3}
			if raceOn {
				ranks = ranks[:1]
			}
			for _, r := range ranks {
				e := cfg.stretch(unrankComb(r, cfg.k))
				west, east := jc.leanHalves(cfg, e)
				checkHalves(t, n, ci, "west", west, cfg.halfBoards(n, cfg.freeRows&^e, cfg.west, nil))
				checkHalves(t, n, ci, "east", east, cfg.halfBoards(n, e, cfg.east, nil))
			}
		}
	}
}

// leanHalves builds jc's lean tables for row set e of configuration cfg
// alone and returns its west and east half-boards.
func (jc *JoinCounter) leanHalves(cfg *joinConfig, e uint32) (west, east []uint64) {
	n, h := jc.p.N, jc.p.N/2
	ls := &jc.lean
	for k := range ls.need {
		ls.need[k] = make([]bool, 1<<h)
	}
	ls.want = make([]bool, 2<<h)
	ls.n, ls.free = n, cfg.freeRows
	for _, side := range []int{north, south} {
		kw, ke := ls.keys(e, side)
		ls.need[2*side][kw], ls.need[2*side+1][ke] = true, true
		jc.buildLean(cfg, side)
	}
	w := cfg.freeRows &^ e
	q := &ls.quads
	west = joinHalf(q[0], q[2], w&(1<<h-1), w>>(n-h), cfg.west, nil)
	return west, jc.eastHalf(q, cfg, e, nil)
}

func checkHalves(t *testing.T, n, ci int, side string, got, want []uint64) {
	t.Helper()
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("n=%d config %d: %d %s half-boards joined, %d searched", n, ci, len(got), side, len(want))
	}
	t.Logf("n=%d config %d: %d %s half-boards", n, ci, len(got), side)
}
