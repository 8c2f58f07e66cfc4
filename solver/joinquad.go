package solver

import (
	"cmp"
	"slices"
)

// A half-board's placements for a row set are joined from two quarter
// tables: every placement of queens in the north (or south) h rows of the
// half's h columns, at most one a row and a column, filed by which rows and
// columns they use. The half-board for rows R and free columns C is every
// north placement on R's north rows with columns X beside every south
// placement on R's south rows with columns C \ X, whose diagonals do not
// meet. The tables are built once per board and shared by every unit and
// fixed-queen configuration: placements a fixed queen attacks are dropped
// during the join.

// quadEntry is one placement of a quarter: its board-wide anti-diagonals
// (bit r+c) and diagonals (bit c-r+n-1).
type quadEntry struct{ a, d uint64 }

// quadGroup is the placements of one row set that use one column set: the
// entries from start to the next group's start.
type quadGroup struct{ cols, start uint32 }

// quadTable holds the placements of one quarter of the board: the h rows
// from row0 and the h columns from col0.
type quadTable struct {
	ents   []quadEntry
	grps   []quadGroup // by row set, then column set, ascending; one sentinel
	rowGrp []uint32    // groups of row set rk (rows as bits from row0): rowGrp[rk]..rowGrp[rk+1]
}

// newQuadTable builds the table of the quarter of an n-board with h rows
// and columns from (row0, col0).
func newQuadTable(n, h, row0, col0 int) *quadTable {
	type keyed struct {
		rows, cols uint32
		e          quadEntry
	}
	var all []keyed
	var rec func(i int, rows, cols uint32, a, d uint64)
	rec = func(i int, rows, cols uint32, a, d uint64) {
		if i == h {
			all = append(all, keyed{rows, cols, quadEntry{a, d}})
			return
		}
		rec(i+1, rows, cols, a, d) // row i stays empty
		r := row0 + i
		for j := range h {
			c := col0 + j
			ba, bd := uint64(1)<<(r+c), uint64(1)<<(c-r+n-1)
			if cols>>j&1 == 0 && a&ba == 0 && d&bd == 0 {
				rec(i+1, rows|1<<i, cols|1<<j, a|ba, d|bd)
			}
		}
	}
	rec(0, 0, 0, 0, 0)
	slices.SortFunc(all, func(x, y keyed) int {
		if c := cmp.Compare(x.rows, y.rows); c != 0 {
			return c
		}
		return cmp.Compare(x.cols, y.cols)
	})
	t := &quadTable{ents: make([]quadEntry, len(all)), rowGrp: make([]uint32, 1<<h+1)}
	for i, k := range all {
		t.ents[i] = k.e
		if i == 0 || k.rows != all[i-1].rows || k.cols != all[i-1].cols {
			t.grps = append(t.grps, quadGroup{k.cols, uint32(i)})
		}
		t.rowGrp[k.rows+1] = uint32(len(t.grps))
	}
	for rk := 1; rk < len(t.rowGrp); rk++ {
		t.rowGrp[rk] = max(t.rowGrp[rk], t.rowGrp[rk-1])
	}
	t.grps = append(t.grps, quadGroup{0, uint32(len(all))})
	return t
}

// quadView is a quarter table for one fixed-queen configuration: only the
// placements no fixed queen attacks, each as what the join needs (see
// joinEnt), filed as in quadTable.
type quadView struct {
	ents   []joinEnt
	grps   []quadGroup
	rowGrp []uint32
}

// joinEnt is a quarter placement as the join uses it: seam holds the
// diagonals it shares with the other quarter of its half (anti-diagonals in
// the low word, diagonals in the high word), m its packed interface with the
// other half (see pack).
type joinEnt struct{ seam, m uint64 }

// view fills v with the placements of t that attack none of the fixed
// queens' anti-diagonals fa and diagonals fd (bit c-r+n-1), for the quarter
// of an n-board whose columns start at col0.
func (t *quadTable) view(v *quadView, n, col0 int, fa, fd uint64) {
	h := n / 2
	seamMask := uint64(1)<<(h-1) - 1
	aShift := n - h + col0 // lowest anti-diagonal both quarters reach
	dShift := col0 - h + n // lowest diagonal c-r+n-1 both reach
	mA, sD := uint64(1)<<(2*h-1)-1, uint(2*h-1)
	v.ents, v.grps = v.ents[:0], v.grps[:0]
	v.rowGrp = append(v.rowGrp[:0], make([]uint32, len(t.rowGrp))...)
	for rk := range len(t.rowGrp) - 1 {
		for gi := t.rowGrp[rk]; gi < t.rowGrp[rk+1]; gi++ {
			start := len(v.ents)
			for _, e := range t.ents[t.grps[gi].start:t.grps[gi+1].start] {
				if e.a&fa|e.d&fd != 0 {
					continue
				}
				seam := (e.a>>aShift)&seamMask | ((e.d>>dShift)&seamMask)<<32
				v.ents = append(v.ents, joinEnt{seam, pack(e.a, e.d, n, h, mA, sD)})
			}
			if len(v.ents) > start {
				v.grps = append(v.grps, quadGroup{t.grps[gi].cols, uint32(start)})
			}
		}
		v.rowGrp[rk+1] = uint32(len(v.grps))
	}
	v.grps = append(v.grps, quadGroup{0, uint32(len(v.ents))})
}

// joinHalf appends to dst the packed masks (see pack) of every placement
// of a half-board: one queen in each of its rows (north rows as bits
// 0..h-1 of rn, south rows of rs) and columns cols (bits from the half's
// first column), from the views north and south of its quarters. It
// returns dst.
func joinHalf(north, south *quadView, rn, rs, cols uint32, dst []uint64) []uint64 {
	g0 := north.rowGrp[rn]
	ng := north.grps[g0 : north.rowGrp[rn+1]+1] // with the next start
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
		ss := south.ents[sg[j].start:sg[j+1].start]
		for _, p := range north.ents[ng[gi].start:ng[gi+1].start] {
			for _, s := range ss {
				if p.seam&s.seam == 0 {
					dst = append(dst, p.m|s.m)
				}
			}
		}
	}
	return dst
}

// quads is the four quarter tables of an n-board: north-west, north-east,
// south-west, south-east.
type quads [4]*quadTable

func newQuads(n int) quads {
	h := n / 2
	return quads{newQuadTable(n, h, 0, 0), newQuadTable(n, h, 0, n-h), newQuadTable(n, h, n-h, 0), newQuadTable(n, h, n-h, n-h)}
}
