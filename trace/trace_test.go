package trace

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/gif"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nqueens/nqueens/solver"
)

// solutions is OEIS A000170 (DESIGN.md §5).
var solutions = []int{1: 1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200}

// countSteps counts the steps of the plain backtracker independently of
// Record, with bitmasks: every row it reaches tries all n columns, one
// step each; a free column adds a place and a backtrack step around the
// rows below; a full board adds a solution step. It stops, as Record does,
// right after the until-th solution (0: never).
func countSteps(n, until int) (steps, found int) {
	full := uint(1)<<n - 1
	var rec func(row int, cols, d1, d2 uint) bool
	rec = func(row int, cols, d1, d2 uint) bool {
		taken := cols | d1 | d2
		for c := range n {
			bit := uint(1) << c
			steps++ // tried: a conflict, or a place
			if taken&bit != 0 {
				continue
			}
			if row == n-1 {
				found++
				steps++ // the solution
				if found == until {
					return false
				}
			} else if !rec(row+1, cols|bit, (d1|bit)<<1&full, (d2|bit)>>1) {
				return false
			}
			steps++ // the backtrack
		}
		return true
	}
	rec(0, 0, 0, 0)
	return steps, found
}

func TestRecordCountsEveryStep(t *testing.T) {
	for n := 1; n <= 9; n++ {
		tr, err := Record(n, Options{MaxSteps: MaxMaxSteps})
		if err != nil {
			t.Fatal(err)
		}
		steps, found := countSteps(n, 0)
		if tr.Total != steps || tr.Found != found || found != solutions[n] {
			t.Errorf("Record(%d): %d steps, %d solutions; want %d steps, %d solutions", n, tr.Total, tr.Found, steps, solutions[n])
		}
		if want := min(steps, MaxMaxSteps); len(tr.Steps) != want {
			t.Errorf("Record(%d) kept %d steps, want %d", n, len(tr.Steps), want)
		}
	}
}

func TestRecordUntil(t *testing.T) {
	tr, err := Record(8, Options{Until: 3})
	if err != nil {
		t.Fatal(err)
	}
	steps, _ := countSteps(8, 3)
	last := tr.Steps[len(tr.Steps)-1]
	if tr.Total != steps || tr.Found != 3 || last.Kind != Solution || last.Solution != 3 {
		t.Errorf("Record(8, until 3): %d steps, %d found, last %+v; want %d steps ending on solution 3", tr.Total, tr.Found, last, steps)
	}
	// The three solutions shown are the first three of the classic order.
	var got [][]int
	tr.Frames(func(f Frame) bool {
		if f.Step.Kind == Solution {
			got = append(got, slices.Clone(f.Cols))
		}
		return true
	})
	var want [][]int
	for cols := range solver.Solutions(8, nil) {
		if want = append(want, slices.Clone(cols)); len(want) == 3 {
			break
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("solutions shown %v, want %v", got, want)
	}
}

func TestRecordRejects(t *testing.T) {
	for _, tt := range []struct {
		n    int
		opts Options
		want string
	}{
		{13, Options{}, "n = 13, want 1..12"},
		{0, Options{}, "n = 0"},
		{4, Options{MaxSteps: -1}, "steps = -1"},
		{4, Options{MaxSteps: MaxMaxSteps + 1}, "steps = 100001"},
		{4, Options{Until: -2}, "until = -2"},
	} {
		if _, err := Record(tt.n, tt.opts); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Record(%d, %+v) error = %v, want %q", tt.n, tt.opts, err, tt.want)
		}
	}
	for _, p := range []string{"t.png", "t", "t.gif.txt"} {
		if err := CheckPath(p); err == nil {
			t.Errorf("CheckPath(%q) = nil, want an error", p)
		}
	}
	for _, p := range []string{"t.gif", "T.SVG", "dir/t.html"} {
		if err := CheckPath(p); err != nil {
			t.Errorf("CheckPath(%q) = %v", p, err)
		}
	}
}

func TestCaptions(t *testing.T) {
	tr, err := Record(4, Options{MaxSteps: 20})
	if err != nil {
		t.Fatal(err)
	}
	var details []string
	tr.Frames(func(f Frame) bool {
		details = append(details, f.Detail())
		return f.Index < 6
	})
	want := []string{
		"cols 1 · place (1,1)",
		"cols 1 · conflict at (2,1)",
		"cols 1 · conflict at (2,2)",
		"cols 1 3 · place (2,3)",
		"cols 1 3 · conflict at (3,1)",
		"cols 1 3 · conflict at (3,2)",
		"cols 1 3 · conflict at (3,3)",
	}
	if strings.Join(details, "\n") != strings.Join(want, "\n") {
		t.Errorf("captions:\n%s\nwant:\n%s", strings.Join(details, "\n"), strings.Join(want, "\n"))
	}
	if got := tr.Heading(16); got != "N=4 · step 17 · first 20 of 78 steps" {
		t.Errorf("Heading(16) = %q", got)
	}
	full, _ := Record(4, Options{})
	if got := full.Heading(16); got != "N=4 · step 17 of 78" {
		t.Errorf("Heading(16) = %q", got)
	}
}

// decodeGIF plays a GIF: it returns every frame composited over the ones
// before, as a viewer shows it.
func decodeGIF(t *testing.T, b []byte) (*gif.GIF, []*image.RGBA) {
	t.Helper()
	g, err := gif.DecodeAll(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	canvas := image.NewRGBA(image.Rect(0, 0, g.Config.Width, g.Config.Height))
	var shown []*image.RGBA
	for _, fr := range g.Image {
		draw.Draw(canvas, fr.Bounds(), fr, fr.Bounds().Min, draw.Over)
		shown = append(shown, image.NewRGBA(canvas.Bounds()))
		copy(shown[len(shown)-1].Pix, canvas.Pix)
	}
	return g, shown
}

// goldSquares lists the squares of a frame filled with the solution colour,
// probed 4 pixels inside each square's top-left corner (the crown leaves
// the corners free), as the 0-based column of each row (-1: none).
func goldSquares(img *image.RGBA, n int) []int {
	g := layout(n)
	cols := make([]int, n)
	for r := range n {
		cols[r] = -1
		for c := range n {
			p := g.square(r, c).Min.Add(image.Pt(4, 4))
			if img.RGBAAt(p.X, p.Y) == solutionC {
				cols[r] = c
			}
		}
	}
	return cols
}

func TestGIFN4ShowsEveryStepAndBothSolutions(t *testing.T) {
	tr, err := Record(4, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteGIF(&buf, tr); err != nil {
		t.Fatal(err)
	}
	g, shown := decodeGIF(t, buf.Bytes())
	steps, _ := countSteps(4, 0)
	if len(g.Image) != steps {
		t.Fatalf("GIF of N=4 has %d frames, want %d (one per step)", len(g.Image), steps)
	}
	if g.LoopCount != 0 {
		t.Errorf("GIF loop count %d, want 0 (forever)", g.LoopCount)
	}
	if lay := layout(4); g.Config.Width != lay.Width || g.Config.Height != lay.Height {
		t.Errorf("GIF is %dx%d, want %dx%d", g.Config.Width, g.Config.Height, lay.Width, lay.Height)
	}
	var got [][]int
	for i, img := range shown {
		cols := goldSquares(img, 4)
		if !slices.Contains(cols, -1) {
			got = append(got, cols)
			if g.Delay[i] != solutionDelay && i != len(shown)-1 {
				t.Errorf("solution frame %d stays %d/100 s, want %d", i, g.Delay[i], solutionDelay)
			}
		} else if slices.ContainsFunc(cols, func(c int) bool { return c >= 0 }) {
			t.Errorf("frame %d has gold squares %v but no whole solution", i, cols)
		}
	}
	var want [][]int
	for cols := range solver.Solutions(4, nil) {
		want = append(want, slices.Clone(cols))
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("GIF shows solutions %v, want %v", got, want)
	}
	// The first frame: a queen on (1,1), no other queen, rows 2-4 shaded
	// where it attacks.
	lay := layout(4)
	at := func(r, c int) color.RGBA {
		p := lay.square(r, c).Min.Add(image.Pt(4, 4))
		return shown[0].RGBAAt(p.X, p.Y)
	}
	for r := 1; r < 4; r++ {
		for c := range 4 {
			plain, shaded := squareColours(r, c)
			want := plain
			if c == 0 || c == r {
				want = shaded
			}
			if got := at(r, c); got != want {
				t.Errorf("frame 1, square (%d,%d) = %v, want %v", r+1, c+1, got, want)
			}
		}
	}
}

func TestGIFStopsAtTheCap(t *testing.T) {
	tr, err := Record(6, Options{MaxSteps: 25})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteGIF(&buf, tr); err != nil {
		t.Fatal(err)
	}
	g, _ := decodeGIF(t, buf.Bytes())
	steps, _ := countSteps(6, 0)
	if len(g.Image) != 25 || tr.Total != steps || !tr.Capped() {
		t.Errorf("capped GIF: %d frames of %d steps (capped %v), want 25 of %d", len(g.Image), tr.Total, tr.Capped(), steps)
	}
}

// svgTrace is what the tests read back of a trace SVG.
type svgTrace struct {
	Frames []struct {
		Class string `xml:"class,attr"`
		Step  int    `xml:"data-step,attr"`
		Kind  string `xml:"data-kind,attr"`
		Uses  []struct {
			Class string `xml:"class,attr"`
		} `xml:"use"`
		Texts []string `xml:"text"`
	} `xml:"g"`
	Style string `xml:"style"`
}

func TestSVGHasOneFramePerStep(t *testing.T) {
	for _, tt := range []struct{ n, cap int }{{4, 0}, {5, 100}} {
		tr, err := Record(tt.n, Options{MaxSteps: tt.cap})
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := WriteSVG(&buf, tr); err != nil {
			t.Fatal(err)
		}
		var doc svgTrace
		if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		steps, found := countSteps(tt.n, 0)
		want := steps
		if tt.cap > 0 {
			want = tt.cap
		}
		if len(doc.Frames) != want {
			t.Errorf("N=%d SVG has %d frames, want %d", tt.n, len(doc.Frames), want)
		}
		sols := 0
		for i, f := range doc.Frames {
			if f.Class != "frame" || f.Step != i+1 || len(f.Texts) != 2 {
				t.Errorf("frame %d: class %q step %d, %d caption lines", i, f.Class, f.Step, len(f.Texts))
				break
			}
			if f.Kind == "solution" {
				sols++
				queens := 0
				for _, u := range f.Uses {
					if u.Class == "queen" {
						queens++
					}
				}
				if queens != tt.n {
					t.Errorf("solution frame %d has %d queens", i, queens)
				}
			}
		}
		if tt.cap == 0 && sols != found {
			t.Errorf("N=%d SVG shows %d solutions, want %d", tt.n, sols, found)
		}
		if !strings.Contains(doc.Style, "@keyframes") || !strings.Contains(doc.Style, "infinite") {
			t.Errorf("SVG style %q does not animate", doc.Style)
		}
	}
}

func TestWriteByExtension(t *testing.T) {
	tr, err := Record(4, Options{MaxSteps: 10})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for ext, magic := range map[string]string{".gif": "GIF89a", ".svg": "<?xml", ".html": "<!DOCTYPE html>"} {
		path := filepath.Join(dir, "t"+ext)
		if err := Write(path, tr); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(b, []byte(magic)) {
			t.Errorf("%s starts %q, want %q", path, b[:min(len(b), 16)], magic)
		}
	}
	if err := Write(filepath.Join(dir, "t.png"), tr); err == nil {
		t.Errorf("Write(t.png) succeeded")
	}
}

func BenchmarkRecordN12(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if _, err := Record(12, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
