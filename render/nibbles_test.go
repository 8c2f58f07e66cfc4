package render

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/nqueens/nqueens/solver"
)

// nibbleKey packs a solution of n ≤ 16 rows as WriteNibbles takes it: row r
// in bits 63-4r..60-4r, the rows beyond n zero.
func nibbleKey(cols []int) uint64 {
	var k uint64
	for r, c := range cols {
		k |= uint64(c) << (60 - 4*r)
	}
	return k
}

// TestWriteNibblesSameAsWrite checks that WriteNibbles writes what Write
// does, in every format, with and without pictures (whose Limit decides
// which solutions the Sink keeps), in calls of one key, a few, a thousand
// and all at once (formatted in parallel parts for N=16), mixed with Write.
func TestWriteNibblesSameAsWrite(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		// The parallel path needs two procs, not two cores.
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	}
	type variant struct {
		name     string
		pictures bool // SVGs of the kept solutions
		limit    int
	}
	variants := []variant{
		{"text", false, 0},
		{"text+svg/limit=3", true, 3},
		{"text+svg/limit=default", true, 0},
	}
	for _, n := range []int{1, 4, 5, 8, 11, 16} {
		limit := -1
		if n == 16 {
			limit = 20000
		}
		sols := firstSolutions(t, n, limit)
		keys := make([]uint64, len(sols))
		for i, cols := range sols {
			keys[i] = nibbleKey(cols)
		}
		for _, f := range formats {
			for _, v := range variants {
				if v.pictures && v.limit == 0 && len(sols) > DefaultLimit {
					// Drawing a thousand boards twice per chunk size
					// tells no more than limit=3 does.
					continue
				}
				open := func(out *bytes.Buffer) *Sink {
					t.Helper()
					opts := Options{N: n, Format: f, SolutionsPath: "-", Stdout: out, Limit: v.limit}
					if v.pictures {
						opts.SVGDir = t.TempDir()
					}
					s, err := Open(opts)
					if err != nil {
						t.Fatal(err)
					}
					return s
				}
				var want bytes.Buffer
				ref := open(&want)
				for _, cols := range sols {
					if err := ref.Write(cols); err != nil {
						t.Fatal(err)
					}
				}
				wantKept, wantWritten := slices.Clone(ref.kept), ref.written
				if err := ref.Close(uint64(len(sols))); err != nil {
					t.Fatal(err)
				}
				wantSVG := readDir(t, ref.opts.SVGDir)

				for _, chunk := range []int{1, 7, 1000, len(keys)} {
					name := fmt.Sprintf("n=%d/%s/%s/chunk=%d", n, f, v.name, chunk)
					var got bytes.Buffer
					s := open(&got)
					// The first solution through Write, so the counts of
					// the two paths have to add up.
					if err := s.Write(sols[0]); err != nil {
						t.Fatal(err)
					}
					for i := 1; i < len(keys); i += chunk {
						if err := s.WriteNibbles(keys[i:min(i+chunk, len(keys))]); err != nil {
							t.Fatalf("%s: WriteNibbles: %v", name, err)
						}
					}
					if chunk == len(keys) && f == Cols && !v.pictures && len(keys) >= 2*minPerFormatter && s.parts == nil {
						t.Errorf("%s: WriteNibbles(%d keys) did not format in parallel parts", name, len(keys)-1)
					}
					if got, want := s.written, wantWritten; got != want {
						t.Errorf("%s: written = %d, want %d", name, got, want)
					}
					if !slices.Equal(s.kept, wantKept) {
						t.Errorf("%s: kept %d columns, want the %d Write keeps", name, len(s.kept), len(wantKept))
					}
					if err := s.Close(uint64(len(sols))); err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(got.Bytes(), want.Bytes()) {
						t.Errorf("%s: WriteNibbles wrote %d bytes, Write %d; they differ at byte %d",
							name, got.Len(), want.Len(), firstDiff(got.Bytes(), want.Bytes()))
					}
					if got, want := readDir(t, s.opts.SVGDir), wantSVG; !maps.Equal(got, want) {
						t.Errorf("%s: %d SVG files, want the %d of Write, with the same bytes", name, len(got), len(want))
					}
				}
			}
		}
	}
}

// readDir returns the files of dir ("" for none) by name.
func readDir(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	if dir == "" {
		return files
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[e.Name()] = string(b)
	}
	return files
}

// firstDiff is the index of the first byte where a and b differ.
func firstDiff(a, b []byte) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return i
}

// TestWriteNibblesRejects checks that a key that is not a solution of the
// board, and a board too large for keys, are errors that name the solution,
// and that nothing of a rejected call is written.
func TestWriteNibblesRejects(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	}
	n4 := nibbleKey([]int{1, 3, 0, 2})
	many := func(count, bad int, key uint64) []uint64 {
		keys := make([]uint64, count)
		for i := range keys {
			keys[i] = n4
		}
		keys[bad] = key
		return keys
	}
	cases := []struct {
		name   string
		n      int
		format Format
		keys   []uint64
		want   string
	}{
		{"column 5 of n=4", 4, Cols, []uint64{n4, nibbleKey([]int{1, 4, 0, 2})},
			"solution 3: queen of row 2 is in column 5, outside 1..4"},
		{"column 16 of n=4", 4, Cols, []uint64{nibbleKey([]int{1, 3, 15, 2})},
			"solution 2: queen of row 3 is in column 16, outside 1..4"},
		{"row 5 of n=4", 4, Cols, []uint64{n4 | 1<<(60-4*4)},
			"solution 2: key 0x1302100000000000 has bits set below row 4"},
		{"last bit of n=4", 4, Cols, []uint64{n4 | 1},
			"solution 2: key 0x1302000000000001 has bits set below row 4"},
		{"low nibble of n=5's last byte", 5, Cols, []uint64{nibbleKey([]int{0, 2, 4, 1, 3}) | 1<<(60-4*5)},
			"solution 2: key 0x0241310000000000 has bits set below row 5"},
		{"column 2 of n=1", 1, Cols, []uint64{0, 1 << 60}, "solution 3: queen of row 1 is in column 2, outside 1..1"},
		{"n=17", 17, Cols, []uint64{0}, "n = 17 is too large"},
		{"n=17, no keys", 17, Cols, nil, "n = 17 is too large"},
		{"column 5 of n=4, coords", 4, Coords, []uint64{nibbleKey([]int{1, 4, 0, 2})},
			"solution 2: queen of row 2 is in column 5, outside 1..4"},
		{"the 7778th of 10000, in parallel parts", 4, Cols, many(10000, 7777, nibbleKey([]int{1, 4, 0, 2})),
			"solution 7779: queen of row 2 is in column 5, outside 1..4"},
		{"the 7778th of 10000, board", 4, Board, many(10000, 7777, nibbleKey([]int{1, 4, 0, 2})),
			"solution 7779: queen of row 2 is in column 5, outside 1..4"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out bytes.Buffer
			s, err := Open(Options{N: c.n, Format: c.format, SolutionsPath: "-", Stdout: &out})
			if err != nil {
				t.Fatal(err)
			}
			// One good Write first, so the error has to count it.
			good := make([]int, c.n)
			copy(good, []int{1, 3, 0, 2})
			if c.n == 1 {
				good = []int{0}
			}
			if c.n != 17 {
				if err := s.Write(good); err != nil {
					t.Fatal(err)
				}
			}
			before := out.Len() + s.text.Buffered()
			err = s.WriteNibbles(c.keys)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("WriteNibbles = %v, want an error containing %q", err, c.want)
			}
			if got, want := out.Len()+s.text.Buffered(), before; got != want {
				t.Errorf("after the rejected call %d bytes are written, want %d", got, want)
			}
			want := uint64(1) // the good solution
			if c.n == 17 {
				want = 0
			}
			if got := s.written; got != want {
				t.Errorf("after the rejected call written = %d, want %d", got, want)
			}
		})
	}
}

// TestWriteNibblesAfterClose checks that a Sink refuses keys once closed.
func TestWriteNibblesAfterClose(t *testing.T) {
	s, err := Open(Options{N: 4, SolutionsPath: "-", Stdout: &bytes.Buffer{}})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(0); err != nil {
		t.Fatal(err)
	}
	if err := s.WriteNibbles([]uint64{nibbleKey([]int{1, 3, 0, 2})}); err == nil {
		t.Error("WriteNibbles after Close = nil, want an error")
	}
}

func ExampleSink_WriteNibbles() {
	s, err := Open(Options{N: 4, SolutionsPath: "-", Stdout: os.Stdout})
	if err != nil {
		fmt.Println(err)
		return
	}
	// The two solutions of N=4, row 0 in the top nibble: columns 1 3 0 2
	// and 2 0 3 1, 0-based.
	if err := s.WriteNibbles([]uint64{0x1302 << 48, 0x2031 << 48}); err != nil {
		fmt.Println(err)
	}
	if err := s.Close(2); err != nil {
		fmt.Println(err)
	}
	// Output:
	// 2 4 1 3
	// 3 1 4 2
}

// benchN16 holds the first solutions of N=16 as keys and packed bytes, for
// the two benchmarks that compare WriteNibbles with WritePacked.
var benchN16 = sync.OnceValues(func() ([]uint64, []byte) {
	const count = 1 << 18
	keys := make([]uint64, 0, count)
	packed := make([]byte, 0, count*16)
	for cols := range solver.Solutions(16, nil) {
		if len(keys) == count {
			break
		}
		keys = append(keys, nibbleKey(cols))
		for _, c := range cols {
			packed = append(packed, byte(c))
		}
	}
	return keys, packed
})

// benchBlocks are the solutions per call of the N=16 benchmarks: below
// 2·minPerFormatter one goroutine formats, above it up to maxFormatters.
var benchBlocks = []int{1024, 16384}

// BenchmarkWriteNibbles measures the listing's text path for N=16 from
// keys: the cols format into a writer that discards.
func BenchmarkWriteNibbles(b *testing.B) {
	keys, _ := benchN16()
	for _, block := range benchBlocks {
		b.Run(fmt.Sprintf("block=%d", block), func(b *testing.B) {
			s, err := Open(Options{N: 16, SolutionsPath: "-", Stdout: discard{}})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				for i := 0; i < len(keys); i += block {
					if err := s.WriteNibbles(keys[i:min(i+block, len(keys))]); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(keys)), "ns/solution")
		})
	}
}

// BenchmarkWritePackedN16 is BenchmarkWriteNibbles through WritePacked, the
// same solutions packed a byte a row.
func BenchmarkWritePackedN16(b *testing.B) {
	_, packed := benchN16()
	const n = 16
	for _, block := range benchBlocks {
		b.Run(fmt.Sprintf("block=%d", block), func(b *testing.B) {
			s, err := Open(Options{N: n, SolutionsPath: "-", Stdout: discard{}})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				for i := 0; i < len(packed); i += block * n {
					if err := s.WritePacked(packed[i:min(i+block*n, len(packed))]); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(packed)/n), "ns/solution")
		})
	}
}
