package render

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nqueens/nqueens/solver"
)

func rgba(c color.Color) color.RGBA {
	r, g, b, a := c.RGBA()
	return color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), uint8(a >> 8)}
}

// checkBoard probes the centre of every square of a board drawn at the
// centres given by at: queens must be the queen colour, the rest a square colour.
func checkBoard(t *testing.T, img image.Image, cols []int, at func(r, c int) image.Point) {
	t.Helper()
	n := len(cols)
	bad := 0
	for r := range n {
		for c := range n {
			got := rgba(img.At(at(r, c).X, at(r, c).Y))
			want := colors.Light
			if (r+c)%2 == 1 {
				want = colors.Dark
			}
			if cols[r] == c {
				want = colors.Queen
			}
			if got != want {
				if bad++; bad <= 5 {
					t.Errorf("N=%d square (%d,%d) centre %v = %v, want %v", n, r, c, at(r, c), got, want)
				}
			}
		}
	}
}

// inkBelow reports whether the caption band holds text-coloured pixels.
func inkBelow(img image.Image, y0 int) bool {
	b := img.Bounds()
	for y := y0; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if c := rgba(img.At(x, y)); c.R < 0x80 && c.G < 0x80 && c.B < 0x80 {
				return true
			}
		}
	}
	return false
}

func solutionOf(t testing.TB, n int) []int {
	t.Helper()
	if n <= 12 {
		return firstSolutions(t, n, 1)[0]
	}
	cols, err := solver.Constructive(n)
	if err != nil {
		t.Fatal(err)
	}
	return cols
}

func TestPNG(t *testing.T) {
	for _, n := range []int{1, 4, 5, 8, 12, 13, 100, 256, 300, 1000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			cols := solutionOf(t, n)
			var buf bytes.Buffer
			if err := writePNG(&buf, cols, boardCaption(n, 1, 1, false), NoLabels); err != nil {
				t.Fatal(err)
			}
			img, err := png.Decode(&buf)
			if err != nil {
				t.Fatal(err)
			}
			g := layout(n)
			cell := min(max(512/n, 1), 64)
			wantW, wantH := max(n*cell+32, 320), n*cell+16+36
			if b := img.Bounds(); b.Dx() != wantW || b.Dy() != wantH || g.Width != wantW || g.Height != wantH {
				t.Errorf("N=%d: png is %dx%d, layout %dx%d, want %dx%d", n, b.Dx(), b.Dy(), g.Width, g.Height, wantW, wantH)
			}
			checkBoard(t, img, cols, g.squareCenter)
			if !inkBelow(img, g.Y0+n*g.Cell+3) {
				t.Errorf("N=%d: caption band is blank", n)
			}
		})
	}
}

func TestPNGRefusesHugeBoards(t *testing.T) {
	err := writePNG(io.Discard, make([]int, maxPNGN+1), "x", NoLabels)
	if err == nil || !strings.Contains(err.Error(), "4096") {
		t.Errorf("writePNG(N=%d) error = %v, want one naming the limit", maxPNGN+1, err)
	}
}

// svgDoc is what the tests read back from an SVG.
type svgDoc struct {
	Width  int    `xml:"width,attr"`
	Height int    `xml:"height,attr"`
	Title  string `xml:"title"`
	Uses   []struct {
		Class string `xml:"class,attr"`
		X     int    `xml:"x,attr"`
		Y     int    `xml:"y,attr"`
	} `xml:"g>use"`
	Text string `xml:"text"`
}

func TestSVG(t *testing.T) {
	for _, n := range []int{1, 8, 30, 1000, 100_000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			cols := solutionOf(t, n)
			caption := boardCaption(n, 3, 12, true) + " <&>"
			var buf bytes.Buffer
			if err := writeSVG(&buf, cols, caption, NoLabels); err != nil {
				t.Fatal(err)
			}
			var doc svgDoc
			if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
				t.Fatal(err)
			}
			g := layout(n)
			if doc.Width != g.Width || doc.Height != g.Height {
				t.Errorf("svg is %dx%d, want %dx%d", doc.Width, doc.Height, g.Width, g.Height)
			}
			queens := 0
			for _, u := range doc.Uses {
				if u.Class == "queen" {
					r, c := (u.Y-g.Y0)/g.Cell, (u.X-g.X0)/g.Cell
					if r < 0 || r >= n || cols[r] != c {
						t.Errorf("queen at (%d,%d) is not in the solution", r, c)
					}
					queens++
				}
			}
			if queens != n {
				t.Errorf("svg has %d queens, want %d", queens, n)
			}
			if doc.Text != caption || doc.Title != caption {
				t.Errorf("caption = %q, title %q, want %q", doc.Text, doc.Title, caption)
			}
		})
	}
	if err := writeSVG(io.Discard, make([]int, maxSVGN+1), "x", NoLabels); err == nil {
		t.Errorf("writeSVG(N=%d) succeeded, want an error", maxSVGN+1)
	}
}

func TestSheetN8Holds92Boards(t *testing.T) {
	boards := firstSolutions(t, 8, -1)
	var buf bytes.Buffer
	if err := writeSheet(&buf, 8, boards, sheetTitle(8, 92, 92, false), NoLabels); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	g := sheetLayout(8, 92, NoLabels)
	if g.Columns != 10 || g.Rows != 10 {
		t.Errorf("sheet grid %dx%d, want 10x10", g.Columns, g.Rows)
	}
	if b := img.Bounds(); b.Dx() != g.Width || b.Dy() != g.Height {
		t.Errorf("sheet is %dx%d, layout says %dx%d", b.Dx(), b.Dy(), g.Width, g.Height)
	}
	for i, cols := range boards {
		checkBoard(t, img, cols, func(r, c int) image.Point { return g.squareCenter(i, r, c) })
	}
	// The 93rd slot is empty: background, not a board.
	if got := rgba(img.At(g.squareCenter(92, 0, 0).X, g.squareCenter(92, 0, 0).Y)); got != colors.Background {
		t.Errorf("slot 93 = %v, want background %v", got, colors.Background)
	}
	if !inkBelow(img.(interface {
		SubImage(image.Rectangle) image.Image
	}).SubImage(image.Rect(0, 0, g.Width, sheetTitleBand)), 0) {
		t.Errorf("sheet title is blank")
	}
}

func TestSinkPictures(t *testing.T) {
	dir := t.TempDir()
	pngDir, svgDir, sheet := filepath.Join(dir, "png"), filepath.Join(dir, "svg"), filepath.Join(dir, "sheet.png")
	s, err := Open(Options{N: 8, PNGDir: pngDir, SVGDir: svgDir, SheetPath: sheet, Limit: 5, Unique: true})
	if err != nil {
		t.Fatal(err)
	}
	var sols [][]int
	for cols := range solver.UniqueSolutions(8, nil) {
		sols = append(sols, append([]int(nil), cols...))
		if err := s.Write(cols); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(uint64(len(sols))); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{pngDir, svgDir} {
		entries, err := os.ReadDir(d)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		ext := filepath.Base(d)
		want := fmt.Sprintf("solution-0001.%[1]s solution-0002.%[1]s solution-0003.%[1]s solution-0004.%[1]s solution-0005.%[1]s", ext)
		if got := strings.Join(names, " "); got != want {
			t.Errorf("%s holds %s, want %s", d, got, want)
		}
	}
	b, err := os.ReadFile(filepath.Join(svgDir, "solution-0003.svg"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "N=8 · fundamental solution 3 of 12") {
		t.Errorf("solution-0003.svg lacks its caption")
	}
	f, err := os.Open(filepath.Join(pngDir, "solution-0004.png"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	checkBoard(t, img, sols[3], layout(8).squareCenter)

	f2, err := os.Open(sheet)
	if err != nil {
		t.Fatal(err)
	}
	defer f2.Close()
	cfg, err := png.DecodeConfig(f2)
	if err != nil {
		t.Fatal(err)
	}
	if g := sheetLayout(8, 5, NoLabels); cfg.Width != g.Width || cfg.Height != g.Height {
		t.Errorf("sheet of 5 is %dx%d, want %dx%d", cfg.Width, cfg.Height, g.Width, g.Height)
	}
}

func TestFileName(t *testing.T) {
	tests := []struct {
		i, total uint64
		want     string
	}{
		{17, 92, "solution-0017"},
		{1, 1, "solution-0001"},
		{17, 14200, "solution-00017"},
		{3, 14772512, "solution-00000003"},
	}
	for _, tt := range tests {
		if got := fileName(tt.i, tt.total); got != tt.want {
			t.Errorf("fileName(%d, %d) = %q, want %q", tt.i, tt.total, got, tt.want)
		}
	}
}

func TestOpenRejectsBadOptions(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "plain")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		opts Options
		want string
	}{
		{"unknown format", Options{N: 8, Format: "csv", SolutionsPath: "-"}, `unknown format "csv"`},
		{"zero n", Options{N: 0}, "n = 0"},
		{"negative limit", Options{N: 8, Limit: -1}, "limit = -1"},
		{"huge limit", Options{N: 8, Limit: maxLimit + 1}, "limit = 100001"},
		{"png dir under a file", Options{N: 8, PNGDir: filepath.Join(file, "png")}, "not a directory"},
		{"svg dir under a file", Options{N: 8, SVGDir: filepath.Join(file, "svg")}, "not a directory"},
		{"sheet in a missing folder", Options{N: 8, SheetPath: filepath.Join(dir, "missing", "s.png")}, "not writable"},
		{"solutions in a missing folder", Options{N: 8, SolutionsPath: filepath.Join(dir, "missing", "s.txt")}, "no such file"},
		{"png too large", Options{N: maxPNGN + 1, PNGDir: dir}, "png: n = 4097 is too large"},
		{"svg too large", Options{N: maxSVGN + 1, SVGDir: dir}, "svg: n = 100001 is too large"},
		{"board too large", Options{N: maxGridN + 1, Format: Board, SolutionsPath: "-"}, "format board: n = 1001 is too large"},
	}
	for _, tt := range tests {
		_, err := Open(tt.opts)
		if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: Open error = %v, want one line containing %q", tt.name, err, tt.want)
		}
	}
}

func TestSinkRejectsBadSolutions(t *testing.T) {
	s, err := Open(Options{N: 4, SolutionsPath: "-", Stdout: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Write([]int{1, 3, 0}); err == nil || !strings.Contains(err.Error(), "3 queens, want 4") {
		t.Errorf("Write(3 queens) error = %v", err)
	}
	if err := s.Close(0); err != nil {
		t.Fatal(err)
	}
	if err := s.Write([]int{1, 3, 0, 2}); err == nil {
		t.Errorf("Write after Close succeeded")
	}
}

func BenchmarkPNGN8(b *testing.B) {
	cols := []int{0, 4, 7, 5, 2, 6, 1, 3}
	p := newPNGBoard(8, NoLabels)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if err := p.encode(io.Discard, cols, boardCaption(8, 1, 92, false)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSinkPNG100(b *testing.B) {
	sols := firstSolutions(b, 8, 100)
	for i := 0; i < b.N; i++ {
		s, err := Open(Options{N: 8, PNGDir: b.TempDir()})
		if err != nil {
			b.Fatal(err)
		}
		for _, cols := range sols {
			s.Write(cols)
		}
		if err := s.Close(92); err != nil {
			b.Fatal(err)
		}
	}
}

func TestSVGGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := writeSVG(&buf, []int{1, 3, 0, 2}, boardCaption(4, 1, 2, false), NoLabels); err != nil {
		t.Fatal(err)
	}
	golden(t, "n4-solution-1.svg", buf.Bytes())
}

func TestSheetFit(t *testing.T) {
	if got := sheetFit(8, 92, NoLabels); got != 92 {
		t.Errorf("sheetFit(8, 92, NoLabels) = %d, want 92", got)
	}
	got := sheetFit(8, maxLimit, NoLabels)
	if got >= maxLimit || got < 1000 {
		t.Fatalf("sheetFit(8, %d) = %d, want fewer, but at least 1000", maxLimit, got)
	}
	for _, c := range []int{got, got + 1} {
		g := sheetLayout(8, c, NoLabels)
		fits := int64(g.Width)*int64(g.Height) <= maxSheetPixels
		if fits != (c == got) {
			t.Errorf("sheetLayout(8, %d) is %dx%d: fits = %v", c, g.Width, g.Height, fits)
		}
	}
}
