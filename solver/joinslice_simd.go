//go:build goexperiment.simd && amd64

package solver

import "simd/archsimd"

// vecOK says whether this CPU has what sliceLoopVec uses: AVX-512 and its
// popcount of 64-bit lanes.
var vecOK = archsimd.X86.AVX512() && archsimd.X86.AVX512VPOPCNTDQ()

// sliceLoopVec is sliceLoop on AVX-512: eight groups of east masks an
// instruction, with the popcounts summed in the lanes of one register
// until the end. It reports false, counting nothing, where it does not
// apply (no AVX-512, fewer than 8 groups, other than 4 or 5 chunks).
func sliceLoopVec(west, tab []uint64, g, width, nc int) (uint64, bool) {
	if !vecOK || g < 4 || nc < 4 || nc > 5 {
		return 0, false
	}
	if g < 8 {
		return sliceLoopVec4(west, tab, g, width, nc), true
	}
	s := uint(width)
	m := uint64(1)<<s - 1
	row := func(j int, w uint64) []uint64 {
		at := (j<<s + int(w>>(uint(j)*s)&m)) * g
		return tab[at : at+g : at+g]
	}
	var acc archsimd.Uint64x8
	var tail uint64
	full := g &^ 7
	for _, w := range west {
		r0, r1, r2, r3 := row(0, w), row(1, w), row(2, w), row(3, w)
		r4 := r3 // with 4 chunks, r3 again: x & x = x
		if nc == 5 {
			r4 = row(4, w)
		}
		for q := 0; q < full; q += 8 {
			v := archsimd.LoadUint64x8Slice(r0[q:]).And(archsimd.LoadUint64x8Slice(r1[q:]))
			v = v.And(archsimd.LoadUint64x8Slice(r2[q:])).And(archsimd.LoadUint64x8Slice(r3[q:]))
			v = v.And(archsimd.LoadUint64x8Slice(r4[q:]))
			acc = acc.Add(v.OnesCount())
		}
		for q := full; q < g; q++ {
			tail += uint64(popcount(r0[q] & r1[q] & r2[q] & r3[q] & r4[q]))
		}
	}
	var lanes [8]uint64
	acc.Store(&lanes)
	for _, x := range lanes {
		tail += x
	}
	return tail, true
}

// sliceLoopVec4 is sliceLoopVec for 4 to 7 groups: four at a time on
// 256-bit registers, the rest one by one.
func sliceLoopVec4(west, tab []uint64, g, width, nc int) uint64 {
	s := uint(width)
	m := uint64(1)<<s - 1
	row := func(j int, w uint64) []uint64 {
		at := (j<<s + int(w>>(uint(j)*s)&m)) * g
		return tab[at : at+g : at+g]
	}
	var acc archsimd.Uint64x4
	var tail uint64
	for _, w := range west {
		r0, r1, r2, r3 := row(0, w), row(1, w), row(2, w), row(3, w)
		r4 := r3
		if nc == 5 {
			r4 = row(4, w)
		}
		v := archsimd.LoadUint64x4Slice(r0).And(archsimd.LoadUint64x4Slice(r1))
		v = v.And(archsimd.LoadUint64x4Slice(r2)).And(archsimd.LoadUint64x4Slice(r3))
		v = v.And(archsimd.LoadUint64x4Slice(r4))
		acc = acc.Add(v.OnesCount())
		for q := 4; q < g; q++ {
			tail += uint64(popcount(r0[q] & r1[q] & r2[q] & r3[q] & r4[q]))
		}
	}
	var lanes [4]uint64
	acc.Store(&lanes)
	return tail + lanes[0] + lanes[1] + lanes[2] + lanes[3]
}
