package solver

import "math/bits"

// joinTableWords bounds the words of the tables countSliced builds at once
// (more east masks are counted in parts): 256 KiB, so that the tables stay
// in the second-level cache while the west masks stream past (at N=20
// tables of several MB made the count several times slower).
const joinTableWords = 1 << 15

// joinMaxGroups is the most groups countSliced tables at once: the
// narrowest tables (width 4) within joinTableWords.
const joinMaxGroups = joinTableWords / 16

// countSliced returns the sum, over the lists of wests, of weight times
// the number of pairs (w, e) of a mask of the list and a mask of east that
// share no bit. It slices east in groups of 64 masks: for each chunk j of
// width bits of a mask, each value x of the chunk and each group g, a word
// whose bit q says "mask q of group g has no bit in common with x in chunk
// j". A west mask then meets 64 east masks with one lookup a chunk, the
// ANDs and a popcount. The words of one (j, x) lie side by side for every
// group, so a west mask reads its chunks once and streams through the
// groups. The chunk width trades the tables' cost (2^width words a chunk
// and group) against the lookups (one a chunk, group and west mask).
func (jc *JoinCounter) countSliced(wests [3][]uint64, weight [3]uint64, east []uint64) uint64 {
	var or uint64
	nw := 0
	for i, west := range wests {
		if weight[i] == 0 {
			continue
		}
		for _, w := range west {
			or |= w
		}
		nw += len(west)
	}
	l := bits.Len64(or) // bits a west mask uses
	if l == 0 {
		var total uint64
		for i, west := range wests {
			total += weight[i] * uint64(len(west)*len(east))
		}
		return total
	}
	g := (len(east) + 63) / 64
	if g > 1 && g < 4 {
		g = 4 // the padding groups are empty: their words are 0
	}
	width, nc := sliceWidth(l, nw, g)
	if most := joinTableWords / (nc << width); g > most {
		// Tables too large for the cache: count east in parts.
		part := most * 64
		var total uint64
		for len(east) > 0 {
			k := min(part, len(east))
			total += jc.countSliced(wests, weight, east[:k])
			east = east[k:]
		}
		return total
	}
	tab := jc.buildSlices(east, g, width, nc)
	var total uint64
	for i, west := range wests {
		if weight[i] != 0 && len(west) != 0 {
			total += weight[i] * sliceLoop(west, tab, g, width, nc)
		}
	}
	return total
}

// buildSlices returns the tables of countSliced for the g groups of east:
// the word of chunk j, value x and group q at (j<<width+x)*g+q.
func (jc *JoinCounter) buildSlices(east []uint64, g, width, nc int) []uint64 {
	rows := nc << width
	size := rows*g + 256 // sliceLoop1 reads whole 256-word arrays
	if cap(jc.tab) < size {
		jc.tab = make([]uint64, size)
	}
	tab := jc.tab[:size]
	narrow := true // every mask fits in 32 bits
	for _, e := range east {
		narrow = narrow && e>>32 == 0
	}
	// busy[q*64+b]: the masks of group q with bit b set, a transpose.
	if cap(jc.busy) < 64*g {
		jc.busy = make([]uint64, 64*g)
	}
	busy := jc.busy[:64*g]
	var valid [joinMaxGroups]uint64
	for q := range g {
		grp := east[min(q*64, len(east)):min(q*64+64, len(east))]
		bq := (*[64]uint64)(busy[q*64:])
		*bq = [64]uint64{}
		copy(bq[:], grp)
		transpose64(bq, narrow)
		if len(grp) > 0 {
			valid[q%joinMaxGroups] = ^uint64(0) >> (64 - len(grp))
		}
	}
	if g == 1 {
		for j := range nc {
			t := tab[j<<width : (j+1)<<width]
			t[0] = valid[0]
			for b := range width {
				bb := busy[(j*width+b)&63]
				lo, hi := t[:1<<b], t[1<<b:2<<b]
				for x := range lo {
					hi[x] = lo[x] &^ bb
				}
			}
		}
		return tab
	}
	// Word rows of all groups at once: row x | 1<<b is row x without the
	// masks holding bit b, a loop over the groups side by side.
	var bb [joinMaxGroups]uint64
	for j := range nc {
		t := tab[j<<width*g:]
		copy(t[:g], valid[:g])
		for b := range width {
			for q := range g {
				bb[q] = busy[q*64+(j*width+b)&63]
			}
			for x := range 1 << b {
				lo := t[x*g : x*g+g]
				hi := t[(1<<b+x)*g : (1<<b+x)*g+g]
				for q := range hi {
					hi[q] = lo[q] &^ bb[q]
				}
			}
		}
	}
	return tab
}

// sliceWidth returns the chunk width for west masks of l bits, of which
// there are nw, against g groups of east masks, and how many chunks that
// makes: the width that costs least to build (2^width words a chunk and
// group) and look up (a row of g words a chunk and west mask).
func sliceWidth(l, nw, g int) (width, nc int) {
	best := -1
	for w := 4; w <= 8; w++ {
		c := (l + w - 1) / w
		cost := c * (1<<w*g + nw*(2+g/2))
		if best < 0 || cost < best {
			best, width, nc = cost, w, c
		}
	}
	return width, nc
}

// sliceLoop is countSliced's inner loop: every west mask against the g
// groups of east masks whose tables (see buildSlices) tab holds. It is the
// join's hot loop.
func sliceLoop(west, tab []uint64, g, width, nc int) uint64 {
	if g == 1 {
		return sliceLoop1(west, tab, width, nc)
	}
	if total, ok := sliceLoopVec(west, tab, g, width, nc); ok {
		return total
	}
	if g == 4 && nc == 4 {
		return sliceLoop4(west, tab, width)
	}
	var total uint64
	s := uint(width)
	m := uint64(1)<<s - 1
	row := func(j int, w uint64) []uint64 {
		at := (j<<s + int(w>>(uint(j)*s)&m)) * g
		return tab[at : at+g : at+g]
	}
	switch nc {
	case 4:
		for _, w := range west {
			r0, r1, r2, r3 := row(0, w), row(1, w), row(2, w), row(3, w)
			r1, r2, r3 = r1[:len(r0)], r2[:len(r0)], r3[:len(r0)]
			for q, x := range r0 {
				total += uint64(bits.OnesCount64(x & r1[q] & r2[q] & r3[q]))
			}
		}
	case 5:
		for _, w := range west {
			r0, r1, r2, r3, r4 := row(0, w), row(1, w), row(2, w), row(3, w), row(4, w)
			r1, r2, r3, r4 = r1[:len(r0)], r2[:len(r0)], r3[:len(r0)], r4[:len(r0)]
			for q, x := range r0 {
				total += uint64(bits.OnesCount64(x & r1[q] & r2[q] & r3[q] & r4[q]))
			}
		}
	default:
		for _, w := range west {
			for q := range g {
				x := ^uint64(0)
				for j := range nc {
					x &= tab[(j<<s+int(w>>(uint(j)*s)&m))*g+q]
				}
				total += uint64(bits.OnesCount64(x))
			}
		}
	}
	return total
}

// sliceLoop1 is sliceLoop for one group, where the chunks' tables lie
// 2^width words apart.
func sliceLoop1(west, tab []uint64, width, nc int) uint64 {
	var total uint64
	s := uint(width)
	m := uint64(1)<<s - 1
	t := func(j int) *[256]uint64 { return (*[256]uint64)(tab[j<<s:]) }
	switch nc {
	case 4:
		t0, t1, t2, t3 := t(0), t(1), t(2), t(3)
		for _, w := range west {
			x := t0[uint8(w&m)] & t1[uint8(w>>s&m)] & t2[uint8(w>>(2*s)&m)] & t3[uint8(w>>(3*s)&m)]
			total += uint64(bits.OnesCount64(x))
		}
	case 5:
		t0, t1, t2, t3, t4 := t(0), t(1), t(2), t(3), t(4)
		for _, w := range west {
			x := t0[uint8(w&m)] & t1[uint8(w>>s&m)] & t2[uint8(w>>(2*s)&m)] & t3[uint8(w>>(3*s)&m)] & t4[uint8(w>>(4*s)&m)]
			total += uint64(bits.OnesCount64(x))
		}
	default:
		for _, w := range west {
			x := ^uint64(0)
			for j := range nc {
				x &= tab[j<<s+int(w>>(uint(j)*s)&m)]
			}
			total += uint64(bits.OnesCount64(x))
		}
	}
	return total
}

// sliceLoop4 is sliceLoop for 4 groups (the last ones maybe empty) and 4
// chunks, with each row of words an array: no bounds checks.
func sliceLoop4(west, tab []uint64, width int) uint64 {
	var total uint64
	s := uint(width)
	m := uint64(1)<<s - 1
	row := func(j int, w uint64) *[4]uint64 {
		return (*[4]uint64)(tab[(j<<s+int(w>>(uint(j)*s)&m))*4:])
	}
	for _, w := range west {
		r0, r1, r2, r3 := row(0, w), row(1, w), row(2, w), row(3, w)
		total += uint64(bits.OnesCount64(r0[0]&r1[0]&r2[0]&r3[0]) + bits.OnesCount64(r0[1]&r1[1]&r2[1]&r3[1]) +
			bits.OnesCount64(r0[2]&r1[2]&r2[2]&r3[2]) + bits.OnesCount64(r0[3]&r1[3]&r2[3]&r3[3]))
	}
	return total
}

// popcount is bits.OnesCount64, under a name the vector loop shares.
func popcount(x uint64) int { return bits.OnesCount64(x) }

// transpose64 transposes the 64x64 bit matrix a: bit j of a[i] and bit i
// of a[j] trade places. Six rounds swap ever smaller blocks (Hacker's
// Delight, 7-3), about 200 XORs and shifts for 64 masks where testing their
// bits one by one costs one step a set bit. If narrow, every a[i] < 2^32:
// after the first round rows 32..63 are zero and stay so, and the other
// rounds skip them.
func transpose64(a *[64]uint64, narrow bool) {
	rows := 64
	m := uint64(0x00000000ffffffff)
	for j := 32; j != 0; j, m = j>>1, m^(m<<(j>>1)) {
		for k := 0; k < rows; k = (k + j + 1) &^ j {
			t := (a[k]>>j ^ a[k+j]) & m
			a[k+j] ^= t
			a[k] ^= t << j
		}
		if narrow {
			rows = 32
		}
	}
}
