package solver

import (
	"math/bits"
	"slices"
)

// A half-board's placements for a row set are joined from two quarter
// tables: every placement of queens in the north (or south) h rows of the
// half's h columns, at most one a row and a column, filed by which rows and
// columns they use. The half-board for rows R and free columns C is every
// north placement on R's north rows with columns X beside every south
// placement on R's south rows with columns C \ X, whose diagonals do not
// meet. The tables are built once per board and shared, read-only, by every
// counter and fixed-queen configuration: a placement that a fixed queen
// attacks is dropped during the join, by one more bit test.

// joinEnt is a quarter placement as the join uses it. The low h-1 bits of
// each 32-bit half of w hold the anti-diagonals (low) and diagonals (high)
// it shares with the other quarter of its half-board (the seam); above them
// lie the diagonals through the middle row and column, where odd boards'
// fixed queens stand (see fixedBits). m is its interface with the other
// half-board (see pack).
type joinEnt struct{ w, m uint64 }

// quadGroup is the placements of one row set that use one column set: the
// entries from start to the next group's start, filed by their cut key
// (see quadTable.cut): key 0 from start, key y from sub[y-1].
type quadGroup struct {
	cols, start uint32
	sub         [3]uint32
}

// quadTable holds the placements of one quarter of the board, filed by row
// set, then column set, ascending.
type quadTable struct {
	cut    [2]uint // the two seam bits most placements hold: a group's entries are filed by them
	ents   []joinEnt
	grps   []quadGroup // with a sentinel: the end of the last group
	rowGrp []uint32    // groups of row set rk (bits from the quarter's first row): rowGrp[rk]..rowGrp[rk+1]
}

// quarter describes one quarter of an n-board: h rows from row0 and h
// columns from col0.
type quarter struct{ n, h, row0, col0 int }

// placements returns every placement of the quarter: its rows and columns
// (bits from row0 and col0) and its queens' board-wide anti-diagonals (bit
// r+c) and diagonals (bit c-r+n-1). One walk counts them, the next stores
// them, which saves the copies of a growing slice.
func (q quarter) placements() []quadPlacement {
	w := quarterWalk{q: q}
	w.rec(0, 0, 0, 0, 0)
	w.out, w.store = make([]quadPlacement, 0, w.size), true
	w.rec(0, 0, 0, 0, 0)
	return w.out
}

// quarterWalk is the state of quarter.placements: a direct recursion,
// cheaper than a closure's.
type quarterWalk struct {
	q     quarter
	size  int
	out   []quadPlacement
	store bool     // append the placements to out; else count them in size
	sizes []uint32 // if set, count them here by row set instead
	want  []bool   // if set, the walk keeps to rows whose prefix p of i rows has want[1<<i|p]
	// The anti-diagonals (bit r+c) and diagonals (bit c-r+n-1) of the
	// fixed queens that no queen of a placement may share, as a queen of
	// the south quarter's mirror image if south.
	avoidA, avoidC uint64
	south          bool
}

func (w *quarterWalk) rec(i int, rows, cols uint32, a, d uint64) {
	q := &w.q
	if w.want != nil && !w.want[1<<i|rows] {
		return
	}
	if i == q.h {
		switch {
		case w.sizes != nil:
			w.sizes[rows]++
		case w.store:
			w.out = append(w.out, quadPlacement{rows, cols, a, d})
		default:
			w.size++
		}
		return
	}
	w.rec(i+1, rows, cols, a, d) // row i stays empty
	r := q.row0 + i
	for j := range q.h {
		c := q.col0 + j
		ba, bd := uint64(1)<<(r+c), uint64(1)<<(c-r+q.n-1)
		if w.avoidA|w.avoidC != 0 && w.hits(ba, bd) {
			continue
		}
		if cols>>j&1 == 0 && a&ba == 0 && d&bd == 0 {
			w.rec(i+1, rows|1<<i, cols|1<<j, a|ba, d|bd)
		}
	}
}

// hits reports whether a queen on anti-diagonal ba and diagonal bd shares
// a diagonal of w.avoidA or w.avoidC, as the queen of a table the walk
// feeds: a south table mirrors the rows, which swaps the two. Board-wide
// masks, unlike fixedBits, hold every odd board a lean plan takes.
func (w *quarterWalk) hits(ba, bd uint64) bool {
	if w.south {
		ba, bd = bd, ba
	}
	return ba&w.avoidA|bd&w.avoidC != 0
}

// entry returns the join's view of a placement with anti-diagonals a and
// diagonals d, with its fixedBits if fixed (shared tables, which filter
// on them; a lean walk has dropped what the fixed queens attack instead).
func (q quarter) entry(a, d uint64, fixed bool) joinEnt {
	n, h := q.n, q.h
	seam := uint64(1)<<(h-1) - 1
	aShift := n - h + q.col0 // the lowest anti-diagonal both quarters of the half reach
	dShift := q.col0 - h + n // the lowest diagonal (c-r+n-1) both reach
	w := (a>>aShift)&seam | ((d>>dShift)&seam)<<32
	if fixed {
		w |= fixedBits(n, a, d)
	}
	mA := uint64(1)<<(2*h-1) - 1
	return joinEnt{w, pack(a, d, n, h, mA, uint(2*h-1))}
}

// fixedBits returns, for odd n, where queens with anti-diagonals a and
// diagonals d (as in quarter.walk) cross the diagonals through the middle
// row and column (anti-diagonals r+c = n-1-h..n-1+h and diagonals c-r =
// -h..h), in the bits of a joinEnt's w above its seam: a fixed queen, or
// its east-west mirror image, attacks a placement iff their fixedBits
// meet. Even boards have no fixed queens and no such bits. The seam and
// these 2h+1 bits fill 3h of each 32-bit half: they fit to N=21, and only
// the shared tables (to N=19) use them.
func fixedBits(n int, a, d uint64) uint64 {
	if n%2 == 0 {
		return 0
	}
	h := n / 2
	span := uint64(1)<<(2*h+1) - 1
	return (a>>(n-1-h))&span<<(h-1) | (d>>(n-1-h))&span<<(32+h-1)
}

// quadPlacement is a placement of the north-west quarter as walk finds it.
type quadPlacement struct {
	rows, cols uint32
	a, d       uint64
}

// newQuadTable builds the table of quarter q from the placements of the
// north-west quarter, turned into q's by the mirrors that carry one onto
// the other, and filed by (rows, columns); its entries carry their
// fixedBits if fixed. A mirror of
// the rows swaps anti-diagonals and diagonals; a mirror of the columns
// swaps and reverses them.
func newQuadTable(q quarter, nw []quadPlacement, fixed bool) *quadTable {
	h := uint(q.h)
	n := q.n
	south, east := q.row0 != 0, q.col0 != 0
	rev := func(x uint64, w int) uint64 { return bits.Reverse64(x) >> (64 - w) }
	turn := func(p quadPlacement) quadPlacement {
		if south {
			p.rows, p.a, p.d = uint32(rev(uint64(p.rows), int(h))), p.d, p.a
		}
		if east {
			p.cols, p.a, p.d = uint32(rev(uint64(p.cols), int(h))), rev(p.d, 2*n-1), rev(p.a, 2*n-1)
		}
		return p
	}
	keys, order := fileOrder(nw, turn, h)
	t := &quadTable{rowGrp: make([]uint32, 1<<h+1), ents: make([]joinEnt, len(nw))}
	last := ^uint32(0)
	for j, i := range order {
		if k := keys[i]; k != last {
			t.grps = append(t.grps, quadGroup{cols: k & (1<<h - 1), start: uint32(j)})
			t.rowGrp[k>>h+1] = uint32(len(t.grps))
			last = k
		}
		keys[i] = uint32(j) // from here on, where placement i goes
	}
	for i, p := range nw {
		p = turn(p)
		t.ents[keys[i]] = q.entry(p.a, p.d, fixed)
	}
	for rk := 1; rk < len(t.rowGrp); rk++ {
		t.rowGrp[rk] = max(t.rowGrp[rk], t.rowGrp[rk-1])
	}
	t.grps = append(t.grps, quadGroup{start: uint32(len(t.ents))})
	t.cut = mostHeld(t.ents, q.h)
	for gi := range len(t.grps) - 1 {
		t.fileGroup(gi)
	}
	return t
}

// fileOrder returns the keys (rows<<h | columns) of the placements nw,
// turned, and their indices in order of key: two stable counting sorts of
// 2^h keys each, columns then rows. One sort on both needs an array of
// 2^(2h) counts, which a lean plan's tables paid again for every chunk
// (64 MB at N=24).
func fileOrder(nw []quadPlacement, turn func(quadPlacement) quadPlacement, h uint) (keys, order []uint32) {
	keys = make([]uint32, len(nw))
	for i, p := range nw {
		p = turn(p)
		keys[i] = p.rows<<h | p.cols
	}
	return keys, sortPass(keys, sortPass(keys, nil, 0, h), h, h)
}

// sortPass returns the indices of in (of keys if in is nil) stably sorted
// by the h bits of their keys from bit shift.
func sortPass(keys, in []uint32, shift, h uint) []uint32 {
	at := func(j int) uint32 {
		if in == nil {
			return uint32(j)
		}
		return in[j]
	}
	bucket := func(i uint32) uint32 { return keys[i] >> shift & (1<<h - 1) }
	count := make([]uint32, 1<<h+1)
	for j := range keys {
		count[bucket(at(j))+1]++
	}
	for b := 1; b < len(count); b++ {
		count[b] += count[b-1]
	}
	out := make([]uint32, len(keys))
	for j := range keys {
		i := at(j)
		out[count[bucket(i)]] = i
		count[bucket(i)]++
	}
	return out
}

// mostHeld returns the two seam bits (of h-1 anti-diagonals and h-1
// diagonals) that most of ents hold, or bit 31, which no entry holds, for
// want of seam bits.
func mostHeld(ents []joinEnt, h int) [2]uint {
	var cnt [64]int
	for _, e := range ents {
		for x := e.w; x != 0; x &= x - 1 {
			cnt[bits.TrailingZeros64(x)]++
		}
	}
	var cut [2]uint
	for i := range cut {
		best := -1
		for b := range 64 {
			if b%32 < h-1 && (best < 0 || cnt[b] > cnt[best]) {
				best = b
			}
		}
		if best < 0 || cnt[best] < 0 {
			best = 31 // no seam (h = 1): a bit no entry holds
		} else {
			cnt[best] = -1
		}
		cut[i] = uint(best)
	}
	return cut
}

// key returns the cut key of a placement: which of the cut bits it holds.
func (t *quadTable) key(w uint64) int {
	return int(w>>t.cut[0]&1 | (w>>t.cut[1]&1)<<1)
}

// fileGroup sorts the entries of group gi by cut key and sets its sub.
func (t *quadTable) fileGroup(gi int) {
	g := &t.grps[gi]
	ents := t.ents[g.start:t.grps[gi+1].start]
	var n [4]int
	for _, e := range ents {
		n[t.key(e.w)]++
	}
	pos := [4]int{0, n[0], n[0] + n[1], n[0] + n[1] + n[2]}
	for y := 1; y < 4; y++ {
		g.sub[y-1] = g.start + uint32(pos[y])
	}
	// In place, a cycle at a time (the groups are small).
	end := pos
	end[0], end[1], end[2], end[3] = pos[1], pos[2], pos[3], len(ents)
	for y := range 4 {
		for pos[y] < end[y] {
			k := t.key(ents[pos[y]].w)
			if k == y {
				pos[y]++
				continue
			}
			ents[pos[y]], ents[pos[k]] = ents[pos[k]], ents[pos[y]]
			pos[k]++
		}
	}
}

// filter fills v with the placements of t that no fixed queen with
// fixedBits f attacks, filed as in t, and returns v: on odd boards most
// placements meet one of the four diagonals of the fixed queens, so the
// join runs on the few that do not.
func (t *quadTable) filter(f uint64, v *quadTable) *quadTable {
	v.ents, v.grps, v.cut = v.ents[:0], v.grps[:0], t.cut
	v.rowGrp = append(v.rowGrp[:0], make([]uint32, len(t.rowGrp))...)
	for rk := range len(t.rowGrp) - 1 {
		for gi := t.rowGrp[rk]; gi < t.rowGrp[rk+1]; gi++ {
			start := len(v.ents)
			for _, e := range t.ents[t.grps[gi].start:t.grps[gi+1].start] {
				if e.w&f == 0 {
					v.ents = append(v.ents, e)
				}
			}
			if len(v.ents) > start {
				g := quadGroup{cols: t.grps[gi].cols, start: uint32(start)}
				var n [4]uint32 // the entries keep their order: only count
				for _, e := range v.ents[start:] {
					n[v.key(e.w)]++
				}
				g.sub = [3]uint32{g.start + n[0], g.start + n[0] + n[1], g.start + n[0] + n[1] + n[2]}
				v.grps = append(v.grps, g)
			}
		}
		v.rowGrp[rk+1] = uint32(len(v.grps))
	}
	v.grps = append(v.grps, quadGroup{start: uint32(len(v.ents))})
	return v
}

// joinHalf appends to dst the packed masks (see pack) of every placement
// of a half-board: one queen in each of its rows (north rows as bits
// 0..h-1 of rn, south rows of rs) and columns cols (bits from the half's
// first column), from the tables north and south of its quarters. It
// returns dst.
func joinHalf(north, south *quadTable, rn, rs, cols uint32, dst []uint64) []uint64 {
	ng := north.grps[north.rowGrp[rn] : north.rowGrp[rn+1]+1] // with the next start
	sg := south.grps[south.rowGrp[rs] : south.rowGrp[rs+1]+1]
	j := len(sg) - 2
	for gi := range len(ng) - 1 {
		c := ng[gi].cols
		if c&^cols != 0 {
			continue
		}
		want := cols ^ c // decreases as c increases
		for j >= 0 && sg[j].cols > want {
			j--
		}
		if j < 0 {
			break
		}
		if sg[j].cols != want {
			continue
		}
		// The smaller group on the outside; an outer entry that holds a
		// cut bit of the inner table meets only the inner entries without
		// it.
		np := north.ents[ng[gi].start:ng[gi+1].start]
		if int(sg[j+1].start-sg[j].start) >= len(np) {
			dst = joinGroups(np, south, &sg[j], sg[j+1].start, dst)
		} else {
			dst = joinGroups(south.ents[sg[j].start:sg[j+1].start], north, &ng[gi], ng[gi+1].start, dst)
		}
	}
	return dst
}

// joinGroups appends to dst the interfaces of every entry of outer joined
// with every entry of group g of table t (which ends at end) that it does
// not attack, and returns dst.
func joinGroups(outer []joinEnt, t *quadTable, g *quadGroup, end uint32, dst []uint64) []uint64 {
	b0, b1, b2, b3, b4 := g.start, g.sub[0], g.sub[1], g.sub[2], end
	in := t.ents[b0:b4]
	// Room for every pair, so emit writes without growing dst.
	dst = slices.Grow(dst, len(outer)*len(in))
	for _, p := range outer {
		switch t.key(p.w) {
		case 0:
			dst = emit(p, in, dst)
		case 1:
			dst = emit(p, t.ents[b0:b1], dst)
			dst = emit(p, t.ents[b2:b3], dst)
		case 2:
			dst = emit(p, t.ents[b0:b2], dst)
		default:
			dst = emit(p, t.ents[b0:b1], dst)
		}
	}
	return dst
}

// emit appends to dst the interface of north entry p joined with each
// south entry of ss that it does not attack, and returns dst. A north and
// a south queen on one diagonal through the middle also meet in the seam:
// the fixed bits of w are harmless here.
// dst must have room for len(ss) more: emit writes every join and keeps
// those that fit, without a branch to mispredict.
func emit(p joinEnt, ss []joinEnt, dst []uint64) []uint64 {
	k := len(dst)
	out := dst[k : k+len(ss)]
	c := 0
	for _, s := range ss {
		out[c] = p.m | s.m
		if p.w&s.w == 0 {
			c++
		}
	}
	return dst[:k+c]
}

// quads is four quarter tables of an n-board: north-west, north-east,
// south-west, south-east. The plan builds only the west ones (see
// JoinCounter.eastHalf): its east entries are nil.
type quads [4]*quadTable

func newQuads(n int) quads {
	h := n / 2
	nw := quarter{n, h, 0, 0}.placements()
	odd := n%2 == 1
	return quads{0: newQuadTable(quarter{n, h, 0, 0}, nw, odd), 2: newQuadTable(quarter{n, h, n - h, 0}, nw, odd)}
}
