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
	// sheetBudget is the width, in pixels, that the thumbnails of one row
	// share; thumbnails are at most sheetThumb pixels and their cells at
	// most sheetMaxCell.
	sheetBudget  = 3072
	sheetThumb   = 128
	sheetMaxCell = 16
	// sheetGap separates thumbnails; sheetLabel is the band under each
	// thumbnail that holds its solution number; sheetTitleBand the band on top.
	sheetGap       = 12
	sheetLabel     = 16
	sheetTitleBand = 40
	labelSize      = 11
	titleSize      = 18
	// maxSheetPixels refuses sheets whose image would not fit comfortably in
	// memory (4 bytes a pixel): lower the limit or the board size instead.
	maxSheetPixels = 64 << 20
)

// sheetGeometry is where a contact sheet puts its boards.
type sheetGeometry struct {
	N, Count      int
	Columns, Rows int // of the grid of boards
	Cell, Thumb   int // square side and board side of each thumbnail
	PitchX        int // distance between the left edges of neighbouring boards
	PitchY        int // distance between the top edges of neighbouring rows
	X0, Y0        int // top-left corner of board 0
	Width, Height int
	Lab           labelGeometry // of each thumbnail
}

// sheetLayout returns the geometry of a contact sheet of count boards of
// size n:
//
//	Columns = ceil(sqrt(count)), Rows = ceil(count/Columns)
//	Cell    = clamp(min(sheetThumb, sheetBudget/Columns)/n, 1, sheetMaxCell)
//	Thumb   = n·Cell
//	PitchX  = max(Lab.Band + Thumb + sheetGap, width of the largest label + 4)
//	PitchY  = Thumb + Lab.Foot + sheetLabel + sheetGap
//	Width   = max(2·margin + (Columns-1)·PitchX + Lab.Band + Thumb, minWidth)
//	Height  = sheetTitleBand + Rows·PitchY - sheetGap + margin
//
// Board i (0-based) is in grid row i/Columns, column i%Columns, solution
// number i+1 centred under it. Lab is labelLayout(l, n, Cell): with labels,
// each thumbnail has its ranks in a band on its left and its files under
// it; without, Lab.Band and Lab.Foot are 0.
func sheetLayout(n, count int, l Labels) sheetGeometry {
	g := sheetGeometry{N: n, Count: count}
	if count == 0 {
		g.Width, g.Height = minWidth, sheetTitleBand+margin
		return g
	}
	g.Columns = int(math.Ceil(math.Sqrt(float64(count))))
	g.Rows = (count + g.Columns - 1) / g.Columns
	g.Cell = min(max(min(sheetThumb, sheetBudget/g.Columns)/n, 1), sheetMaxCell)
	g.Thumb = n * g.Cell
	g.Lab = labelLayout(l, n, g.Cell)
	face := newFace(labelSize)
	label := font.MeasureString(face, strconv.Itoa(count)).Ceil()
	face.Close()
	g.PitchX = max(g.Lab.Band+g.Thumb+sheetGap, label+4)
	g.PitchY = g.Thumb + g.Lab.Foot + sheetLabel + sheetGap
	grid := (g.Columns-1)*g.PitchX + g.Lab.Band + g.Thumb
	g.Width = max(2*margin+grid, minWidth)
	g.Height = sheetTitleBand + g.Rows*g.PitchY - sheetGap + margin
	g.X0 = (g.Width-grid)/2 + g.Lab.Band
	g.Y0 = sheetTitleBand
	return g
}

// board returns the top-left corner of board i.
func (g sheetGeometry) board(i int) image.Point {
	return image.Pt(g.X0+(i%g.Columns)*g.PitchX, g.Y0+(i/g.Columns)*g.PitchY)
}

// squareCenter is the centre pixel of square (r, c) of board i.
func (g sheetGeometry) squareCenter(i, r, c int) image.Point {
	return g.board(i).Add(image.Pt(c*g.Cell+g.Cell/2, r*g.Cell+g.Cell/2))
}

// sheetFit returns how many of the first count boards of size n fit on one
// contact sheet of at most maxSheetPixels: count itself unless the limit was
// set very high. A Sink puts that many on its sheet, and its title says so.
func sheetFit(n, count int, l Labels) int {
	fits := func(c int) bool {
		g := sheetLayout(n, c, l)
		return int64(g.Width)*int64(g.Height) <= maxSheetPixels
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

// writeSheet writes one PNG with every board of boards (each n 0-based
// columns) in a numbered grid under title, laid out by sheetLayout; l
// asks for file and rank labels on each board.
func writeSheet(w io.Writer, n int, boards [][]int, title string, l Labels) error {
	if n < 1 || n > maxPNGN {
		return fmt.Errorf("render: sheet: n = %d, want 1..%d", n, maxPNGN)
	}
	for i, cols := range boards {
		if err := checkCols(cols, n); err != nil {
			return fmt.Errorf("render: sheet: board %d: %w", i+1, err)
		}
	}
	g := sheetLayout(n, len(boards), l)
	if int64(g.Width)*int64(g.Height) > maxSheetPixels {
		return fmt.Errorf("render: sheet: %d boards of N=%d need %d×%d pixels (at most %d in all); lower the limit",
			len(boards), n, g.Width, g.Height, maxSheetPixels)
	}
	img := image.NewRGBA(image.Rect(0, 0, g.Width, g.Height))
	draw.Draw(img, img.Bounds(), image.NewUniform(colors.Background), image.Point{}, draw.Src)
	drawText(img, title, g.Width/2, sheetTitleBand*2/3, g.Width-8, titleSize)
	if len(boards) > 0 {
		p := newPainter(g.Cell)
		face := newFace(labelSize)
		defer face.Close()
		d := font.Drawer{Dst: img, Src: image.NewUniform(colors.Text), Face: face}
		for i, cols := range boards {
			at := g.board(i)
			p.checkerboard(img, n, at.X, at.Y)
			p.queens(img, cols, at.X, at.Y)
			g.Lab.draw(img, n, g.Cell, at.X, at.Y)
			label := strconv.Itoa(i + 1)
			lw := d.MeasureString(label).Ceil()
			d.Dot = fixed.P(at.X+g.Thumb/2-lw/2, at.Y+g.Thumb+g.Lab.Foot+sheetLabel-3)
			d.DrawString(label)
		}
	}
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	return enc.Encode(w, img)
}
