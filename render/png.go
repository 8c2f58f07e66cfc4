package render

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"io"

	"golang.org/x/image/vector"
)

// painter draws boards with one cell size: the checkerboard and the queen
// masks are made once and reused for every solution.
type painter struct {
	cell  int
	queen *image.Alpha // the glyph, cell × cell
	halo  *image.Alpha // the glyph grown by a few pixels, drawn under it
}

func newPainter(cell int) *painter {
	p := &painter{cell: cell, queen: image.NewAlpha(image.Rect(0, 0, cell, cell))}
	if cell < glyphMinCell {
		// A filled square, inset a little when there is room for it.
		in := cell / 5
		draw.Draw(p.queen, image.Rect(in, in, cell-in, cell-in), image.Opaque, image.Point{}, draw.Src)
		return p
	}
	z := vector.NewRasterizer(cell, cell)
	s := float32(cell)
	shape := func(pts ...float32) {
		z.Reset(cell, cell)
		z.MoveTo(pts[0]*s, pts[1]*s)
		for i := 2; i < len(pts); i += 2 {
			z.LineTo(pts[i]*s, pts[i+1]*s)
		}
		z.ClosePath()
		z.DrawOp = draw.Over
		z.Draw(p.queen, p.queen.Bounds(), image.Opaque, image.Point{})
	}
	disc := func(cx, cy, r float32) {
		const k = 0.5523 // cubic Bézier approximation of a quarter circle
		cx, cy, r = cx*s, cy*s, r*s
		z.Reset(cell, cell)
		z.MoveTo(cx+r, cy)
		z.CubeTo(cx+r, cy+k*r, cx+k*r, cy+r, cx, cy+r)
		z.CubeTo(cx-k*r, cy+r, cx-r, cy+k*r, cx-r, cy)
		z.CubeTo(cx-r, cy-k*r, cx-k*r, cy-r, cx, cy-r)
		z.CubeTo(cx+k*r, cy-r, cx+r, cy-k*r, cx+r, cy)
		z.ClosePath()
		z.DrawOp = draw.Over
		z.Draw(p.queen, p.queen.Bounds(), image.Opaque, image.Point{})
	}
	// A crown: five points over a band, a ball on three of them, a base.
	// Everything from y = 0.44 down to the base between x = 0.40 and 0.60 is
	// solid, so the square's centre pixel is exactly the queen colour.
	shape(0.22, 0.74, 0.12, 0.34, 0.30, 0.54, 0.31, 0.27, 0.40, 0.44, 0.5, 0.20,
		0.60, 0.44, 0.69, 0.27, 0.70, 0.54, 0.88, 0.34, 0.78, 0.74)
	shape(0.20, 0.78, 0.80, 0.78, 0.80, 0.87, 0.20, 0.87)
	disc(0.12, 0.30, 0.06)
	disc(0.5, 0.16, 0.065)
	disc(0.88, 0.30, 0.06)
	p.halo = grow(p.queen, max(1, cell/28))
	return p
}

// grow returns the mask dilated by r pixels (a square structuring element).
func grow(m *image.Alpha, r int) *image.Alpha {
	b := m.Bounds()
	out := image.NewAlpha(b)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			var a uint8
			for dy := -r; dy <= r; dy++ {
				for dx := -r; dx <= r; dx++ {
					p := image.Pt(x+dx, y+dy)
					if p.In(b) {
						a = max(a, m.AlphaAt(p.X, p.Y).A)
					}
				}
			}
			out.SetAlpha(x, y, color.Alpha{A: a})
		}
	}
	return out
}

// checkerboard fills the n×n board with top-left corner at (x0, y0); the
// top-left square is light.
func (p *painter) checkerboard(img *image.RGBA, n, x0, y0 int) {
	side := n * p.cell
	rows := [2][]byte{make([]byte, 4*side), make([]byte, 4*side)}
	for parity := range 2 {
		for x := range side {
			c := colors.Light
			if (x/p.cell+parity)%2 == 1 {
				c = colors.Dark
			}
			copy(rows[parity][4*x:], []byte{c.R, c.G, c.B, c.A})
		}
	}
	for y := range side {
		off := img.PixOffset(x0, y0+y)
		copy(img.Pix[off:off+4*side], rows[(y/p.cell)%2])
	}
}

// frame draws a border of width w around the n×n board at (x0, y0).
func (p *painter) frame(img *image.RGBA, n, x0, y0, w int) {
	side := n * p.cell
	r := image.Rect(x0-w, y0-w, x0+side+w, y0+side+w)
	draw.Draw(img, r, image.NewUniform(colors.Frame), image.Point{}, draw.Src)
}

// queens draws a queen on each (row, cols[row]) square of the board at (x0, y0).
func (p *painter) queens(img *image.RGBA, cols []int, x0, y0 int) {
	b := p.queen.Bounds()
	for r, c := range cols {
		at := b.Add(image.Pt(x0+c*p.cell, y0+r*p.cell))
		if p.halo != nil {
			draw.DrawMask(img, at, image.NewUniform(colors.Halo), image.Point{}, p.halo, image.Point{}, draw.Over)
		}
		draw.DrawMask(img, at, image.NewUniform(colors.Queen), image.Point{}, p.queen, image.Point{}, draw.Over)
	}
}

// pngBoard draws the PNG of one solution; the empty board is drawn once.
type pngBoard struct {
	g     geometry
	p     *painter
	empty *image.RGBA
	img   *image.RGBA
	enc   png.Encoder
}

func newPNGBoard(n int, l Labels) *pngBoard {
	g := labelledLayout(n, l)
	b := &pngBoard{g: g, p: newPainter(g.Cell), enc: png.Encoder{CompressionLevel: png.BestSpeed}}
	b.empty = image.NewRGBA(image.Rect(0, 0, g.Width, g.Height))
	draw.Draw(b.empty, b.empty.Bounds(), image.NewUniform(colors.Background), image.Point{}, draw.Src)
	if g.Cell > 1 {
		b.p.frame(b.empty, n, g.X0, g.Y0, 2)
	}
	b.p.checkerboard(b.empty, n, g.X0, g.Y0)
	g.Lab.draw(b.empty, n, g.Cell, g.X0, g.Y0)
	b.img = image.NewRGBA(b.empty.Bounds())
	return b
}

// draw returns the picture of cols with caption; the image is reused by the
// next call.
func (b *pngBoard) draw(cols []int, caption string) *image.RGBA {
	copy(b.img.Pix, b.empty.Pix)
	b.p.queens(b.img, cols, b.g.X0, b.g.Y0)
	g := b.g
	drawText(b.img, caption, g.Width/2, g.captionBaseline(), g.Width-8, captionSize)
	return b.img
}

func (b *pngBoard) encode(w io.Writer, cols []int, caption string) error {
	return b.enc.Encode(w, b.draw(cols, caption))
}

// writePNG writes the picture of one solution (0-based columns) with a
// caption under the board, and labels when l asks for them, sized by
// labelledLayout.
func writePNG(w io.Writer, cols []int, caption string, l Labels) error {
	n := len(cols)
	if n < 1 || n > maxPNGN {
		return fmt.Errorf("render: png: n = %d, want 1..%d", n, maxPNGN)
	}
	if err := checkCols(cols, n); err != nil {
		return fmt.Errorf("render: png: %w", err)
	}
	return newPNGBoard(n, l).encode(w, cols, caption)
}
