package render

import (
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"io"
	"math"
	"strconv"

	"golang.org/x/image/font"
	"golang.org/x/image/math/fixed"
)

// Contact sheet sizes. See doc.go.
const (
	// SheetBudget is the width, in pixels, that the thumbnails of one row
	// share; thumbnails are at most SheetThumb pixels and their cells at
	// most SheetMaxCell.
	SheetBudget  = 3072
	SheetThumb   = 128
	SheetMaxCell = 16
	// SheetGap separates thumbnails; SheetLabel is the band under each
	// thumbnail that holds its solution number; SheetTitle the band on top.
	SheetGap       = 12
	SheetLabel     = 16
	SheetTitleBand = 40
	labelSize      = 11
	titleSize      = 18
	// MaxSheetPixels refuses sheets whose image would not fit comfortably in
	// memory (4 bytes a pixel): lower the limit or the board size instead.
	MaxSheetPixels = 64 << 20
)

// SheetGeometry is where a contact sheet puts its boards.
type SheetGeometry struct {
	N, Count      int
	Columns, Rows int // of the grid of boards
	Cell, Thumb   int // square side and board side of each thumbnail
	PitchX        int // distance between the left edges of neighbouring boards
	PitchY        int // distance between the top edges of neighbouring rows
	X0, Y0        int // top-left corner of board 0
	Width, Height int
}

// SheetLayout returns the geometry of a contact sheet of count boards of
// size n:
//
//	Columns = ceil(sqrt(count)), Rows = ceil(count/Columns)
//	Cell    = clamp(min(SheetThumb, SheetBudget/Columns)/n, 1, SheetMaxCell)
//	Thumb   = n·Cell
//	PitchX  = max(Thumb + SheetGap, width of the largest label + 4)
//	PitchY  = Thumb + SheetLabel + SheetGap
//	Width   = max(2·Margin + (Columns-1)·PitchX + Thumb, MinWidth)
//	Height  = SheetTitleBand + Rows·PitchY - SheetGap + Margin
//
// Board i (0-based) is in grid row i/Columns, column i%Columns, solution
// number i+1 centred under it.
func SheetLayout(n, count int) SheetGeometry {
	g := SheetGeometry{N: n, Count: count}
	if count == 0 {
		g.Width, g.Height = MinWidth, SheetTitleBand+Margin
		return g
	}
	g.Columns = int(math.Ceil(math.Sqrt(float64(count))))
	g.Rows = (count + g.Columns - 1) / g.Columns
	g.Cell = min(max(min(SheetThumb, SheetBudget/g.Columns)/n, 1), SheetMaxCell)
	g.Thumb = n * g.Cell
	face := newFace(labelSize)
	label := font.MeasureString(face, strconv.Itoa(count)).Ceil()
	face.Close()
	g.PitchX = max(g.Thumb+SheetGap, label+4)
	g.PitchY = g.Thumb + SheetLabel + SheetGap
	grid := (g.Columns-1)*g.PitchX + g.Thumb
	g.Width = max(2*Margin+grid, MinWidth)
	g.Height = SheetTitleBand + g.Rows*g.PitchY - SheetGap + Margin
	g.X0 = (g.Width - grid) / 2
	g.Y0 = SheetTitleBand
	return g
}

// Board returns the top-left corner of board i.
func (g SheetGeometry) Board(i int) image.Point {
	return image.Pt(g.X0+(i%g.Columns)*g.PitchX, g.Y0+(i/g.Columns)*g.PitchY)
}

// SquareCenter is the centre pixel of square (r, c) of board i.
func (g SheetGeometry) SquareCenter(i, r, c int) image.Point {
	return g.Board(i).Add(image.Pt(c*g.Cell+g.Cell/2, r*g.Cell+g.Cell/2))
}

// SheetFit returns how many of the first count boards of size n fit on one
// contact sheet of at most MaxSheetPixels: count itself unless the limit was
// set very high. A Sink puts that many on its sheet, and its title says so.
func SheetFit(n, count int) int {
	fits := func(c int) bool {
		g := SheetLayout(n, c)
		return int64(g.Width)*int64(g.Height) <= MaxSheetPixels
	}
	if fits(count) {
		return count
	}
	lo, hi := 0, count // fits(lo), !fits(hi)
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if fits(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// WriteSheet writes one PNG with every board of boards (each n 0-based
// columns) in a labelled grid under title, laid out by SheetLayout.
func WriteSheet(w io.Writer, n int, boards [][]int, title string) error {
	if n < 1 || n > MaxPNGN {
		return fmt.Errorf("render: sheet: n = %d, want 1..%d", n, MaxPNGN)
	}
	for i, cols := range boards {
		if err := checkCols(cols, n); err != nil {
			return fmt.Errorf("render: sheet: board %d: %w", i+1, err)
		}
	}
	g := SheetLayout(n, len(boards))
	if int64(g.Width)*int64(g.Height) > MaxSheetPixels {
		return fmt.Errorf("render: sheet: %d boards of N=%d need %d×%d pixels (at most %d in all); lower the limit",
			len(boards), n, g.Width, g.Height, MaxSheetPixels)
	}
	img := image.NewRGBA(image.Rect(0, 0, g.Width, g.Height))
	draw.Draw(img, img.Bounds(), image.NewUniform(Background), image.Point{}, draw.Src)
	drawText(img, title, g.Width/2, SheetTitleBand*2/3, g.Width-8, titleSize)
	if len(boards) > 0 {
		p := newPainter(g.Cell)
		face := newFace(labelSize)
		defer face.Close()
		d := font.Drawer{Dst: img, Src: image.NewUniform(textColor), Face: face}
		for i, cols := range boards {
			at := g.Board(i)
			p.checkerboard(img, n, at.X, at.Y)
			p.queens(img, cols, at.X, at.Y)
			label := strconv.Itoa(i + 1)
			lw := d.MeasureString(label).Ceil()
			d.Dot = fixed.P(at.X+g.Thumb/2-lw/2, at.Y+g.Thumb+SheetLabel-3)
			d.DrawString(label)
		}
	}
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	return enc.Encode(w, img)
}
