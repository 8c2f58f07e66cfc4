package solver

import (
	"fmt"
	"math/bits"
)

// JoinPlan splits a join count of an n-board into units of work: each unit
// is a range of the east row sets of one fixed-queen configuration, in
// colex order. Units are deterministic (the same n and size give the same
// units) and of roughly even size: each covers about the same number of row
// sets, counting those a mirror makes redundant as a quarter.
type JoinPlan struct {
	N     int
	cfgs  []joinConfig
	units []joinUnit
	quads quads     // read-only once built: shared by every counter
	lean  *leanPlan // set when the counters build tables for their row sets instead (joinlean.go)
}

// joinUnit is the row sets of rank lo..hi-1 of configuration cfg.
type joinUnit struct {
	cfg    int
	lo, hi uint64
}

// DefaultJoinTasks is how many units NewJoinPlan makes by default: enough
// for a few dozen threads to share evenly, few enough that each unit
// amortises its setup.
const DefaultJoinTasks = 256

// NewJoinPlan plans a join count of an n-board in about tasks units (at
// least one per fixed-queen configuration; tasks < 1 means
// DefaultJoinTasks).
func NewJoinPlan(n, tasks int) (*JoinPlan, error) {
	if n < 1 || n > joinMaxN {
		return nil, fmt.Errorf("board size %d out of range: the join engine counts n = 1..%d", n, joinMaxN)
	}
	var lean uint64
	if n >= joinLeanFromN {
		lean = joinLeanEntries
	}
	return newJoinPlan(n, tasks, lean)
}

// newJoinPlan is NewJoinPlan with shared tables (lean = 0) or tables built
// per group of row sets of at most lean quarter placements (joinlean.go).
func newJoinPlan(n, tasks int, lean uint64) (*JoinPlan, error) {
	if n < 1 || n > joinMaxN && (n > joinLeanMaxN || lean == 0) {
		return nil, fmt.Errorf("board size %d out of range: the join engine counts n = 1..%d", n, joinMaxN)
	}
	if tasks < 1 {
		tasks = DefaultJoinTasks
	}
	p := &JoinPlan{N: n}
	if n == 1 {
		return p, nil
	}
	p.cfgs, p.units = joinLayout(n, tasks)
	if lean > 0 {
		p.lean = newLeanPlan(n, lean)
	} else {
		p.quads = newQuads(n)
	}
	return p, nil
}

// joinLayout returns the fixed-queen configurations of an n-board (n > 1)
// and its units for about tasks of them: NewJoinPlan's units, without the
// quarter tables.
func joinLayout(n, tasks int) ([]joinConfig, []joinUnit) {
	cfgs := joinConfigs(n)
	// Work per configuration in row sets; a mirrored configuration visits
	// all of its sets but joins about a quarter of them.
	work := make([]float64, len(cfgs))
	var sum float64
	for i, c := range cfgs {
		work[i] = float64(binomial(len(c.free), c.k))
		if c.rowSym {
			work[i] /= 4
		}
		sum += work[i]
	}
	var units []joinUnit
	for i, c := range cfgs {
		sets := binomial(len(c.free), c.k)
		parts := uint64(float64(tasks)*work[i]/sum + 0.5)
		parts = max(1, min(parts, sets))
		for j := range parts {
			units = append(units, joinUnit{cfg: i, lo: sets * j / parts, hi: sets * (j + 1) / parts})
		}
	}
	return cfgs, units
}

// NumTasks returns the number of units of the plan.
func (p *JoinPlan) NumTasks() int {
	if p.N == 1 {
		return 1
	}
	return len(p.units)
}

// CountTask returns the number of solutions that unit i contributes. It
// allocates its tables; a goroutine that counts many units keeps a
// JoinCounter instead.
func (p *JoinPlan) CountTask(i int) (uint64, error) {
	return p.NewCounter().Count(i)
}

// Fundamental returns the number of fundamental solutions of the plan's
// board, given its total (the sum of every unit's count), by Burnside's
// lemma from a search over symmetric boards (see symSearch).
func (p *JoinPlan) Fundamental(total uint64) uint64 {
	return fundamental(p.N, total)
}

// JoinCount counts an n-board's total and fundamental solutions with the
// join engine on one goroutine (Nodes stays zero).
func JoinCount(n int) (Counts, error) {
	p, err := NewJoinPlan(n, 1)
	if err != nil {
		return Counts{}, err
	}
	c := p.NewCounter()
	var total uint64
	for i := range p.NumTasks() {
		t, err := c.Count(i)
		if err != nil {
			return Counts{}, err
		}
		total += t
	}
	return Counts{Total: total, Unique: p.Fundamental(total)}, nil
}

// JoinCounter counts units of one plan, reusing its buffers: counting
// allocates only while the buffers grow to the board's largest row set. It
// is not safe for concurrent use; give each goroutine its own.
type JoinCounter struct {
	p          *JoinPlan
	west, east []uint64
	tab        []uint64 // bit-sliced tables of the east masks, see countSliced
	busy       []uint64 // their transposes, 64 words a group
	wsplit     []uint64 // the west masks filed by diagPairs
	esplit     []uint64
	plain      quads // the plan's west tables, for both halves
	views      quads // the plan's quarter tables filtered for configuration viewCfg-1
	viewCfg    int
	lean       leanState   // a lean plan's tables for the row sets at hand
	stop       func() bool // CountStop's: asked between row sets, nil for Count
}

// NewCounter returns a counter for the units of p.
func (p *JoinPlan) NewCounter() *JoinCounter {
	return &JoinCounter{p: p}
}

// Count returns the number of solutions that unit i contributes.
func (jc *JoinCounter) Count(i int) (uint64, error) {
	jc.stop = nil
	return jc.count(i)
}

// CountStop is Count that can be stopped: stop (if not nil) is asked
// before each row set of the unit and before each table a lean plan's
// counter builds, a few milliseconds of work apart at N=21 (never inside
// the pair loops: at N=24 one row set's pairs can take minutes), and a
// true answer ends the count with ErrStopped. A unit takes minutes from
// N=20, and a worker whose lease ends must not wait for it. Unstopped, it
// returns what Count does.
func (jc *JoinCounter) CountStop(i int, stop func() bool) (uint64, error) {
	jc.stop = stop
	defer func() { jc.stop = nil }()
	return jc.count(i)
}

// stopped reports whether the count at hand should end: its stop
// function said so.
func (jc *JoinCounter) stopped() bool {
	return jc.stop != nil && jc.stop()
}

// count is Count with jc.stop set.
func (jc *JoinCounter) count(i int) (uint64, error) {
	p := jc.p
	if i < 0 || i >= p.NumTasks() {
		return 0, fmt.Errorf("join task %d out of range 0..%d", i, p.NumTasks()-1)
	}
	if p.N == 1 {
		return 1, nil
	}
	u := p.units[i]
	cfg := &p.cfgs[u.cfg]
	if cfg.k == 0 {
		// Only n = 2, 3 have no east column left: one empty row set.
		return 0, nil
	}
	if p.lean != nil {
		return jc.countLean(u)
	}
	var total uint64
	comb := unrankComb(u.lo, cfg.k)
	for r := u.lo; r < u.hi; r, comb = r+1, nextComb(comb) {
		e := cfg.stretch(comb)
		if ok, mult := cfg.canonical(p.N, e); ok {
			if jc.stopped() {
				return 0, ErrStopped
			}
			total += jc.countSet(u.cfg, e, mult)
		}
	}
	return total, nil
}

// countSet returns what row set e of configuration ci contributes, mult
// row sets in all (e and its distinct mirror images).
func (jc *JoinCounter) countSet(ci int, e uint32, mult uint64) uint64 {
	p := jc.p
	cfg := &p.cfgs[ci]
	q, h := jc.tables(ci), p.N/2
	jc.east = jc.eastHalf(q, cfg, e, jc.east[:0])
	if len(jc.east) == 0 {
		return 0
	}
	w := cfg.freeRows &^ e
	jc.west = joinHalf(q[0], q[2], w&(1<<h-1), w>>(p.N-h), cfg.west, jc.west[:0])
	if cfg.rowSym {
		pair := uint64(2) // row sets e and its north-south mirror
		if e == bits.Reverse32(e)>>(32-p.N) {
			pair = 1
		}
		return cfg.weight * jc.diagPairs(mult, pair)
	}
	return cfg.weight * mult * jc.pairs()
}

// eastHalf appends to dst the east half-boards of row set e under
// configuration cfg, from the tables q, and returns dst. There are no east
// tables: the east-west mirror maps an east half-board on rows e to a west
// one on the same rows (with the fixed queens mirrored too: q[1] and q[3]
// are the west tables filtered for them), and its interface to the west
// one's with the anti-diagonal and diagonal fields swapped and reversed,
// which is the whole interface word reversed (see pack).
func (jc *JoinCounter) eastHalf(q *quads, cfg *joinConfig, e uint32, dst []uint64) []uint64 {
	n := jc.p.N
	h := n / 2
	k := len(dst)
	dst = joinHalf(q[1], q[3], e&(1<<h-1), e>>(n-h), cfg.eastKey, dst)
	s := uint(64 - 2*(2*h-1))
	for i, m := range dst[k:] {
		dst[k+i] = bits.Reverse64(m) >> s
	}
	return dst
}

// tables returns the quarter tables for configuration i: north-west,
// mirrored north-east, south-west, mirrored south-east. Without fixed
// queens they are the plan's two west tables; with them, the counter's
// copies of those without the placements that the fixed queens (for the
// west half) or their mirror images (for the east half) attack, made when
// i changes.
func (jc *JoinCounter) tables(i int) *quads {
	cfg := &jc.p.cfgs[i]
	if jc.p.lean != nil {
		return &jc.lean.quads // built for configuration i (buildLean)
	}
	nw, sw := jc.p.quads[0], jc.p.quads[2]
	if cfg.diagA == 0 { // no fixed queens: each would hold an anti-diagonal
		jc.plain = quads{nw, nw, sw, sw}
		return &jc.plain
	}
	if jc.viewCfg != i+1 {
		for q := range jc.views {
			if jc.views[q] == nil {
				jc.views[q] = new(quadTable)
			}
		}
		fixed := fixedBits(jc.p.N, cfg.diagA, cfg.diagC)
		mirrored := fixedBits(jc.p.N, cfg.mirA, cfg.mirC)
		nw.filter(fixed, jc.views[0])
		nw.filter(mirrored, jc.views[1])
		sw.filter(fixed, jc.views[2])
		sw.filter(mirrored, jc.views[3])
		jc.viewCfg = i + 1
	}
	return &jc.views
}

// binomial returns n choose k.
func binomial(n, k int) uint64 {
	if k < 0 || k > n {
		return 0
	}
	r := uint64(1)
	for i := 1; i <= k; i++ {
		r = r * uint64(n-k+i) / uint64(i)
	}
	return r
}

// unrankComb returns the k-subset of rank r in colex order (the order
// nextComb walks) as a bit mask.
func unrankComb(r uint64, k int) uint32 {
	var x uint32
	for i := k; i >= 1; i-- {
		c := i - 1
		for binomial(c+1, i) <= r {
			c++
		}
		x |= 1 << c
		r -= binomial(c, i)
	}
	return x
}

// pack returns the interface of a half-board from its board-wide
// anti-diagonals a (bit r+c) and diagonals d (bit c-r+n-1): the 2h-1
// anti-diagonals r+c = n-h..n+h-2 in bits 0..2h-2, then the 2h-1
// diagonals c-r = -(h-1)..h-1, the ones both halves reach. Two halves fit
// together iff their packs share no bit.
func pack(a, d uint64, n, h int, mA uint64, sD uint) uint64 {
	return (a>>(n-h))&mA | ((d>>(n-h))&mA)<<sD
}

// diagPairs returns what the row set of jc's west and east masks and its
// mirrors contribute, orbit row sets in all, pair of them the row set and
// its north-south mirror. The two long diagonals of the board show in
// every mask (bits h-1 and 3h-2 of the interface). A reflection in one long
// diagonal keeps its queen and sends a queen on the other one to the other
// half of the board: so solutions whose east half holds a long-diagonal
// queen are as many as those whose west half holds it, and the count need
// only pair east halves without long-diagonal queens, weighting each west
// half by 2 for each it holds. Those weights keep their meaning under the
// north-south mirror, so a weighted pair stands for pair row sets; the
// east-west mirror swaps the halves' roles, so the mirrored row sets count
// the west halves without long-diagonal queens against the weighted east
// halves that have them; and pairs with no long-diagonal queen stand for
// the whole orbit. Pairs where both halves hold one are never compared:
// about half of all pairs at N=16.
func (jc *JoinCounter) diagPairs(orbit, pair uint64) uint64 {
	h := jc.p.N / 2
	diag := uint64(1)<<(h-1) | uint64(1)<<(3*h-2)
	w := splitDiag(jc.west, diag, &jc.wsplit)
	e := splitDiag(jc.east, diag, &jc.esplit)
	total := jc.pairsW(e[0], [3][]uint64{w[0], w[1], w[2]}, [3]uint64{orbit, 2 * pair, 4 * pair})
	if other := orbit - pair; other > 0 {
		total += jc.pairsW(w[0], [3][]uint64{e[1], e[2]}, [3]uint64{2 * other, 4 * other})
	}
	return total
}

// splitDiag files masks into buf by how many of the two bits diag they
// hold (none, one, two), in one pass, and returns the three lists.
func splitDiag(masks []uint64, diag uint64, buf *[]uint64) [3][]uint64 {
	n := len(masks)
	if cap(*buf) < 3*n {
		*buf = make([]uint64, 3*n)
	}
	out := (*buf)[:3*n]
	d0 := uint(bits.TrailingZeros64(diag))
	d1 := uint(63 - bits.LeadingZeros64(diag))
	var k [3]int
	for _, m := range masks {
		c := int(m>>d0&1 + m>>d1&1)
		out[c*n+k[c]] = m
		k[c]++
	}
	return [3][]uint64{out[:k[0]], out[n : n+k[1]], out[2*n : 2*n+k[2]]}
}

// pairsW returns the sum over the lists of west of weight times the number
// of its masks' pairs with a mask of east that share no bit.
func (jc *JoinCounter) pairsW(east []uint64, west [3][]uint64, weight [3]uint64) uint64 {
	if len(east) == 0 {
		return 0
	}
	var total uint64
	if len(east) < 16 {
		for i, w := range west {
			if weight[i] != 0 {
				total += weight[i] * countPairs(w, east)
			}
		}
		return total
	}
	return jc.countSliced(west, weight, east)
}

// pairs returns how many (west, east) pairs of jc's masks share no bit.
func (jc *JoinCounter) pairs() uint64 {
	w, e := jc.west, jc.east
	if len(w) < len(e) {
		w, e = e, w
	}
	if len(e) < 16 {
		return countPairs(w, e)
	}
	return jc.countSliced([3][]uint64{w}, [3]uint64{1}, e)
}

// joinFromN is the smallest board on which the join engine counts faster
// than the backtracker on one thread (measured in docs/engine.md); below
// it the quarter tables cost more than the whole backtracking search.
const joinFromN = 15

// PreferJoin reports whether the join engine counts an n-board faster than
// the backtracker, and why, in a few words for a log line.
func PreferJoin(n int) (bool, string) {
	switch {
	case n > joinMaxN:
		return false, fmt.Sprintf("n=%d is beyond the join engine's %d", n, joinMaxN)
	case n < joinFromN:
		return false, fmt.Sprintf("n=%d < %d, where the backtracker is faster", n, joinFromN)
	}
	return true, fmt.Sprintf("n=%d >= %d, where the join engine is faster", n, joinFromN)
}
