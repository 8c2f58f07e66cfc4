package solver

import "math/bits"

// countSliced returns how many (w, e) pairs of masks, w from west and e
// from east, share no bit. It slices east in groups of 64 masks: for each
// group and each byte of a mask, a table of 256 words whose bit q says
// "mask q of the group has no bit in common with this byte". A west mask
// then meets 64 east masks with one lookup per byte, an AND and a popcount.
// The tables of a group take 8 KiB (for masks of up to 32 bits) and stay in
// the first-level cache while every west mask passes through.
func (jc *JoinCounter) countSliced(west, east []uint64) uint64 {
	var or uint64
	for _, w := range west {
		or |= w
	}
	nc := (bits.Len64(or) + 7) / 8 // bytes a west mask uses
	if nc == 0 {
		return uint64(len(west) * len(east))
	}
	size := nc * 256
	if cap(jc.tab) < size {
		jc.tab = make([]uint64, size)
	}
	tab := jc.tab[:size]
	var total uint64
	for g := 0; g < len(east); g += 64 {
		grp := east[g:min(g+64, len(east))]
		valid := ^uint64(0) >> (64 - len(grp))
		for j := range nc {
			t := (*[256]uint64)(tab[j*256:])
			var busy [8]uint64 // busy[b]: the masks with bit 8j+b set
			for q, e := range grp {
				for x := e >> (8 * j) & 255; x != 0; x &= x - 1 {
					busy[bits.TrailingZeros64(x)] |= 1 << q
				}
			}
			t[0] = valid
			for x := 1; x < 256; x++ {
				t[x] = t[x&(x-1)] &^ busy[bits.TrailingZeros(uint(x))&7]
			}
		}
		total += sliceLoop(west, tab, nc)
	}
	return total
}

// sliceLoop is countSliced's inner loop over the west masks for one group
// of east masks: the join's hot loop.
func sliceLoop(west, tab []uint64, nc int) uint64 {
	var total uint64
	switch nc {
	case 4:
		t0, t1 := (*[256]uint64)(tab[0:256]), (*[256]uint64)(tab[256:512])
		t2, t3 := (*[256]uint64)(tab[512:768]), (*[256]uint64)(tab[768:1024])
		for _, w := range west {
			total += uint64(bits.OnesCount64(t0[uint8(w)] & t1[uint8(w>>8)] & t2[uint8(w>>16)] & t3[uint8(w>>24)]))
		}
	default:
		for _, w := range west {
			x := ^uint64(0)
			for j := range nc {
				x &= tab[j*256+int(uint8(w>>(8*j)))]
			}
			total += uint64(bits.OnesCount64(x))
		}
	}
	return total
}
