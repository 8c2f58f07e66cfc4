package packed

import (
	"encoding/binary"
	"math/bits"
	"slices"
)

// Append appends cols (columns 0..255, 0-based) to dst as one solution in
// the Bytes layout and returns dst.
func Append(dst []byte, cols []int) []byte {
	for _, c := range cols {
		dst = append(dst, byte(c))
	}
	return dst
}

// Unpack copies the solution sol (Bytes layout) into cols, which must be
// as long as sol.
func Unpack(cols []int, sol []byte) {
	for i, c := range sol {
		cols[i] = int(c)
	}
}

// BadColumn returns the offset in sols (solutions of an n-board in the
// Bytes layout, 1 ≤ n ≤ 128) of the first byte that is not a column of the
// board (n or more), or -1 when every byte is one. The solution is
// offset/n, the row offset%n. It looks at 8 bytes at a time: for bytes
// under 0x80, adding 0x80-n sets a byte's high bit exactly when it is n or
// more.
func BadColumn(sols []byte, n int) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	add := uint64(0x80-n) * ones
	i := 0
	for ; i+8 <= len(sols); i += 8 {
		x := binary.LittleEndian.Uint64(sols[i:])
		if (x|(x+add))&highs != 0 {
			break
		}
	}
	for ; i < len(sols); i++ {
		if int(sols[i]) >= n {
			return i
		}
	}
	return -1
}

// MaxKeyN is the largest board whose solutions fit a Key: 16 rows of 4
// bits fill a uint64.
const MaxKeyN = 16

// Key packs the solution sol (Bytes layout, at most MaxKeyN columns, each
// under 16) into a key: row r in bits 60-4r..63-4r.
func Key(sol []byte) uint64 {
	var p [MaxKeyN]byte
	copy(p[:], sol)
	return squeeze(binary.BigEndian.Uint64(p[:8]))<<32 | squeeze(binary.BigEndian.Uint64(p[8:]))
}

// UnpackKey writes the len(sol) columns packed in key to sol (Bytes
// layout, at most MaxKeyN) and returns it.
func UnpackKey(key uint64, sol []byte) []byte {
	var p [MaxKeyN]byte
	binary.BigEndian.PutUint64(p[:8], spread(key>>32))
	binary.BigEndian.PutUint64(p[8:], spread(key))
	copy(sol, p[:])
	return sol
}

// KeyCols writes the len(cols) columns packed in key to cols (at most
// MaxKeyN).
func KeyCols(key uint64, cols []int) {
	for r := range cols {
		cols[r] = int(key >> 60)
		key <<= 4
	}
}

// squeeze squeezes the low nibbles of x's 8 bytes into 32 bits, byte 7
// (the most significant) into the top nibble.
func squeeze(x uint64) uint64 {
	x = (x | x>>4) & 0x00ff00ff00ff00ff
	x = (x | x>>8) & 0x0000ffff0000ffff
	return (x | x>>16) & 0xffffffff
}

// spread is the inverse of squeeze: the 8 nibbles of x's low 32 bits to
// the low nibbles of 8 bytes.
func spread(x uint64) uint64 {
	x &= 0xffffffff
	x = (x | x<<16) & 0x0000ffff0000ffff
	x = (x | x<<8) & 0x00ff00ff00ff00ff
	return (x | x<<4) & 0x0f0f0f0f0f0f0f0f
}

const (
	// nibbleLow holds the low nibble of every byte of a key.
	nibbleLow = 0x0f0f0f0f0f0f0f0f
	// nibbleCarry holds bit 4 of every byte, where a nibble plus 16-n
	// carries to exactly when the nibble is ≥ n.
	nibbleCarry = 0x1010101010101010
)

// BadKey returns the index of the first key that does not put n queens'
// columns on an n-board (1 ≤ n ≤ MaxKeyN): a column ≥ n, or a bit set
// below row n-1's nibble; -1 when every key is good. It takes the even and
// the odd nibbles apart, one a byte so that no sum reaches the next byte,
// adds 16-n to each, and looks at bit 4: a column c carries into it exactly
// when c ≥ n. Keys are checked in blocks: a few instructions a key and one
// branch a block.
func BadKey(keys []uint64, n int) int {
	if n == MaxKeyN {
		return -1 // every key holds 16 columns of 0..15
	}
	bias := uint64(16-n) * 0x0101010101010101
	tail := ^uint64(0) >> (4 * n) // the bits of rows n..15
	faults := func(k uint64) uint64 {
		return (k&nibbleLow+bias)&nibbleCarry | (k>>4&nibbleLow+bias)&nibbleCarry | k&tail
	}
	const block = 64
	for i := 0; i < len(keys); i += block {
		piece := keys[i:min(i+block, len(keys))]
		var bad uint64
		for _, k := range piece {
			bad |= faults(k)
		}
		if bad == 0 {
			continue
		}
		for j, k := range piece {
			if faults(k) != 0 {
				return i + j
			}
		}
	}
	return -1
}

// AppendClassKeys appends to dst the solutions of the symmetry class of
// sol (a solution in the Bytes layout, n ≤ MaxKeyN) as keys, each once, in
// the order and numbering of solver.AppendClass, or with unique only the
// smallest (the canonical solution, solver.Canonical), and returns dst.
//
// The keys are made in registers: only two are packed, the solution's and
// its inverse permutation's (the transpose, image 6); the others follow by
// reversing the rows (reverseKey) and reflecting the columns (each nibble
// c -> m-c, one subtraction from m in every row, with no borrows).
func AppendClassKeys(dst []uint64, sol []byte, unique bool) []uint64 {
	n := len(sol)
	m := uint64(n - 1)
	var inv [MaxKeyN]byte
	for r, c := range sol {
		inv[c&15] = byte(r)
	}
	pad := uint(4 * (MaxKeyN - n)) // the unused low nibbles
	ms := (m * 0x1111111111111111) &^ (1<<pad - 1)
	k0, k6 := Key(sol), Key(inv[:n])
	k5, k3 := reverseKey(k0)<<pad, reverseKey(k6)<<pad
	k1, k2, k4, k7 := ms-k6, ms-k5, ms-k0, ms-k3
	// The distinct images, as in solver.AppendClass: a quarter turn fixes
	// sol (class of 2: images 0 and 4), or a half turn (class of 4: 0, 1,
	// 4 and 6), or nothing does.
	var keep []uint64
	switch all := [8]uint64{k0, k1, k2, k3, k4, k5, k6, k7}; {
	case n == 1:
		keep = all[:1]
	case k1 == k0:
		keep = []uint64{k0, k4}
	case k2 == k0:
		keep = []uint64{k0, k1, k4, k6}
	default:
		keep = all[:]
	}
	if unique {
		return append(dst, slices.Min(keep))
	}
	return append(dst, keep...)
}

// reverseKey reverses the order of the 16 nibbles of x.
func reverseKey(x uint64) uint64 {
	x = bits.ReverseBytes64(x)
	return (x&nibbleLow)<<4 | (x>>4)&nibbleLow
}
