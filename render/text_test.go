package render

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nqueens/nqueens/solver"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// firstSolutions returns up to limit solutions of n (all when limit < 0), copied.
func firstSolutions(t testing.TB, n, limit int) [][]int {
	t.Helper()
	var out [][]int
	for cols := range solver.Solutions(n, nil) {
		if limit >= 0 && len(out) == limit {
			break
		}
		out = append(out, append([]int(nil), cols...))
	}
	return out
}

// golden compares got with testdata/name, or rewrites the file with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./render -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file:\n got:\n%s\nwant:\n%s", name, got, want)
	}
}

func TestTextGolden(t *testing.T) {
	cases := []struct {
		n, limit int
		name     string
	}{
		{4, -1, "n4"},
		{6, -1, "n6"},
		{8, 3, "n8-first3"},
	}
	for _, f := range formats {
		for _, c := range cases {
			t.Run(string(f)+"-"+c.name, func(t *testing.T) {
				sols := firstSolutions(t, c.n, c.limit)
				var viaSink, viaWrite bytes.Buffer
				s, err := Open(Options{N: c.n, Format: f, SolutionsPath: "-", Stdout: &viaSink})
				if err != nil {
					t.Fatal(err)
				}
				for _, cols := range sols {
					if err := s.Write(cols); err != nil {
						t.Fatal(err)
					}
					if err := WriteText(&viaWrite, f, cols); err != nil {
						t.Fatal(err)
					}
				}
				if err := s.Close(uint64(len(sols))); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(viaSink.Bytes(), viaWrite.Bytes()) {
					t.Errorf("Sink and WriteText disagree:\n%s\n%s", viaSink.Bytes(), viaWrite.Bytes())
				}
				golden(t, fmt.Sprintf("%s-%s.txt", f, c.name), viaSink.Bytes())
			})
		}
	}
}

func TestWriteTextN8First(t *testing.T) {
	cols := []int{0, 4, 7, 5, 2, 6, 1, 3}
	tests := []struct {
		f    Format
		want string
	}{
		{Cols, "1 5 8 6 3 7 2 4\n"},
		{Coords, "(1,1) (2,5) (3,8) (4,6) (5,3) (6,7) (7,2) (8,4)\n"},
	}
	for _, tt := range tests {
		var b bytes.Buffer
		if err := WriteText(&b, tt.f, cols); err != nil {
			t.Fatal(err)
		}
		if b.String() != tt.want {
			t.Errorf("WriteText(%s) = %q, want %q", tt.f, b.String(), tt.want)
		}
	}
}

func TestParseFormat(t *testing.T) {
	for _, f := range formats {
		got, err := ParseFormat(string(f))
		if err != nil || got != f {
			t.Errorf("ParseFormat(%q) = %q, %v, want %q, nil", f, got, err, f)
		}
	}
	for _, s := range []string{"", "COLS", "csv", "board "} {
		_, err := ParseFormat(s)
		if err == nil || !strings.Contains(err.Error(), "cols, coords, matrix, board") {
			t.Errorf("ParseFormat(%q) error = %v, want one naming the formats", s, err)
		}
	}
}

func FuzzParseFormat(f *testing.F) {
	for _, s := range []string{"cols", "coords", "matrix", "board", "", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseFormat(s)
		if err != nil {
			if got != "" {
				t.Errorf("ParseFormat(%q) = %q with error %v", s, got, err)
			}
			return
		}
		if string(got) != s {
			t.Errorf("ParseFormat(%q) = %q", s, got)
		}
		if err := checkText(got, 4); err != nil {
			t.Errorf("parsed format %q is not printable: %v", got, err)
		}
	})
}

func TestWriteTextRejectsBadInput(t *testing.T) {
	tests := []struct {
		f    Format
		cols []int
		want string
	}{
		{"csv", []int{0}, "unknown format"},
		{Cols, []int{0, 4}, "column 5, outside 1..2"},
		{Cols, []int{-1}, "column 0, outside 1..1"},
		{Board, make([]int, maxGridN+1), "too large"},
	}
	for _, tt := range tests {
		err := WriteText(&bytes.Buffer{}, tt.f, tt.cols)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("WriteText(%s, %v...) error = %v, want %q", tt.f, tt.cols[:1], err, tt.want)
		}
	}
}

func TestMillionQueensCols(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	const n = 1_000_000
	cols, err := solver.Constructive(n)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "one.txt")
	s, err := Open(Options{N: n, SolutionsPath: path})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Write(cols); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(1); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fields := strings.Fields(string(b))
	if len(fields) != n || b[len(b)-1] != '\n' || fields[0] != fmt.Sprint(cols[0]+1) || fields[n-1] != fmt.Sprint(cols[n-1]+1) {
		t.Errorf("million-queen cols: %d fields, want %d, ending in a newline", len(fields), n)
	}
}

func ExampleWriteText() {
	cols := []int{1, 3, 0, 2} // 0-based columns of rows 1..4
	for _, f := range formats {
		WriteText(os.Stdout, f, cols)
	}
	// Output:
	// 2 4 1 3
	// (1,2) (2,4) (3,1) (4,3)
	// 0 1 0 0
	// 0 0 0 1
	// 1 0 0 0
	// 0 0 1 0
	//
	// . Q . .
	// . . . Q
	// Q . . .
	// . . Q .
}

func BenchmarkSinkCols(b *testing.B) {
	sols := firstSolutions(b, 16, 10000)
	s, err := Open(Options{N: 16, SolutionsPath: "-", Stdout: discard{}})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := s.Write(sols[i%len(sols)]); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	s.Close(uint64(b.N))
}

func BenchmarkMillionQueensCols(b *testing.B) {
	cols, err := solver.Constructive(1_000_000)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		s, err := Open(Options{N: len(cols), SolutionsPath: "-", Stdout: discard{}})
		if err != nil {
			b.Fatal(err)
		}
		if err := s.Write(cols); err != nil {
			b.Fatal(err)
		}
		s.Close(1)
	}
}

// discard is io.Discard without its ReadFrom, so bufio really writes.
type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

func ExampleOpen() {
	s, err := Open(Options{N: 6, Format: Coords, SolutionsPath: "-", Stdout: os.Stdout})
	if err != nil {
		fmt.Println(err)
		return
	}
	var total uint64
	for cols := range solver.Solutions(6, nil) {
		if err := s.Write(cols); err != nil {
			fmt.Println(err)
			return
		}
		total++
	}
	if err := s.Close(total); err != nil {
		fmt.Println(err)
	}
	// Output:
	// (1,2) (2,4) (3,6) (4,1) (5,3) (6,5)
	// (1,3) (2,6) (3,2) (4,5) (5,1) (6,4)
	// (1,4) (2,1) (3,5) (4,2) (5,6) (6,3)
	// (1,5) (2,3) (3,1) (4,6) (5,4) (6,2)
}

// BenchmarkEnumerate compares listing every solution with the solver alone
// ("count") and through a Sink into a file in cols ("cols-file"): the
// difference is what the text output costs. Run one size with e.g.
// go test ./render -run XXX -bench 'Enumerate/n=16' -benchtime 1x.
func BenchmarkEnumerate(b *testing.B) {
	for _, n := range []int{12, 14, 16} {
		b.Run(fmt.Sprintf("n=%d/count", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				k := 0
				for range solver.Solutions(n, nil) {
					k++
				}
				b.ReportMetric(float64(k), "solutions")
			}
		})
		b.Run(fmt.Sprintf("n=%d/cols-file", n), func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "s.txt")
			for i := 0; i < b.N; i++ {
				s, err := Open(Options{N: n, SolutionsPath: path})
				if err != nil {
					b.Fatal(err)
				}
				k := 0
				for cols := range solver.Solutions(n, nil) {
					if err := s.Write(cols); err != nil {
						b.Fatal(err)
					}
					k++
				}
				if err := s.Close(uint64(k)); err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(k), "solutions")
			}
		})
	}
}
