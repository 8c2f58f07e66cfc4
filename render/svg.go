package render

import (
	"bufio"
	"encoding/xml"
	"fmt"
	"image/color"
	"io"
	"strconv"
	"strings"
)

// svgQueen is the crown of the PNG glyph in a 100×100 box (see newPainter).
const svgQueen = `<path d="M22 74L12 34L30 54L31 27L40 44L50 20L60 44L69 27L70 54L88 34L78 74Z` +
	`M20 78H80V87H20Z"/><circle cx="12" cy="30" r="6"/><circle cx="50" cy="16" r="6.5"/><circle cx="88" cy="30" r="6"/>`

// WriteSVG draws one board (cols: 0-based columns of rows 1..N) as an SVG
// picture with its caption, as --svg does: the status page draws the
// latest solutions of a listing with it.
func WriteSVG(w io.Writer, cols []int, caption string) error {
	return writeSVG(w, cols, caption, NoLabels)
}

// writeSVG writes the picture of one solution (0-based columns) with a
// caption under the board, laid out like the PNG (layout). The squares are
// one <pattern>, so the file grows with N, not N²; each queen is one <use
// class="queen"> element. Labels, when l asks for them, are <text> elements
// in one <g class="labels">.
func writeSVG(w io.Writer, cols []int, caption string, l Labels) error {
	n := len(cols)
	if n < 1 || n > maxSVGN {
		return fmt.Errorf("render: svg: n = %d, want 1..%d", n, maxSVGN)
	}
	if err := checkCols(cols, n); err != nil {
		return fmt.Errorf("render: svg: %w", err)
	}
	g := labelledLayout(n, l)
	side := n * g.Cell
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, `<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d">
<title>`, g.Width, g.Height, g.Width, g.Height)
	xml.EscapeText(bw, []byte(caption))
	fmt.Fprintf(bw, "</title>\n<defs>\n")
	c := g.Cell
	fmt.Fprintf(bw, `<pattern id="squares" x="%d" y="%d" width="%d" height="%d" patternUnits="userSpaceOnUse">`+
		`<rect width="%d" height="%d" fill="%s"/><rect x="%d" width="%d" height="%d" fill="%s"/><rect y="%d" width="%d" height="%d" fill="%s"/></pattern>`+"\n",
		g.X0, g.Y0, 2*c, 2*c, 2*c, 2*c, hex(colors.Light), c, c, c, hex(colors.Dark), c, c, c, hex(colors.Dark))
	if c >= glyphMinCell {
		fmt.Fprintf(bw, `<symbol id="queen" viewBox="0 0 100 100">%s</symbol>`+"\n", svgQueen)
	} else {
		in := float64(c/5) / float64(c) * 100
		fmt.Fprintf(bw, `<symbol id="queen" viewBox="0 0 100 100"><rect x="%g" y="%g" width="%g" height="%g"/></symbol>`+"\n", in, in, 100-2*in, 100-2*in)
	}
	fmt.Fprintf(bw, "</defs>\n")
	fmt.Fprintf(bw, `<rect width="%d" height="%d" fill="%s"/>`+"\n", g.Width, g.Height, hex(colors.Background))
	if c > 1 {
		fmt.Fprintf(bw, `<rect x="%d" y="%d" width="%d" height="%d" fill="%s"/>`+"\n", g.X0-2, g.Y0-2, side+4, side+4, hex(colors.Frame))
	}
	fmt.Fprintf(bw, `<rect x="%d" y="%d" width="%d" height="%d" fill="url(#squares)"/>`+"\n", g.X0, g.Y0, side, side)
	stroke := ""
	if c >= glyphMinCell {
		stroke = fmt.Sprintf(` stroke="%s" stroke-width="4" paint-order="stroke"`, hex(colors.Halo))
	}
	fmt.Fprintf(bw, `<g fill="%s"%s>`+"\n", hex(colors.Queen), stroke)
	var b []byte
	for r, col := range cols {
		b = append(b[:0], `<use class="queen" href="#queen" x="`...)
		b = strconv.AppendInt(b, int64(g.X0+col*c), 10)
		b = append(b, `" y="`...)
		b = strconv.AppendInt(b, int64(g.Y0+r*c), 10)
		b = append(b, `" width="`...)
		b = strconv.AppendInt(b, int64(c), 10)
		b = append(b, `" height="`...)
		b = strconv.AppendInt(b, int64(c), 10)
		b = append(b, "\"/>\n"...)
		bw.Write(b)
	}
	fmt.Fprintf(bw, "</g>\n")
	writeSVGLabels(bw, g)
	fmt.Fprintf(bw, `<text x="%d" y="%d" text-anchor="middle" font-family="Go, 'DejaVu Sans', Arial, sans-serif" font-size="%d" fill="%s">`,
		g.Width/2, g.captionBaseline(), captionSize, hex(colors.Text))
	xml.EscapeText(bw, []byte(caption))
	fmt.Fprintf(bw, "</text>\n</svg>\n")
	return bw.Flush()
}

// writeSVGLabels writes the labels of g's board, at the spots the PNG draws
// them.
func writeSVGLabels(bw *bufio.Writer, g geometry) {
	spots := g.Lab.spots(g.N, g.Cell, g.X0, g.Y0)
	if len(spots) == 0 {
		return
	}
	fmt.Fprintf(bw, `<g class="labels" text-anchor="middle" font-family="Go, 'DejaVu Sans', Arial, sans-serif" font-size="%g" fill="%s">`+"\n",
		g.Lab.Size, hex(colors.Text))
	for _, s := range spots {
		fmt.Fprintf(bw, `<text x="%d" y="%d">%s</text>`+"\n", s.X, s.Y, s.Text)
	}
	fmt.Fprintf(bw, "</g>\n")
}

// hex is a colour as #rrggbb.
func hex(c color.RGBA) string {
	return strings.ToLower(fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B))
}
