package render

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"io"
	"sync"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
	"golang.org/x/image/vector"
)

// Picture limits and sizes. See doc.go for the rules they make.
const (
	// BoardPixels is the side of a drawn board when N divides it: cells are
	// BoardPixels/N pixels (integer division), between 1 and MaxCell.
	BoardPixels = 512
	// MaxCell is the largest cell, so N=1..8 boards are not blown up.
	MaxCell = 64
	// MaxPNGN is the largest board a PNG (or a contact sheet) shows: from
	// N = 257 on a cell is one pixel, and 4096² pixels is a 64 MB image in
	// memory.
	MaxPNGN = 4096
	// MaxSVGN is the largest board an SVG shows. Its size grows with N, not
	// N² (the squares are a pattern, the queens N <use> elements): 100,000
	// queens are about 8 MB of SVG, past what viewers open comfortably.
	MaxSVGN = 100_000
	// Margin is the blank border around a board, in pixels.
	Margin = 16
	// CaptionHeight is the band under the board that holds the caption.
	CaptionHeight = 36
	// MinWidth keeps a caption readable under a small board.
	MinWidth = 320
	// glyphMinCell is the smallest cell that gets the crown glyph; smaller
	// cells get a filled square, which stays visible at any size.
	glyphMinCell = 12
	// captionSize is the caption's font size in pixels.
	captionSize = 16
)

// Colours of every picture. The queen's crimson stands apart from both
// squares; a pale halo separates it from the dark squares.
var (
	Background  = color.RGBA{0xfa, 0xfa, 0xf7, 0xff}
	LightSquare = color.RGBA{0xf0, 0xd9, 0xb5, 0xff}
	DarkSquare  = color.RGBA{0xb5, 0x88, 0x63, 0xff}
	QueenColor  = color.RGBA{0xc8, 0x10, 0x2e, 0xff}
	haloColor   = color.RGBA{0xff, 0xfb, 0xf0, 0xff}
	frameColor  = color.RGBA{0x5c, 0x40, 0x2a, 0xff}
	textColor   = color.RGBA{0x22, 0x22, 0x22, 0xff}
)

// Geometry is where a picture of an N×N board puts things, in pixels. PNG and
// SVG share it.
type Geometry struct {
	N             int
	Cell          int // side of one square
	Width, Height int // whole picture
	X0, Y0        int // top-left corner of the board
}

// Layout returns the geometry of the picture of one N×N board:
//
//	Cell   = clamp(BoardPixels/N, 1, MaxCell)
//	Width  = max(N·Cell + 2·Margin, MinWidth)
//	Height = N·Cell + Margin + CaptionHeight
//
// The board is centred horizontally, Margin below the top edge.
func Layout(n int) Geometry {
	cell := min(max(BoardPixels/n, 1), MaxCell)
	side := n * cell
	w := max(side+2*Margin, MinWidth)
	return Geometry{
		N: n, Cell: cell,
		Width: w, Height: side + Margin + CaptionHeight,
		X0: (w - side) / 2, Y0: Margin,
	}
}

// SquareCenter is the pixel at the centre of the square of row r, column c
// (0-based; row 0 at the top, column 0 at the left).
func (g Geometry) SquareCenter(r, c int) image.Point {
	return image.Pt(g.X0+c*g.Cell+g.Cell/2, g.Y0+r*g.Cell+g.Cell/2)
}

// goFont is the embedded Go Regular font, parsed once.
var goFont = sync.OnceValue(func() *opentype.Font {
	f, err := opentype.Parse(goregular.TTF)
	if err != nil {
		panic("render: embedded font: " + err.Error()) // cannot happen: the bytes are compiled in
	}
	return f
})

// newFace returns the Go Regular face at size pixels.
func newFace(size float64) font.Face {
	face, err := opentype.NewFace(goFont(), &opentype.FaceOptions{Size: size, DPI: 72, Hinting: font.HintingFull})
	if err != nil {
		panic("render: font face: " + err.Error()) // cannot happen for a positive size
	}
	return face
}

// drawText writes s centred on x with its baseline at y, shrinking the font
// until it fits in maxWidth.
func drawText(dst draw.Image, s string, x, y, maxWidth int, size float64) {
	face := newFace(size)
	for font.MeasureString(face, s).Ceil() > maxWidth && size > 6 {
		face.Close()
		size--
		face = newFace(size)
	}
	defer face.Close()
	d := font.Drawer{Dst: dst, Src: image.NewUniform(textColor), Face: face}
	w := d.MeasureString(s).Ceil()
	d.Dot = fixed.P(x-w/2, y)
	d.DrawString(s)
}

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
	// solid, so the square's centre pixel is exactly QueenColor.
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
			c := LightSquare
			if (x/p.cell+parity)%2 == 1 {
				c = DarkSquare
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
	draw.Draw(img, r, image.NewUniform(frameColor), image.Point{}, draw.Src)
}

// queens draws a queen on each (row, cols[row]) square of the board at (x0, y0).
func (p *painter) queens(img *image.RGBA, cols []int, x0, y0 int) {
	b := p.queen.Bounds()
	for r, c := range cols {
		at := b.Add(image.Pt(x0+c*p.cell, y0+r*p.cell))
		if p.halo != nil {
			draw.DrawMask(img, at, image.NewUniform(haloColor), image.Point{}, p.halo, image.Point{}, draw.Over)
		}
		draw.DrawMask(img, at, image.NewUniform(QueenColor), image.Point{}, p.queen, image.Point{}, draw.Over)
	}
}

// pngBoard draws the PNG of one solution; the empty board is drawn once.
type pngBoard struct {
	g     Geometry
	p     *painter
	empty *image.RGBA
	img   *image.RGBA
	enc   png.Encoder
}

func newPNGBoard(n int) *pngBoard {
	g := Layout(n)
	b := &pngBoard{g: g, p: newPainter(g.Cell), enc: png.Encoder{CompressionLevel: png.BestSpeed}}
	b.empty = image.NewRGBA(image.Rect(0, 0, g.Width, g.Height))
	draw.Draw(b.empty, b.empty.Bounds(), image.NewUniform(Background), image.Point{}, draw.Src)
	if g.Cell > 1 {
		b.p.frame(b.empty, n, g.X0, g.Y0, 2)
	}
	b.p.checkerboard(b.empty, n, g.X0, g.Y0)
	b.img = image.NewRGBA(b.empty.Bounds())
	return b
}

// draw returns the picture of cols with caption; the image is reused by the
// next call.
func (b *pngBoard) draw(cols []int, caption string) *image.RGBA {
	copy(b.img.Pix, b.empty.Pix)
	b.p.queens(b.img, cols, b.g.X0, b.g.Y0)
	g := b.g
	drawText(b.img, caption, g.Width/2, g.Y0+g.N*g.Cell+CaptionHeight*2/3, g.Width-8, captionSize)
	return b.img
}

func (b *pngBoard) encode(w io.Writer, cols []int, caption string) error {
	return b.enc.Encode(w, b.draw(cols, caption))
}

// WritePNG writes the picture of one solution (0-based columns) with a
// caption under the board, sized by Layout.
func WritePNG(w io.Writer, cols []int, caption string) error {
	n := len(cols)
	if n < 1 || n > MaxPNGN {
		return fmt.Errorf("render: png: n = %d, want 1..%d", n, MaxPNGN)
	}
	if err := checkCols(cols, n); err != nil {
		return fmt.Errorf("render: png: %w", err)
	}
	return newPNGBoard(n).encode(w, cols, caption)
}
