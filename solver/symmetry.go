package solver

import "slices"

// This fails to compile unless MaxN is a power of two, as AppendClass's
// index mask needs.
var _ = [1]struct{}{}[MaxN&(MaxN-1)]

// Column is an element type of a column list: []int as the solver speaks,
// or []byte as solutions travel packed (one byte a row).
type Column interface{ ~byte | ~int }

// AppendClass appends to dst the solutions of the symmetry class of the
// solution cols (at most MaxN columns), each once (ClassSize of them), or
// with unique only the smallest of them (the class's canonical solution,
// see Canonical), and returns dst. The listing uses it to turn each
// streamed representative (ListTask) back into its class.
//
// The images keep the numbering of the solver's symmetries: image g is
// cols under symmetry g (1..3 turns by 90, 180 and 270 degrees, 4 and 5
// column and row mirrors, 6 and 7 the transposes); the turns and
// transposes read the inverse permutation. A class of 2 (a quarter turn
// fixes cols) is images 0 and 4, a class of 4 (a half turn fixes it)
// images 0, 1, 4 and 6: one of each pair g, g + half turn.
func AppendClass[E Column](dst, cols []E, unique bool) []E {
	n := len(cols)
	if n <= 1 {
		return append(dst, cols...)
	}
	m := E(n - 1)
	var inv [MaxN]E
	for r, c := range cols {
		inv[int(c)&(MaxN-1)] = E(r) // MaxN is a power of two: the mask spares a bounds check
	}
	// The 8 images straight into dst, image g at offset g*n.
	at := len(dst)
	dst = slices.Grow(dst, 8*n)[:at+8*n]
	img := dst[at:]
	for x := range n {
		y := n - 1 - x
		img[x] = cols[x]
		img[n+x] = m - inv[x]
		img[2*n+x] = m - cols[y]
		img[3*n+x] = inv[y]
		img[4*n+x] = m - cols[x]
		img[5*n+x] = cols[y]
		img[6*n+x] = inv[x]
		img[7*n+x] = m - inv[y]
	}
	keep := 8
	switch {
	case slices.Equal(img[n:2*n], img[:n]):
		copy(img[n:2*n], img[4*n:5*n])
		keep = 2
	case slices.Equal(img[2*n:3*n], img[:n]):
		copy(img[2*n:3*n], img[4*n:5*n])
		copy(img[3*n:4*n], img[6*n:7*n])
		keep = 4
	}
	if unique {
		best := 0
		for g := 1; g < keep; g++ {
			if slices.Compare(img[g*n:(g+1)*n], img[best*n:(best+1)*n]) < 0 {
				best = g
			}
		}
		copy(img[:n], img[best*n:(best+1)*n])
		keep = 1
	}
	return dst[:at+keep*n]
}
