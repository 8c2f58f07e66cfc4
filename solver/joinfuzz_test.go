package solver

import (
	"encoding/binary"
	"slices"
	"testing"
)

// FuzzJoinPairs checks the bit-sliced pair count against the plain double
// loop on arbitrary lists of masks: the first byte splits the data into
// west and east, each 8 bytes a mask, narrowed to the bits a board of 4..21
// uses (the second byte picks it).
func FuzzJoinPairs(f *testing.F) {
	f.Add([]byte{3, 16, 1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0})
	f.Add(slices.Repeat([]byte{90, 17, 0xa5, 0x5a, 0x11, 0x80, 0x01, 0x20, 0x04, 0x00}, 300))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 2 {
			return
		}
		h := (4 + int(data[1])%18) / 2
		mask := uint64(1)<<(2*(2*h-1)) - 1
		var masks []uint64
		for b := data[2:]; len(b) >= 8; b = b[8:] {
			masks = append(masks, binary.LittleEndian.Uint64(b)&mask)
		}
		split := min(int(data[0]), len(masks))
		west, east := masks[:split], masks[split:]
		jc := &JoinCounter{west: west, east: east}
		if got, want := jc.pairs(), countPairs(west, east); got != want {
			t.Fatalf("pairs of %d west and %d east masks = %d, want %d", len(west), len(east), got, want)
		}
	})
}

// FuzzJoinHalf checks the half-boards joined from the quarter tables
// against the plain recursive search, for any board of 2..13, fixed-queen
// configuration and row set.
func FuzzJoinHalf(f *testing.F) {
	f.Add(uint8(8), uint8(0), uint32(0b10110100), false)
	f.Add(uint8(9), uint8(3), uint32(0b101010101), true)
	f.Add(uint8(13), uint8(7), uint32(0x0f0f), false)
	f.Fuzz(func(t *testing.T, n8, cfgIdx uint8, pick uint32, east bool) {
		n := 2 + int(n8)%12
		p, err := NewJoinPlan(n, 1)
		if err != nil {
			t.Fatal(err)
		}
		cfg := &p.cfgs[int(cfgIdx)%len(p.cfgs)]
		cols, k := cfg.west, len(cfg.free)-cfg.k
		if east {
			cols, k = cfg.east, cfg.k
		}
		// The row set: k free rows, chosen by the bits of pick.
		var rows uint32
		for _, r := range cfg.free {
			if pick&1 != 0 && k > 0 {
				rows |= 1 << r
				k--
			}
			pick >>= 1
		}
		for i := len(cfg.free) - 1; k > 0; i-- {
			if rows>>cfg.free[i]&1 == 0 {
				rows |= 1 << cfg.free[i]
				k--
			}
		}
		jc := p.NewCounter()
		h := n / 2
		q := jc.tables(int(cfgIdx) % len(p.cfgs))
		var got []uint64
		if east {
			got = jc.eastHalf(q, cfg, rows, nil)
		} else {
			got = joinHalf(q[0], q[2], rows&(1<<h-1), rows>>(n-h), cols, nil)
		}
		want := cfg.halfBoards(n, rows, cols, nil)
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("n=%d config %d rows %b east=%v: joined %d half-boards, searched %d", n, int(cfgIdx)%len(p.cfgs), rows, east, len(got), len(want))
		}
	})
}

// TestTranspose64 checks the bit-matrix transpose bit by bit.
func TestTranspose64(t *testing.T) {
	var a [64]uint64
	for i := range a {
		a[i] = uint64(i)*0x9e3779b97f4a7c15 ^ uint64(i)<<7
	}
	for _, narrow := range []bool{false, true} {
		if narrow {
			for i := range a {
				a[i] &= 1<<32 - 1
			}
		}
		b := a
		transpose64(&b, narrow)
		for i := range 64 {
			for j := range 64 {
				if a[i]>>j&1 != b[j]>>i&1 {
					t.Fatalf("transpose64(narrow %v): bit %d of row %d is not bit %d of row %d", narrow, j, i, i, j)
				}
			}
		}
	}
}

// TestCountSlicedWide checks the bit-sliced count on lists long enough for
// every path of sliceLoop (one group, several, and with GOEXPERIMENT=simd
// on AVX-512 eight at a time with a tail) against the double loop.
func TestCountSlicedWide(t *testing.T) {
	r := uint64(88172645463325252)
	next := func() uint64 { // xorshift: sparse masks from three words
		r ^= r << 13
		r ^= r >> 7
		r ^= r << 17
		return r
	}
	for _, c := range []struct{ nw, ne, bits int }{{50, 60, 30}, {300, 150, 30}, {300, 250, 30}, {300, 700, 30}, {200, 1000, 34}, {100, 2049, 38}, {40, 20000, 30}} {
		mask := uint64(1)<<c.bits - 1
		gen := func(k int) []uint64 {
			out := make([]uint64, k)
			for i := range out {
				out[i] = next() & next() & next() & mask
			}
			return out
		}
		west, east := gen(c.nw), gen(c.ne)
		jc := &JoinCounter{}
		got := jc.countSliced([3][]uint64{west, west[:c.nw/2]}, [3]uint64{1, 3}, east)
		want := countPairs(west, east) + 3*countPairs(west[:c.nw/2], east)
		if got != want {
			t.Errorf("countSliced of %d west and %d east masks of %d bits = %d, want %d", c.nw, c.ne, c.bits, got, want)
		}
	}
}
