package render

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/nqueens/nqueens/solver"
)

// TestWritePackedSameAsWrite checks that WritePacked writes the bytes that
// Write does, solution by solution, in every format, for N=8 and N=10
// (two-digit columns).
func TestWritePackedSameAsWrite(t *testing.T) {
	for _, n := range []int{1, 8, 9, 10, 12, 13} {
		var packed []byte
		var all [][]int
		for cols := range solver.Solutions(n, nil) {
			all = append(all, append([]int(nil), cols...))
			for _, c := range cols {
				packed = append(packed, byte(c))
			}
		}
		for _, f := range formats {
			var one, many bytes.Buffer
			a, err := Open(Options{N: n, Format: f, SolutionsPath: "-", Stdout: &one})
			if err != nil {
				t.Fatal(err)
			}
			for _, cols := range all {
				if err := a.Write(cols); err != nil {
					t.Fatal(err)
				}
			}
			if err := a.Close(uint64(len(all))); err != nil {
				t.Fatal(err)
			}
			b, err := Open(Options{N: n, Format: f, SolutionsPath: "-", Stdout: &many})
			if err != nil {
				t.Fatal(err)
			}
			// Uneven pieces, as a publisher's blocks would be; for N=12
			// and 13 one block, formatted in parallel parts.
			piece := 3 * n
			if n >= 12 {
				piece = len(packed)
			}
			for i := 0; i < len(packed); {
				j := min(i+piece, len(packed))
				if err := b.WritePacked(packed[i:j]); err != nil {
					t.Fatal(err)
				}
				i = j
			}
			if err := b.Close(uint64(len(all))); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(one.Bytes(), many.Bytes()) {
				t.Errorf("n=%d %s: WritePacked wrote %d bytes, Write %d; they differ", n, f, many.Len(), one.Len())
			}
		}
	}
}

// TestWritePackedRejects checks that a column out of range is an error.
func TestWritePackedRejects(t *testing.T) {
	var out bytes.Buffer
	s, err := Open(Options{N: 4, SolutionsPath: "-", Stdout: &out})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.WritePacked([]byte{1, 3, 0, 4}); err == nil {
		t.Error("WritePacked(column 4 of n=4) = nil, want an error")
	}
	big := make([]byte, 4*10000)
	for i := 0; i < len(big); i += 4 {
		copy(big[i:], []byte{1, 3, 0, 2})
	}
	big[4*7777+2] = 9
	err = s.WritePacked(big)
	if err == nil || !strings.Contains(err.Error(), "solution 7778:") {
		t.Errorf("WritePacked(10000 solutions, the 7778th bad) = %v, want an error naming solution 7778", err)
	}
	if err := s.WritePacked([]byte{1, 3, 0}); err == nil {
		t.Error("WritePacked(3 bytes of n=4) = nil, want an error")
	}
}

// BenchmarkWritePacked measures the listing's text path: N=14's solutions,
// packed, formatted in the cols format into io.Discard.
func BenchmarkWritePacked(b *testing.B) {
	const n = 14
	var packed []byte
	for cols := range solver.Solutions(n, nil) {
		for _, c := range cols {
			packed = append(packed, byte(c))
		}
	}
	lines := len(packed) / n
	s, err := Open(Options{N: n, SolutionsPath: "-", Stdout: io.Discard})
	if err != nil {
		b.Fatal(err)
	}
	block := 256 << 10 / n * n
	for b.Loop() {
		for i := 0; i < len(packed); i += block {
			if err := s.WritePacked(packed[i:min(i+block, len(packed))]); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*lines), "ns/line")
}
