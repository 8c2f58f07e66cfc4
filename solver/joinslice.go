package solver

import "math/bits"

// countSliced returns how many (w, e) pairs of masks, w from west and e
// from east, share no bit. It slices east in groups of 64 masks: for each
// group and each chunk of width bits of a mask, a table whose entry x has
// bit q set iff mask q of the group has no bit in common with x in that
// chunk. A west mask then meets 64 east masks with one lookup a chunk, the
// ANDs and a popcount. The chunk width trades the tables' cost (2^width
// entries a chunk, built for every group) against the lookups (one a chunk
// for every west mask); a group's tables take at most 8 KiB at width 8 and
// stay in the first-level cache while the west masks pass through.
// With several west lists, it returns the sum of each one's count times
// its weight, sharing the tables.
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
	width, nc := sliceWidth(l, nw)
	size := nc * 256
	if cap(jc.tab) < size {
		jc.tab = make([]uint64, size)
	}
	tab := jc.tab[:size]
	var total uint64
	var busy [64]uint64 // busy[b]: the masks of the group with bit b set
	for g := 0; g < len(east); g += 64 {
		grp := east[g:min(g+64, len(east))]
		// busy[b]: the masks of the group with bit b set, a transpose.
		busy = [64]uint64{}
		copy(busy[:], grp)
		transpose64(&busy)
		valid := ^uint64(0) >> (64 - len(grp))
		for j := range nc {
			t := (*[256]uint64)(tab[j*256:])
			t[0] = valid
			for b := range width {
				bb := busy[(j*width+b)&63]
				lo := t[: 1<<b : 1<<b]
				hi := t[1<<b : 2<<b : 2<<b]
				for x := range lo {
					hi[x] = lo[x] &^ bb
				}
			}
		}
		for i, west := range wests {
			if weight[i] != 0 && len(west) != 0 {
				total += weight[i] * sliceLoop(west, tab, width, nc)
			}
		}
	}
	return total
}

// sliceWidth returns the chunk width for west masks of l bits, of which
// there are nw, and how many chunks that makes: the width that costs least
// to build (about 2^width entries a chunk) and look up (nw a chunk).
func sliceWidth(l, nw int) (width, nc int) {
	best := -1
	for w := 4; w <= 8; w++ {
		c := (l + w - 1) / w
		cost := c * (1<<w + 2*nw)
		if best < 0 || cost < best {
			best, width, nc = cost, w, c
		}
	}
	return width, nc
}

// sliceLoop is countSliced's inner loop over the west masks for one group
// of east masks, whose tables (256 words a chunk) tab holds: the join's hot
// loop.
func sliceLoop(west, tab []uint64, width, nc int) uint64 {
	var total uint64
	s := uint(width)
	m := uint64(1)<<s - 1
	switch nc {
	case 4:
		t0, t1 := (*[256]uint64)(tab[0:256]), (*[256]uint64)(tab[256:512])
		t2, t3 := (*[256]uint64)(tab[512:768]), (*[256]uint64)(tab[768:1024])
		for _, w := range west {
			x := t0[uint8(w&m)] & t1[uint8(w>>s&m)] & t2[uint8(w>>(2*s)&m)] & t3[uint8(w>>(3*s)&m)]
			total += uint64(bits.OnesCount64(x))
		}
	case 5:
		t0, t1 := (*[256]uint64)(tab[0:256]), (*[256]uint64)(tab[256:512])
		t2, t3 := (*[256]uint64)(tab[512:768]), (*[256]uint64)(tab[768:1024])
		t4 := (*[256]uint64)(tab[1024:1280])
		for _, w := range west {
			x := t0[uint8(w&m)] & t1[uint8(w>>s&m)] & t2[uint8(w>>(2*s)&m)] & t3[uint8(w>>(3*s)&m)] & t4[uint8(w>>(4*s)&m)]
			total += uint64(bits.OnesCount64(x))
		}
	default:
		for _, w := range west {
			x := ^uint64(0)
			for j := range nc {
				x &= tab[j*256+int(w>>(uint(j)*s)&m)]
			}
			total += uint64(bits.OnesCount64(x))
		}
	}
	return total
}

// transpose64 transposes the 64x64 bit matrix a: bit j of a[i] and bit i
// of a[j] trade places. Six rounds swap ever smaller blocks (Hacker's
// Delight, 7-3), about 200 XORs and shifts for 64 masks where testing their
// bits one by one costs one step a set bit.
func transpose64(a *[64]uint64) {
	m := uint64(0x00000000ffffffff)
	for j := 32; j != 0; j, m = j>>1, m^(m<<(j>>1)) {
		for k := 0; k < 64; k = (k + j + 1) &^ j {
			t := (a[k]>>j ^ a[k+j]) & m
			a[k+j] ^= t
			a[k] ^= t << j
		}
	}
}
