package packed

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/nqueens/nqueens/solver"
)

func ExampleKey() {
	sol := Append(nil, []int{1, 3, 0, 2})
	key := Key(sol)
	fmt.Printf("%v %#016x %v\n", sol, key, UnpackKey(key, make([]byte, 4)))
	// Output: [1 3 0 2] 0x1302000000000000 [1 3 0 2]
}

// TestKeyOrder: keys order as the records they pack, for every solution
// of N=8 (what the bucket sort relies on), and every round trip holds.
func TestKeyOrder(t *testing.T) {
	var recs [][]byte
	for cols := range solver.Solutions(8, nil) {
		recs = append(recs, Append(nil, cols))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	rng.Shuffle(len(recs), func(i, j int) { recs[i], recs[j] = recs[j], recs[i] })
	for i := 1; i < len(recs); i++ {
		a, b := recs[i-1], recs[i]
		if got, want := cmpKeys(Key(a), Key(b)), bytes.Compare(a, b); got != want {
			t.Fatalf("keys of %v and %v compare %d, the records %d", a, b, got, want)
		}
	}
	for _, r := range recs {
		if got := UnpackKey(Key(r), make([]byte, len(r))); !bytes.Equal(got, r) {
			t.Fatalf("UnpackKey(Key(%v)) = %v", r, got)
		}
		cols := make([]int, len(r))
		KeyCols(Key(r), cols)
		back := make([]int, len(r))
		Unpack(back, r)
		if !slices.Equal(cols, back) {
			t.Fatalf("KeyCols(Key(%v)) = %v, Unpack = %v", r, cols, back)
		}
	}
}

func cmpKeys(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func TestKeyLayout(t *testing.T) {
	for _, tc := range []struct {
		sol []byte
		key uint64
	}{
		{[]byte{0}, 0},
		{[]byte{1, 3, 0, 2}, 0x1302 << 48},
		{[]byte{15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0}, 0xfedcba9876543210},
		{[]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, 0x0123456789abcdef},
	} {
		if got := Key(tc.sol); got != tc.key {
			t.Errorf("Key(%v) = %#x, want %#x", tc.sol, got, tc.key)
		}
	}
}

func TestBadColumn(t *testing.T) {
	good := Append(nil, []int{1, 3, 0, 2, 2, 0, 3, 1, 1, 3, 0, 2})
	if got := BadColumn(good, 4); got != -1 {
		t.Errorf("BadColumn(good) = %d, want -1", got)
	}
	for off := range good {
		for _, c := range []byte{4, 5, 0x7f, 0x80, 0xff} {
			bad := slices.Clone(good)
			bad[off] = c
			if got := BadColumn(bad, 4); got != off {
				t.Errorf("BadColumn with %d at %d = %d", c, off, got)
			}
		}
	}
	// The first of two bad bytes, in two 8-byte blocks.
	bad := slices.Clone(good)
	bad[10], bad[3] = 9, 9
	if got := BadColumn(bad, 4); got != 3 {
		t.Errorf("BadColumn with bad bytes at 3 and 10 = %d, want 3", got)
	}
}

func TestBadKey(t *testing.T) {
	for n := 1; n <= MaxKeyN; n++ {
		keys := make([]uint64, 200)
		rng := rand.New(rand.NewPCG(uint64(n), 3))
		for i := range keys {
			cols := make([]byte, n)
			for r := range cols {
				cols[r] = byte(rng.IntN(n))
			}
			keys[i] = Key(cols)
		}
		if got := BadKey(keys, n); got != -1 {
			t.Fatalf("n=%d: BadKey(good keys) = %d", n, got)
		}
		if n == MaxKeyN {
			continue
		}
		for _, at := range []int{0, 63, 64, 199} {
			bad := slices.Clone(keys)
			bad[at] |= 1 << (60 - 4*uint(n)) // a bit below row n-1
			if got := BadKey(bad, n); got != at {
				t.Errorf("n=%d: BadKey(tail bit at %d) = %d", n, at, got)
			}
			bad = slices.Clone(keys)
			bad[at] |= uint64(n) << 60 // row 0 in column n
			if got := BadKey(bad, n); got != at && n < 16 {
				t.Errorf("n=%d: BadKey(column n at %d) = %d", n, at, got)
			}
		}
	}
}

// FuzzRoundTrip: any record of at most MaxKeyN columns under 16 survives
// Key and UnpackKey; keys order as their records; BadColumn and BadKey
// agree with a plain scan.
func FuzzRoundTrip(f *testing.F) {
	f.Add([]byte{1, 3, 0, 2}, []byte{2, 0, 3, 1})
	f.Add([]byte{15, 0, 15}, []byte{15, 0, 14})
	f.Add([]byte{}, []byte{})
	f.Fuzz(func(t *testing.T, a, b []byte) {
		n := min(len(a), len(b), MaxKeyN)
		a, b = a[:n], b[:n]
		plain := -1
		for i, c := range a {
			if n > 0 && int(c) >= n && plain < 0 {
				plain = i
			}
		}
		if n > 0 {
			if got := BadColumn(a, n); got != plain {
				t.Fatalf("BadColumn(%v, %d) = %d, a plain scan %d", a, n, got, plain)
			}
		}
		for i := range a {
			a[i] &= 15
			b[i] &= 15
		}
		ka, kb := Key(a), Key(b)
		if got := UnpackKey(ka, make([]byte, n)); !bytes.Equal(got, a) {
			t.Fatalf("UnpackKey(Key(%v)) = %v", a, got)
		}
		if got, want := cmpKeys(ka, kb), bytes.Compare(a, b); got != want {
			t.Fatalf("keys of %v and %v compare %d, the records %d", a, b, got, want)
		}
		if n > 0 {
			inRange := true
			for _, c := range a {
				inRange = inRange && int(c) < n
			}
			if got := BadKey([]uint64{ka}, n); (got == -1) != inRange {
				t.Fatalf("BadKey(Key(%v), %d) = %d, columns in range: %v", a, n, got, inRange)
			}
		}
		cols := make([]int, n)
		Unpack(cols, a)
		if got := Append(nil, cols); !bytes.Equal(got, a) {
			t.Fatalf("Append(Unpack(%v)) = %v", a, got)
		}
	})
}

// TestAppendClassKeys: the keys are the packed images of
// solver.AppendClass, in its order, for every representative of N=1..12
// and the first of N=16 (where a key has no padding).
func TestAppendClassKeys(t *testing.T) {
	for _, n := range []int{1, 4, 5, 6, 7, 8, 9, 10, 11, 12, 16} {
		count := 0
		solver.ListTask(n, solver.Task{}, func(cols []int) bool {
			rep := Append(nil, cols)
			for _, unique := range []bool{false, true} {
				sols := solver.AppendClass(nil, rep, unique)
				keys := AppendClassKeys(nil, rep, unique)
				if len(keys) != len(sols)/n {
					t.Fatalf("%v unique=%v: %d keys for %d images", rep, unique, len(keys), len(sols)/n)
				}
				for k, key := range keys {
					if want := Key(sols[k*n : (k+1)*n]); key != want {
						t.Fatalf("%v unique=%v: key %d = %#x, want %#x", rep, unique, k, key, want)
					}
				}
			}
			count++
			return count < 3000
		})
		if count == 0 && n != 2 && n != 3 {
			t.Fatalf("n=%d: no representatives", n)
		}
	}
}

func BenchmarkAppendClassKeys(b *testing.B) {
	var reps [][]byte
	for cols := range solver.UniqueSolutions(16, []int{0, 2}) {
		reps = append(reps, Append(nil, cols))
		if len(reps) == 4096 {
			break
		}
	}
	dst := make([]uint64, 0, 8)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		dst = AppendClassKeys(dst[:0], reps[i%len(reps)], false)
	}
}
