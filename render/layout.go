package render

import (
	"image"
	"image/color"
	"image/draw"
	"sync"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
)

// Picture limits and sizes. See doc.go for the rules they make.
const (
	// boardPixels is the side of a drawn board when N divides it: cells are
	// boardPixels/N pixels (integer division), between 1 and maxCell.
	boardPixels = 512
	// maxCell is the largest cell, so N=1..8 boards are not blown up.
	maxCell = 64
	// maxPNGN is the largest board a PNG (or a contact sheet) shows: from
	// N = 257 on a cell is one pixel, and 4096² pixels is a 64 MB image in
	// memory.
	maxPNGN = 4096
	// maxSVGN is the largest board an SVG shows. Its size grows with N, not
	// N² (the squares are a pattern, the queens N <use> elements): 100,000
	// queens are about 8 MB of SVG, past what viewers open comfortably.
	maxSVGN = 100_000
	// margin is the blank border around a board, in pixels.
	margin = 16
	// captionHeight is the band under the board that holds the caption.
	captionHeight = 36
	// minWidth keeps a caption readable under a small board.
	minWidth = 320
	// glyphMinCell is the smallest cell that gets the crown glyph; smaller
	// cells get a filled square, which stays visible at any size.
	glyphMinCell = 12
	// captionSize is the caption's font size in pixels.
	captionSize = 16
)

// Palette is the colours of every picture. The queen's crimson stands apart
// from both squares; a pale halo separates it from the dark squares.
type Palette struct {
	Background, Light, Dark, Queen, Halo, Frame, Text color.RGBA
}

// colors is the one palette; Colors hands out copies.
var colors = Palette{
	Background: color.RGBA{0xfa, 0xfa, 0xf7, 0xff},
	Light:      color.RGBA{0xf0, 0xd9, 0xb5, 0xff},
	Dark:       color.RGBA{0xb5, 0x88, 0x63, 0xff},
	Queen:      color.RGBA{0xc8, 0x10, 0x2e, 0xff},
	Halo:       color.RGBA{0xff, 0xfb, 0xf0, 0xff},
	Frame:      color.RGBA{0x5c, 0x40, 0x2a, 0xff},
	Text:       color.RGBA{0x22, 0x22, 0x22, 0xff},
}

// Colors returns the palette every picture is drawn in, for other pictures
// of boards (the trace package) that should look the same.
func Colors() Palette { return colors }

// geometry is where a picture of an N×N board puts things, in pixels. PNG and
// SVG share it.
type geometry struct {
	N             int
	Cell          int // side of one square
	Width, Height int // whole picture
	X0, Y0        int // top-left corner of the board
	Lab           labelGeometry
}

// layout returns the geometry of the picture of one N×N board:
//
//	Cell   = clamp(boardPixels/N, 1, maxCell)
//	Width  = max(N·Cell + 2·margin, minWidth)
//	Height = N·Cell + margin + captionHeight
//
// The board is centred horizontally, margin below the top edge.
func layout(n int) geometry { return labelledLayout(n, NoLabels) }

// labelledLayout is layout with room for labels: the rank band (Lab.Band)
// left of the board and the file band (Lab.Foot) under it, between the
// board and the caption:
//
//	Width  = max(Lab.Band + N·Cell + 2·margin, minWidth)
//	Height = N·Cell + Lab.Foot + margin + captionHeight
//
// The band and the board are centred together.
func labelledLayout(n int, l Labels) geometry {
	cell := min(max(boardPixels/n, 1), maxCell)
	side := n * cell
	lab := labelLayout(l, n, cell)
	unit := lab.Band + side
	w := max(unit+2*margin, minWidth)
	return geometry{
		N: n, Cell: cell,
		Width: w, Height: side + lab.Foot + margin + captionHeight,
		X0: (w-unit)/2 + lab.Band, Y0: margin,
		Lab: lab,
	}
}

// captionBaseline is the y of the caption's baseline.
func (g geometry) captionBaseline() int {
	return g.Y0 + g.N*g.Cell + g.Lab.Foot + captionHeight*2/3
}

// squareCenter is the pixel at the centre of the square of row r, column c
// (0-based; row 0 at the top, column 0 at the left).
func (g geometry) squareCenter(r, c int) image.Point {
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
	d := font.Drawer{Dst: dst, Src: image.NewUniform(colors.Text), Face: face}
	w := d.MeasureString(s).Ceil()
	d.Dot = fixed.P(x-w/2, y)
	d.DrawString(s)
}

// Face returns the embedded Go Regular font at size pixels, the font of
// every caption; the caller closes it. For other pictures of boards (the
// trace package) that should look the same.
func Face(size float64) font.Face { return newFace(size) }

// QueenGlyph returns the queen as a cell × cell mask: the crown of every
// picture, or a filled square on cells under 12 pixels.
func QueenGlyph(cell int) *image.Alpha { return newPainter(cell).queen }

// QueenSymbol is the crown as SVG shapes in a 100×100 box, for a <symbol
// viewBox="0 0 100 100">: the same glyph as QueenGlyph.
const QueenSymbol = svgQueen
