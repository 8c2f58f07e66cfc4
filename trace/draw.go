package trace

import (
	"image"
	"image/color"
	"image/draw"

	"golang.org/x/image/font"
	"golang.org/x/image/math/fixed"

	"github.com/nqueens/nqueens/render"
)

// Sizes of a frame, in pixels.
const (
	boardPixels = 384 // side of the board when N divides it
	minCell     = 28  // N=12 still gets the crown glyph
	maxCell     = 64  // as render's pictures
	margin      = 16
	captionBand = 52 // two caption lines
	minWidth    = 340
	headingSize = 15
	detailSize  = 14
)

// geometry is where a frame of an N×N board puts things.
type geometry struct {
	N, Cell       int
	Width, Height int
	X0, Y0        int // top-left corner of the board
}

// layout is the frame of an n-board: Cell = clamp(384/N, 28, 64), the board
// centred, margin above, the two caption lines under it.
func layout(n int) geometry {
	cell := min(max(boardPixels/n, minCell), maxCell)
	side := n * cell
	w := max(side+2*margin, minWidth)
	return geometry{N: n, Cell: cell, Width: w, Height: margin + side + captionBand, X0: (w - side) / 2, Y0: margin}
}

// square is the pixels of square (r, c).
func (g geometry) square(r, c int) image.Rectangle {
	return image.Rect(g.X0+c*g.Cell, g.Y0+r*g.Cell, g.X0+(c+1)*g.Cell, g.Y0+(r+1)*g.Cell)
}

// Colours of a frame beyond render's palette.
var (
	shadeTint = color.RGBA{0x6c, 0x7f, 0xa8, 0xff} // attacked squares lean towards it
	conflictC = color.RGBA{0xe3, 0x5d, 0x4f, 0xff} // the square refused
	attackerC = color.RGBA{0xb0, 0x10, 0x10, 0xff} // outline of the queens that attack it
	solutionC = color.RGBA{0xf2, 0xc1, 0x4e, 0xff} // queens' squares of a solution
	ghostC    = color.RGBA{0x80, 0x80, 0x80, 0xff} // a queen tried in vain or taken off
)

// mix is a·(1-t) + b·t.
func mix(a, b color.RGBA, t float64) color.RGBA {
	f := func(x, y uint8) uint8 { return uint8(float64(x)*(1-t) + float64(y)*t + 0.5) }
	return color.RGBA{f(a.R, b.R), f(a.G, b.G), f(a.B, b.B), 0xff}
}

// squareColours are the fills of a square: plain, attacked (shaded).
func squareColours(r, c int) (plain, shaded color.RGBA) {
	p := render.Colors()
	plain = p.Light
	if (r+c)%2 == 1 {
		plain = p.Dark
	}
	return plain, mix(plain, shadeTint, 0.45)
}

// attacks reports whether the queen on (qr, qc) attacks (r, c).
func attacks(qr, qc, r, c int) bool {
	d := qc - c
	return d == 0 || d == r-qr || d == qr-r || qr == r
}

// painter draws frames of one board size.
type painter struct {
	g     geometry
	queen *image.Alpha
	head  font.Face
	det   font.Face
}

func newPainter(n int) *painter {
	g := layout(n)
	return &painter{g: g, queen: render.QueenGlyph(g.Cell), head: render.Face(headingSize), det: render.Face(detailSize)}
}

func (p *painter) close() { p.head.Close(); p.det.Close() }

// paint draws frame f of t into img (g.Width × g.Height).
func (p *painter) paint(img *image.RGBA, t *Trace, f Frame) {
	g, pal := p.g, render.Colors()
	fill := func(r image.Rectangle, c color.RGBA) {
		draw.Draw(img, r, image.NewUniform(c), image.Point{}, draw.Src)
	}
	fill(img.Bounds(), pal.Background)
	side := g.N * g.Cell
	fill(image.Rect(g.X0-2, g.Y0-2, g.X0+side+2, g.Y0+side+2), pal.Frame)
	for r := range g.N {
		for c := range g.N {
			plain, shaded := squareColours(r, c)
			col := plain
			if r >= len(f.Cols) && attackedBy(f.Cols, r, c) {
				col = shaded
			}
			if f.Step.Kind == Solution && f.Cols[r] == c {
				col = solutionC
			}
			fill(g.square(r, c), col)
		}
	}
	s := f.Step
	switch s.Kind {
	case Conflict:
		fill(g.square(s.Row, s.Col), conflictC)
		for q, qc := range f.Cols {
			if attacks(q, qc, s.Row, s.Col) {
				p.outline(img, g.square(q, qc), attackerC)
			}
		}
		p.glyph(img, s.Row, s.Col, ghostC)
	case Backtrack:
		p.glyph(img, s.Row, s.Col, ghostC)
	}
	for r, c := range f.Cols {
		p.glyph(img, r, c, pal.Queen)
	}
	if s.Kind == Place {
		p.outline(img, g.square(s.Row, s.Col), pal.Queen)
	}
	p.text(img, p.head, t.Heading(f.Index), g.Y0+side+22)
	p.text(img, p.det, f.Detail(), g.Y0+side+42)
}

// attackedBy reports whether a queen of cols attacks (r, c).
func attackedBy(cols []int, r, c int) bool {
	for q, qc := range cols {
		if attacks(q, qc, r, c) {
			return true
		}
	}
	return false
}

// glyph draws the crown on square (r, c) in colour c.
func (p *painter) glyph(img *image.RGBA, r, c int, col color.RGBA) {
	at := p.g.square(r, c)
	draw.DrawMask(img, at, image.NewUniform(col), image.Point{}, p.queen, image.Point{}, draw.Over)
}

// outline draws a 3 pixel border inside r.
func (p *painter) outline(img *image.RGBA, r image.Rectangle, col color.RGBA) {
	u := image.NewUniform(col)
	const w = 3
	for _, e := range []image.Rectangle{
		{r.Min, image.Pt(r.Max.X, r.Min.Y+w)}, {image.Pt(r.Min.X, r.Max.Y-w), r.Max},
		{r.Min, image.Pt(r.Min.X+w, r.Max.Y)}, {image.Pt(r.Max.X-w, r.Min.Y), r.Max},
	} {
		draw.Draw(img, e, u, image.Point{}, draw.Src)
	}
}

// text draws s centred with its baseline at y, in the caption colour.
func (p *painter) text(img *image.RGBA, face font.Face, s string, y int) {
	d := font.Drawer{Dst: img, Src: image.NewUniform(render.Colors().Text), Face: face}
	w := d.MeasureString(s)
	d.Dot = fixed.Point26_6{X: fixed.I(p.g.Width/2) - w/2, Y: fixed.I(y)}
	d.DrawString(s)
}
