package render

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// inkIn reports whether r holds a text-coloured (dark) pixel: the squares,
// the frame's edges and the background are all lighter or browner.
func inkIn(img image.Image, r image.Rectangle) bool {
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if c := rgba(img.At(x, y)); c.R < 0x60 && c.G < 0x60 && c.B < 0x60 {
				return true
			}
		}
	}
	return false
}

// rankBox is the band left of row r, where its label goes; fileBox the
// band under column c.
func rankBox(g geometry, r int) image.Rectangle {
	return image.Rect(g.X0-g.Lab.Band, g.Y0+r*g.Cell, g.X0-2, g.Y0+(r+1)*g.Cell)
}

func fileBox(g geometry, c int) image.Rectangle {
	side := g.N * g.Cell
	return image.Rect(g.X0+c*g.Cell, g.Y0+side+2, g.X0+(c+1)*g.Cell, g.Y0+side+g.Lab.Foot)
}

func decodePNG(t *testing.T, b []byte) image.Image {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return img
}

func TestLabelledPNG(t *testing.T) {
	for _, tt := range []struct {
		n    int
		mode Labels
	}{{8, LetterLabels}, {8, NumberLabels}, {8, ChessLabels}, {26, LetterLabels}, {30, LetterLabels}, {100, NumberLabels}, {100, ChessLabels}} {
		t.Run(fmt.Sprintf("%d-%v", tt.n, tt.mode), func(t *testing.T) {
			cols := solutionOf(t, tt.n)
			var buf, plainBuf bytes.Buffer
			if err := writePNG(&buf, cols, boardCaption(tt.n, 1, 1, false), tt.mode); err != nil {
				t.Fatal(err)
			}
			if err := writePNG(&plainBuf, cols, boardCaption(tt.n, 1, 1, false), NoLabels); err != nil {
				t.Fatal(err)
			}
			img, plain := decodePNG(t, buf.Bytes()), decodePNG(t, plainBuf.Bytes())
			g := labelledLayout(tt.n, tt.mode)
			if b := img.Bounds(); b.Dx() != g.Width || b.Dy() != g.Height {
				t.Fatalf("png is %dx%d, layout says %dx%d", b.Dx(), b.Dy(), g.Width, g.Height)
			}
			if tt.n <= 26 && g.Lab.Step != 1 {
				t.Errorf("N=%d: labels every %d squares, want every square", tt.n, g.Lab.Step)
			}
			checkBoard(t, img, cols, g.squareCenter)
			// Every shown label has ink in its square's band. With a label
			// per square, every band does; with a stride, labels are wider
			// than a square and spill into their neighbours' bands.
			for i := range tt.n {
				if !g.Lab.shown(i) {
					continue
				}
				if row := rank(tt.mode, tt.n, i); !inkIn(img, rankBox(g, row)) {
					t.Errorf("rank %d band (row %d) has no ink", i+1, row+1)
				}
				if !inkIn(img, fileBox(g, i)) {
					t.Errorf("file %d band has no ink", i+1)
				}
			}
			if tt.n >= 100 && g.Lab.Step == 1 {
				t.Errorf("N=%d: a label on each of %d pixel squares", tt.n, g.Cell)
			}
			// The plain picture has nothing left of its board.
			pg := layout(tt.n)
			if inkIn(plain, image.Rect(0, pg.Y0, pg.X0-2, pg.Y0+tt.n*pg.Cell)) {
				t.Errorf("the unlabelled picture has ink left of its board")
			}
			if !inkBelow(img, g.Y0+tt.n*g.Cell+g.Lab.Foot+3) {
				t.Errorf("caption band is blank")
			}
		})
	}
}

func TestLetterAndNumberFilesDiffer(t *testing.T) {
	cols := solutionOf(t, 8)
	var a, b bytes.Buffer
	if err := writePNG(&a, cols, "x", LetterLabels); err != nil {
		t.Fatal(err)
	}
	if err := writePNG(&b, cols, "x", NumberLabels); err != nil {
		t.Fatal(err)
	}
	ia, ib := decodePNG(t, a.Bytes()), decodePNG(t, b.Bytes())
	g := labelledLayout(8, LetterLabels)
	if gb := labelledLayout(8, NumberLabels); gb.Lab.Band != g.Lab.Band || gb.Width != g.Width || gb.Height != g.Height {
		t.Fatalf("letter and number layouts differ at N=8: %+v, %+v", g, gb)
	}
	for c := range 8 {
		box, same := fileBox(g, c), true
		for y := box.Min.Y; y < box.Max.Y && same; y++ {
			for x := box.Min.X; x < box.Max.X; x++ {
				if rgba(ia.At(x, y)) != rgba(ib.At(x, y)) {
					same = false
					break
				}
			}
		}
		if same {
			t.Errorf("file %d: the letter and the number label look the same", c+1)
		}
	}
	if !bytes.Equal(rankPixels(ia, g), rankPixels(ib, g)) {
		t.Errorf("rank labels differ between letters and numbers")
	}
}

// rankPixels is the colours of the rank band, row by row.
func rankPixels(img image.Image, g geometry) []byte {
	var out []byte
	for r := range g.N {
		box := rankBox(g, r)
		for y := box.Min.Y; y < box.Max.Y; y++ {
			for x := box.Min.X; x < box.Max.X; x++ {
				c := rgba(img.At(x, y))
				out = append(out, c.R, c.G, c.B)
			}
		}
	}
	return out
}

// svgLabels is what the tests read back of an SVG's labels.
type svgLabels struct {
	Groups []struct {
		Class string `xml:"class,attr"`
		Texts []struct {
			X    int    `xml:"x,attr"`
			Y    int    `xml:"y,attr"`
			Text string `xml:",chardata"`
		} `xml:"text"`
	} `xml:"g"`
	Text string `xml:"text"`
}

func TestLabelledSVG(t *testing.T) {
	cols := solutionOf(t, 8)
	var buf bytes.Buffer
	caption := boardCaption(8, 1, 92, false)
	if err := writeSVG(&buf, cols, caption, LetterLabels); err != nil {
		t.Fatal(err)
	}
	golden(t, "n8-solution-1-labels.svg", buf.Bytes())
	var doc svgLabels
	if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, grp := range doc.Groups {
		if grp.Class == "labels" {
			for _, tx := range grp.Texts {
				got = append(got, tx.Text)
			}
		}
	}
	if want := "1 2 3 4 5 6 7 8 a b c d e f g h"; strings.Join(got, " ") != want {
		t.Errorf("svg labels = %q, want %q", strings.Join(got, " "), want)
	}
	if doc.Text != caption {
		t.Errorf("caption = %q, want %q", doc.Text, caption)
	}
	var plain bytes.Buffer
	if err := writeSVG(&plain, cols, caption, NoLabels); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(plain.Bytes(), []byte("labels")) {
		t.Errorf("an unlabelled SVG has labels")
	}
}

// goldenPNG compares the pixels of a PNG with testdata/name: pixels, not
// bytes, so a change in the PNG encoder's compression does not matter.
func goldenPNG(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./render -update to create it)", err)
	}
	gi, wi := decodePNG(t, got), decodePNG(t, b)
	if gi.Bounds() != wi.Bounds() {
		t.Fatalf("%s: picture is %v, golden %v", name, gi.Bounds(), wi.Bounds())
	}
	bad := 0
	for y := gi.Bounds().Min.Y; y < gi.Bounds().Max.Y; y++ {
		for x := gi.Bounds().Min.X; x < gi.Bounds().Max.X; x++ {
			if rgba(gi.At(x, y)) != rgba(wi.At(x, y)) {
				bad++
			}
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d pixels differ from the golden picture", name, bad)
	}
}

func TestLabelledGoldenPictures(t *testing.T) {
	sols := firstSolutions(t, 8, 4)
	var buf bytes.Buffer
	if err := writePNG(&buf, sols[0], boardCaption(8, 1, 92, false), LetterLabels); err != nil {
		t.Fatal(err)
	}
	goldenPNG(t, "n8-solution-1-labels.png", buf.Bytes())

	buf.Reset()
	if err := writeSheet(&buf, 8, sols, sheetTitle(8, 4, 92, false), LetterLabels); err != nil {
		t.Fatal(err)
	}
	goldenPNG(t, "n8-sheet-first4-labels.png", buf.Bytes())
	img := decodePNG(t, buf.Bytes())
	g := sheetLayout(8, 4, LetterLabels)
	for i, cols := range sols {
		checkBoard(t, img, cols, func(r, c int) image.Point { return g.squareCenter(i, r, c) })
		at := g.board(i)
		bg := geometry{N: 8, Cell: g.Cell, X0: at.X, Y0: at.Y, Lab: g.Lab}
		for k := range 8 {
			if !inkIn(img, rankBox(bg, k)) || !inkIn(img, fileBox(bg, k)) {
				t.Errorf("sheet board %d: rank or file %d has no label", i+1, k+1)
			}
		}
	}
}

func TestSinkLabels(t *testing.T) {
	dir := t.TempDir()
	var text, plainText bytes.Buffer
	sols := firstSolutions(t, 4, -1)
	for _, o := range []Options{
		{N: 4, SolutionsPath: "-", Stdout: &text, Format: Board, PNGDir: filepath.Join(dir, "png"),
			SVGDir: filepath.Join(dir, "svg"), SheetPath: filepath.Join(dir, "sheet.png"), Labels: NumberLabels},
		{N: 4, SolutionsPath: "-", Stdout: &plainText, Format: Board},
	} {
		s, err := Open(o)
		if err != nil {
			t.Fatal(err)
		}
		for _, cols := range sols {
			if err := s.Write(cols); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Close(2); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(text.Bytes(), plainText.Bytes()) {
		t.Errorf("labels changed the text output:\n%s\nwant\n%s", text.Bytes(), plainText.Bytes())
	}
	b, err := os.ReadFile(filepath.Join(dir, "png", "solution-0002.png"))
	if err != nil {
		t.Fatal(err)
	}
	img, g := decodePNG(t, b), labelledLayout(4, NumberLabels)
	checkBoard(t, img, sols[1], g.squareCenter)
	if !inkIn(img, fileBox(g, 3)) {
		t.Errorf("solution-0002.png has no label under file 4")
	}
	svg, err := os.ReadFile(filepath.Join(dir, "svg", "solution-0001.svg"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(svg, []byte(`<g class="labels"`)) {
		t.Errorf("solution-0001.svg has no labels")
	}
}

func TestParseLabels(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want Labels
		err  bool
	}{
		{"", NoLabels, false}, {"off", NoLabels, false}, {"false", NoLabels, false},
		{"true", LetterLabels, false}, {"letters", LetterLabels, false}, {"numbers", NumberLabels, false},
		{"chess", ChessLabels, false}, {"Chess", ChessLabels, false}, {"roman", NoLabels, true},
	} {
		got, err := ParseLabels(tt.in)
		if got != tt.want || (err != nil) != tt.err {
			t.Errorf("ParseLabels(%q) = %v, %v; want %v, error %v", tt.in, got, err, tt.want, tt.err)
		}
		if err == nil {
			if back, _ := ParseLabels(got.String()); back != got {
				t.Errorf("ParseLabels(%v.String()) = %v", got, back)
			}
		}
	}
	if got := fileLabel(LetterLabels, 27, 26); got != "27" {
		t.Errorf("file 27 of N=27 = %q, want 27", got)
	}
	if got := fileLabel(LetterLabels, 26, 25); got != "z" {
		t.Errorf("file 26 of N=26 = %q, want z", got)
	}
	if got := fileLabel(ChessLabels, 27, 26); got != "27" {
		t.Errorf("chess: file 27 of N=27 = %q, want 27", got)
	}
	if _, err := ParseLabels("roman"); err == nil || !strings.Contains(err.Error(), "chess") {
		t.Errorf("ParseLabels(roman) = %v, want an error naming every mode", err)
	}
}

// TestChessRanks: --labels=chess numbers the ranks from the bottom row, as
// a chess diagram does, and names the files as letters does; letters and
// numbers count from the top, as --format coords does.
func TestChessRanks(t *testing.T) {
	rankAt := func(mode Labels, n int) map[int]string { // row -> its rank label
		lg := labelLayout(mode, n, 64)
		out := map[int]string{}
		for _, s := range lg.spots(n, 64, 100, 0) {
			if s.X < 100 {
				out[s.Y/64] = s.Text
			}
		}
		return out
	}
	chess, letters := rankAt(ChessLabels, 8), rankAt(LetterLabels, 8)
	for row := range 8 {
		if got, want := chess[row], fmt.Sprint(8-row); got != want {
			t.Errorf("chess: row %d (from the top) is rank %q, want %q", row+1, got, want)
		}
		if got, want := letters[row], fmt.Sprint(row+1); got != want {
			t.Errorf("letters: row %d is rank %q, want %q", row+1, got, want)
		}
	}
	// The queen that coords prints as (2,5) is on e7 in chess, e2 in letters.
	if f := fileLabel(ChessLabels, 8, 4); f+chess[1] != "e7" || f+letters[1] != "e2" {
		t.Errorf("(2,5) is %s%s in chess and %s%s in letters, want e7 and e2", f, chess[1], f, letters[1])
	}
	// With a stride, rank 1 is labelled at the bottom and the multiples of
	// the stride above it.
	lg := labelLayout(ChessLabels, 100, 5)
	spots := lg.spots(100, 5, 100, 0)
	bottom, lowest := "", -1
	for _, s := range spots {
		if s.X < 100 && s.Y > lowest {
			bottom, lowest = s.Text, s.Y
		}
	}
	if bottom != "1" || lg.Step == 1 {
		t.Errorf("chess N=100: bottom row labelled %q with stride %d, want \"1\" and a stride", bottom, lg.Step)
	}
	for _, s := range spots {
		if s.X < 100 && s.Text != "1" && mustAtoi(t, s.Text)%lg.Step != 0 {
			t.Errorf("chess N=100: rank %s labelled, not a multiple of the stride %d", s.Text, lg.Step)
		}
	}
}

func mustAtoi(t *testing.T, s string) int {
	t.Helper()
	var n int
	if _, err := fmt.Sscan(s, &n); err != nil {
		t.Fatal(err)
	}
	return n
}
