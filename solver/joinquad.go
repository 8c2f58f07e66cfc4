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

// joinHalf appends to dst the packed masks (see pack) of every placement
// of a half-board: one queen in each of rows (north rows as bits 0..h-1 of
// rn, south rows of rs), in the columns cols (bits from the half's first
// column), from the quarter tables north and south, attacking no fixed
// queen's diagonals fa, fd. It returns dst.
func (jc *JoinCounter) joinHalf(north, south *quadTable, rn, rs, cols uint32, fa, fd uint64, dst []uint64) []uint64 {
	n := jc.p.N
	h := n / 2
	mA, sD := uint64(1)<<(2*h-1)-1, uint(2*h-1)
	ng := north.grps[north.rowGrp[rn]:north.rowGrp[rn+1]]
	sg := south.grps[south.rowGrp[rs] : south.rowGrp[rs+1]+1] // with the next start
	j := len(sg) - 2
	for gi := range ng {
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
		for _, p := range north.ents[ng[gi].start:north.grps[north.rowGrp[rn]+uint32(gi)+1].start] {
			if p.a&fa|p.d&fd != 0 {
				continue
			}
			pa, pd := p.a|fa, p.d|fd
			for _, s := range ss {
				if pa&s.a|pd&s.d == 0 {
					dst = append(dst, pack(p.a|s.a, p.d|s.d, n, h, mA, sD))
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
