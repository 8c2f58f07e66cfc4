package render

import (
	"fmt"
	"image"
	"image/draw"
	"math"
	"strconv"
	"strings"

	"golang.org/x/image/font"
	"golang.org/x/image/math/fixed"
)

// Labels says whether pictures name the files (columns) and ranks (rows)
// of a board along its edges, as a chessboard diagram does. Text formats
// ignore it.
type Labels int

// The label modes. LetterLabels and NumberLabels number the ranks as the
// text formats number rows, 1 at the top, so a picture reads like --format
// coords: the queen at (2,5) is on rank 2, file e. ChessLabels numbers them
// as a chess diagram does, 1 at the bottom: the same queen is on e7 of an
// 8-board. The board itself is the same picture in every mode.
const (
	NoLabels     Labels = iota // plain boards, as before labels existed
	LetterLabels               // files a..z, ranks 1..N from the top; files 1..N beyond N = 26
	NumberLabels               // 1..N for files and ranks alike, ranks from the top
	ChessLabels                // files a..z, ranks 1..N from the bottom; files 1..N beyond N = 26
)

// maxLetterN is the largest board whose files get letters: a..z.
const maxLetterN = 26

// ParseLabels returns the mode named s: "letters" (also "true", "on"),
// "chess", "numbers", or "off" ("false", "").
func ParseLabels(s string) (Labels, error) {
	switch strings.ToLower(s) {
	case "", "off", "false", "none":
		return NoLabels, nil
	case "letters", "true", "on":
		return LetterLabels, nil
	case "chess":
		return ChessLabels, nil
	case "numbers":
		return NumberLabels, nil
	}
	return NoLabels, fmt.Errorf("unknown labels %q (want letters, chess, numbers or off)", s)
}

// String is the name ParseLabels reads back.
func (l Labels) String() string {
	switch l {
	case LetterLabels:
		return "letters"
	case NumberLabels:
		return "numbers"
	case ChessLabels:
		return "chess"
	}
	return "off"
}

// fileLabel is the name of column c (0-based) of an n-board.
func fileLabel(l Labels, n, c int) string {
	if (l == LetterLabels || l == ChessLabels) && n <= maxLetterN {
		return string(rune('a' + c))
	}
	return strconv.Itoa(c + 1)
}

// rank is the 0-based rank of row r (0-based, from the top) of an n-board:
// r itself, or in a chess diagram counted from the bottom row.
func rank(l Labels, n, r int) int {
	if l == ChessLabels {
		return n - 1 - r
	}
	return r
}

// labelSteps are the strides at which labels are shown when a square is
// too small for one label each: every square, then every 2nd, 5th, 10th...
var labelSteps = []int{1, 2, 5, 10, 20, 50, 100, 200, 500, 1000}

// labelGeometry is where labels go around a board with cells of cell
// pixels: a band of Band pixels left of the board for the ranks, Foot
// pixels under it for the files.
type labelGeometry struct {
	Mode       Labels
	Size       float64 // font size in pixels
	Step       int     // label squares 1, Step, 2·Step, ... (1 = every square)
	Band, Foot int
}

// labelLayout sizes the labels of an n-board with cells of cell pixels:
//
//	Size = clamp(0.55·cell, 8, 14)
//	Step = the first labelSteps entry with Step·cell ≥ 1.6·Size
//	Band = width of the widest rank number + 6, Foot = ceil(Size) + 6
//
// so an 8×8 board of 64 pixel squares gets 14 pixel labels on every square.
func labelLayout(l Labels, n, cell int) labelGeometry {
	if l == NoLabels {
		return labelGeometry{}
	}
	lg := labelGeometry{Mode: l, Size: min(max(0.55*float64(cell), 8), 14)}
	lg.Step = labelSteps[len(labelSteps)-1]
	for _, s := range labelSteps {
		if float64(s*cell) >= 1.6*lg.Size {
			lg.Step = s
			break
		}
	}
	face := newFace(lg.Size)
	widest := font.MeasureString(face, strings.Repeat("0", len(strconv.Itoa(n)))).Ceil()
	face.Close()
	lg.Band = widest + 6
	lg.Foot = int(math.Ceil(lg.Size)) + 6
	return lg
}

// shown reports whether square i (0-based) of an edge gets its label.
func (lg labelGeometry) shown(i int) bool { return i == 0 || (i+1)%lg.Step == 0 }

// labelSpot is one label: its text, the x of its centre and its baseline.
type labelSpot struct {
	Text string
	X, Y int
}

// spots lists the labels of an n-board of cells of cell pixels whose
// top-left corner is (x0, y0): ranks centred in the band left of each row,
// files centred under each column. PNG and SVG draw the same spots. With a
// stride, the ranks shown are 1 and the multiples of the stride whichever
// end rank 1 is at.
func (lg labelGeometry) spots(n, cell, x0, y0 int) []labelSpot {
	if lg.Mode == NoLabels {
		return nil
	}
	ascent := int(math.Round(0.72 * lg.Size)) // digits and x-height letters of Go Regular
	var out []labelSpot
	for r := range n {
		if k := rank(lg.Mode, n, r); lg.shown(k) {
			out = append(out, labelSpot{strconv.Itoa(k + 1), x0 - lg.Band/2 - 1, y0 + r*cell + (cell+ascent)/2})
		}
	}
	for c := range n {
		if lg.shown(c) {
			out = append(out, labelSpot{fileLabel(lg.Mode, n, c), x0 + c*cell + cell/2, y0 + n*cell + 4 + ascent})
		}
	}
	return out
}

// draw draws the spots of an n-board at (x0, y0) into dst.
func (lg labelGeometry) draw(dst draw.Image, n, cell, x0, y0 int) {
	spots := lg.spots(n, cell, x0, y0)
	if len(spots) == 0 {
		return
	}
	face := newFace(lg.Size)
	defer face.Close()
	d := font.Drawer{Dst: dst, Src: image.NewUniform(colors.Text), Face: face}
	for _, s := range spots {
		w := d.MeasureString(s.Text)
		d.Dot = fixed.Point26_6{X: fixed.I(s.X) - w/2, Y: fixed.I(s.Y)}
		d.DrawString(s.Text)
	}
}
