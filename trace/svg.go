package trace

import (
	"bufio"
	"encoding/xml"
	"fmt"
	"image"
	"image/color"
	"io"

	"github.com/nqueens/nqueens/render"
)

// svgStep is the time each SVG frame is shown, in seconds.
const svgStep = 0.35

// WriteSVG writes t as one SVG that plays itself: the empty board is drawn
// once, each recorded step is a <g class="frame"> holding what differs from
// it (shaded squares, queens, the caption), and a CSS animation shows the
// frames one after another, svgStep seconds each, looping. No script and no
// slider: it plays where an <img> shows it.
func WriteSVG(w io.Writer, t *Trace) error {
	g, pal := layout(t.N), render.Colors()
	bw := bufio.NewWriter(w)
	steps := len(t.Steps)
	total := float64(steps) * svgStep
	fmt.Fprintf(bw, `<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d">
<title>`, g.Width, g.Height, g.Width, g.Height)
	xml.EscapeText(bw, []byte(fmt.Sprintf("N=%d · backtracking, %d steps", t.N, t.Total)))
	fmt.Fprintf(bw, "</title>\n<style>.frame{visibility:hidden;animation:show %.2fs step-end infinite}"+
		"@keyframes show{0%%{visibility:visible}%.6f%%{visibility:hidden}100%%{visibility:hidden}}"+
		"text{font-family:Go,'DejaVu Sans',Arial,sans-serif;fill:%s}</style>\n", total, 100/float64(max(steps, 1)), hex(pal.Text))
	fmt.Fprintf(bw, `<defs><symbol id="queen" viewBox="0 0 100 100">%s</symbol></defs>`+"\n", render.QueenSymbol)
	side := g.N * g.Cell
	fmt.Fprintf(bw, `<rect width="%d" height="%d" fill="%s"/>`+"\n", g.Width, g.Height, hex(pal.Background))
	fmt.Fprintf(bw, `<rect x="%d" y="%d" width="%d" height="%d" fill="%s"/>`+"\n", g.X0-2, g.Y0-2, side+4, side+4, hex(pal.Frame))
	for r := range g.N {
		for c := range g.N {
			plain, _ := squareColours(r, c)
			svgRect(bw, g.square(r, c), plain)
		}
	}
	t.Frames(func(f Frame) bool {
		writeSVGFrame(bw, g, t, f)
		return true
	})
	fmt.Fprintf(bw, "</svg>\n")
	return bw.Flush()
}

// writeSVGFrame writes the <g class="frame"> of f.
func writeSVGFrame(bw *bufio.Writer, g geometry, t *Trace, f Frame) {
	pal := render.Colors()
	fmt.Fprintf(bw, `<g class="frame" data-step="%d" data-kind="%s" style="animation-delay:%.2fs">`+"\n", f.Index+1, f.Step.Kind, float64(f.Index)*svgStep)
	for r := len(f.Cols); r < g.N; r++ {
		for c := range g.N {
			if attackedBy(f.Cols, r, c) {
				_, shaded := squareColours(r, c)
				svgRect(bw, g.square(r, c), shaded)
			}
		}
	}
	s := f.Step
	ghost := func() {
		fmt.Fprintf(bw, `<use href="#queen" x="%d" y="%d" width="%d" height="%d" fill="%s"/>`+"\n",
			g.X0+s.Col*g.Cell, g.Y0+s.Row*g.Cell, g.Cell, g.Cell, hex(ghostC))
	}
	switch s.Kind {
	case Solution:
		for r, c := range f.Cols {
			svgRect(bw, g.square(r, c), solutionC)
		}
	case Conflict:
		svgRect(bw, g.square(s.Row, s.Col), conflictC)
		for q, qc := range f.Cols {
			if attacks(q, qc, s.Row, s.Col) {
				svgOutline(bw, g.square(q, qc), attackerC)
			}
		}
		ghost()
	case Backtrack:
		ghost()
	}
	for r, c := range f.Cols {
		fmt.Fprintf(bw, `<use class="queen" href="#queen" x="%d" y="%d" width="%d" height="%d" fill="%s"/>`+"\n",
			g.X0+c*g.Cell, g.Y0+r*g.Cell, g.Cell, g.Cell, hex(pal.Queen))
	}
	if s.Kind == Place {
		svgOutline(bw, g.square(s.Row, s.Col), pal.Queen)
	}
	side := g.N * g.Cell
	for _, line := range []struct {
		y, size int
		s       string
	}{{g.Y0 + side + 22, headingSize, t.Heading(f.Index)}, {g.Y0 + side + 42, detailSize, f.Detail()}} {
		fmt.Fprintf(bw, `<text x="%d" y="%d" text-anchor="middle" font-size="%d">`, g.Width/2, line.y, line.size)
		xml.EscapeText(bw, []byte(line.s))
		fmt.Fprintf(bw, "</text>\n")
	}
	fmt.Fprintf(bw, "</g>\n")
}

func svgRect(bw *bufio.Writer, r image.Rectangle, c color.RGBA) {
	fmt.Fprintf(bw, `<rect x="%d" y="%d" width="%d" height="%d" fill="%s"/>`+"\n", r.Min.X, r.Min.Y, r.Dx(), r.Dy(), hex(c))
}

// svgOutline is outline's 3 pixel border inside r.
func svgOutline(bw *bufio.Writer, r image.Rectangle, c color.RGBA) {
	fmt.Fprintf(bw, `<rect x="%g" y="%g" width="%d" height="%d" fill="none" stroke="%s" stroke-width="3"/>`+"\n",
		float64(r.Min.X)+1.5, float64(r.Min.Y)+1.5, r.Dx()-3, r.Dy()-3, hex(c))
}

// hex is a colour as #rrggbb.
func hex(c color.RGBA) string { return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B) }
