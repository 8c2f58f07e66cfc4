package study

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"io"
	"math"

	"golang.org/x/image/font"
	"golang.org/x/image/math/fixed"

	"github.com/nqueens/nqueens/render"
)

// The chart is ChartWidth × ChartHeight pixels: the plot, a title above it,
// tick labels and axis names left of and under it, the legend right of it.
const (
	ChartWidth  = 960
	ChartHeight = 600

	marginLeft   = 86  // y tick labels and the y axis name
	marginRight  = 110 // the legend
	marginTop    = 48  // the title
	marginBottom = 62  // x tick labels and the x axis name

	titleSize = 18 // font sizes in pixels
	nameSize  = 15
	tickSize  = 13

	lineWidth    = 1.75 // pixels
	markerRadius = 3.75
)

// palette holds ten colours that stay apart from each other (the "category
// 10" set), so the lines of N=12..20 do not repeat a colour; marker shapes
// differ too, for readers who cannot tell the colours apart.
var palette = []color.RGBA{
	{0x1f, 0x77, 0xb4, 0xff}, {0xff, 0x7f, 0x0e, 0xff}, {0x2c, 0xa0, 0x2c, 0xff},
	{0xd6, 0x27, 0x28, 0xff}, {0x94, 0x67, 0xbd, 0xff}, {0x8c, 0x56, 0x4b, 0xff},
	{0xe3, 0x77, 0xc2, 0xff}, {0x7f, 0x7f, 0x7f, 0xff}, {0xbc, 0xbd, 0x22, 0xff},
	{0x17, 0xbe, 0xcf, 0xff},
}

var (
	inkColor   = color.RGBA{0x22, 0x22, 0x22, 0xff} // text and the frame
	gridMajor  = color.RGBA{0xd8, 0xd8, 0xd8, 0xff} // lines at labelled ticks
	gridMinor  = color.RGBA{0xf0, 0xf0, 0xf0, 0xff} // lines at the other ticks
	background = color.RGBA{0xff, 0xff, 0xff, 0xff}
)

// minMicros is the floor of the log axis: the log of zero is undefined, and
// a mean below a nanosecond cannot be measured anyway.
const minMicros = 1e-3

// WriteChart draws the mean time to the first solution (log scale) against
// k, one line per N with a legend, as a ChartWidth × ChartHeight PNG. A bar
// through each point spans the 95% interval of its mean.
//
// It is drawn with the standard library's image packages, the x/image
// rasterizer and render's embedded font: a chart of lines and markers
// needs no plotting library, and the one it used (gonum.org/v1/plot, with
// its PDF, SVG and LaTeX back ends and fonts) made up almost a quarter of
// the coordinator's binary.
func WriteChart(w io.Writer, results []Result) error {
	if len(results) == 0 {
		return fmt.Errorf("chart: no results to draw")
	}
	img := image.NewRGBA(image.Rect(0, 0, ChartWidth, ChartHeight))
	draw.Draw(img, img.Bounds(), image.NewUniform(background), image.Point{}, draw.Src)
	c := newChart(img, results)
	c.grid()
	c.lines(results)
	c.text()
	if err := png.Encode(w, img); err != nil {
		return fmt.Errorf("chart: %w", err)
	}
	return nil
}

// chart maps the data onto the plot rectangle: x linear in k, y
// logarithmic in microseconds.
type chart struct {
	img          *image.RGBA
	plot         image.Rectangle
	xLo, xHi     float64 // k at the left and right edges
	yLo, yHi     float64 // log10 of the microseconds at the bottom and top
	xTicks       []tick
	yTicks       []tick
	legendLabels []string
}

func newChart(img *image.RGBA, results []Result) *chart {
	c := &chart{img: img, plot: image.Rect(marginLeft, marginTop, ChartWidth-marginRight, ChartHeight-marginBottom)}
	kLo, kHi := results[0].K, results[0].K
	yMin, yMax := math.Inf(1), math.Inf(-1)
	for _, r := range results {
		kLo, kHi = min(kLo, r.K), max(kHi, r.K)
		// The axis holds the bars too, but not a bar that reaches past a
		// tenth or ten times its mean (a heavy tail's normal interval can
		// reach below zero): that bar runs off the edge of the plot.
		lo, hi := interval(r)
		m := max(r.Micros.Mean, minMicros)
		yMin, yMax = min(yMin, max(lo, m/10)), max(yMax, min(hi, m*10))
	}
	c.xTicks = integerTicks(kLo, kHi)
	c.xLo, c.xHi = float64(kLo)-0.5, float64(kHi)+0.5
	var lo, hi float64
	c.yTicks, lo, hi = logTicks(yMin, yMax)
	c.yLo, c.yHi = math.Log10(lo), math.Log10(hi)
	return c
}

// x and y are the pixel coordinates of k and of a time in microseconds.
func (c *chart) x(k float64) float32 {
	return float32(c.plot.Min.X) + float32((k-c.xLo)/(c.xHi-c.xLo))*float32(c.plot.Dx())
}

func (c *chart) y(micros float64) float32 {
	f := (math.Log10(max(micros, minMicros)) - c.yLo) / (c.yHi - c.yLo)
	return float32(c.plot.Max.Y) - float32(f)*float32(c.plot.Dy())
}

// grid draws the grid lines at every tick and the frame around the plot.
func (c *chart) grid() {
	for _, t := range c.yTicks {
		col := gridMinor
		if t.Label != "" {
			col = gridMajor
		}
		y := int(math.Round(float64(c.y(t.Value))))
		c.rect(image.Rect(c.plot.Min.X, y, c.plot.Max.X, y+1), col)
	}
	for _, t := range c.xTicks {
		x := int(math.Round(float64(c.x(t.Value))))
		c.rect(image.Rect(x, c.plot.Min.Y, x+1, c.plot.Max.Y), gridMajor)
	}
	p := c.plot
	for _, r := range []image.Rectangle{
		image.Rect(p.Min.X, p.Min.Y, p.Max.X+1, p.Min.Y+1), image.Rect(p.Min.X, p.Max.Y, p.Max.X+1, p.Max.Y+1),
		image.Rect(p.Min.X, p.Min.Y, p.Min.X+1, p.Max.Y+1), image.Rect(p.Max.X, p.Min.Y, p.Max.X+1, p.Max.Y+1),
	} {
		c.rect(r, inkColor)
	}
}

func (c *chart) rect(r image.Rectangle, col color.RGBA) {
	draw.Draw(c.img, r, image.NewUniform(col), image.Point{}, draw.Src)
}

// lines draws one line with markers per N, in the order of results, and
// records the legend's entries.
func (c *chart) lines(results []Result) {
	for start, line := 0, 0; start < len(results); line++ {
		end := start
		for end < len(results) && results[end].N == results[start].N {
			end++
		}
		col := palette[line%len(palette)]
		var pts []point
		for _, r := range results[start:end] {
			x := c.x(float64(r.K))
			pts = append(pts, point{x, c.y(r.Micros.Mean)})
			lo, hi := interval(r)
			top, bottom := float32(c.plot.Min.Y), float32(c.plot.Max.Y)
			fill(c.img, col, errorBar(x, min(max(c.y(lo), top), bottom), min(max(c.y(hi), top), bottom))...)
		}
		fill(c.img, col, strokePolyline(pts, lineWidth)...)
		for _, p := range pts {
			fill(c.img, col, marker(line, p, markerRadius))
		}
		c.legendLabels = append(c.legendLabels, fmt.Sprintf("N=%d", results[start].N))
		start = end
	}
}

// text draws the title, the tick labels, the axis names and the legend.
func (c *chart) text() {
	p := c.plot
	title, names, ticks := render.Face(titleSize), render.Face(nameSize), render.Face(tickSize)
	defer title.Close()
	defer names.Close()
	defer ticks.Close()
	centre := func(face font.Face, s string, x, baseline int) {
		w := font.MeasureString(face, s).Ceil()
		drawString(c.img, face, s, x-w/2, baseline)
	}
	centre(title, "Las Vegas N-Queens: mean time to the first solution", (p.Min.X+p.Max.X)/2, marginTop-18)
	for _, t := range c.xTicks {
		centre(ticks, t.Label, int(c.x(t.Value)), p.Max.Y+tickSize+6)
	}
	centre(names, "k (rows placed at random; the rest by backtracking)", (p.Min.X+p.Max.X)/2, ChartHeight-14)
	for _, t := range c.yTicks {
		if t.Label == "" {
			continue
		}
		w := font.MeasureString(ticks, t.Label).Ceil()
		drawString(c.img, ticks, t.Label, p.Min.X-8-w, int(c.y(t.Value))+tickSize*36/100)
	}
	drawVertical(c.img, names, "mean time (µs, log scale)", 8, (p.Min.Y+p.Max.Y)/2)
	for i, label := range c.legendLabels {
		col := palette[i%len(palette)]
		y := float32(p.Min.Y + 14 + 22*i)
		x0 := float32(p.Max.X + 14)
		fill(c.img, col, strokePolyline([]point{{x0, y}, {x0 + 30, y}}, lineWidth)...)
		fill(c.img, col, marker(i, point{x0 + 15, y}, markerRadius))
		drawString(c.img, ticks, label, int(x0)+38, int(y)+tickSize*36/100)
	}
	y := p.Min.Y + 14 + 22*len(c.legendLabels) + 8
	for i, s := range []string{"bars: 95%", "interval of", "the mean"} {
		drawString(c.img, ticks, s, p.Max.X+14, y+(tickSize+4)*i+tickSize)
	}
}

// interval is the 95% interval of a result's mean time, in microseconds,
// kept on the log axis.
func interval(r Result) (lo, hi float64) {
	ci := r.Micros.CI95(r.Trials)
	return max(r.Micros.Mean-ci, minMicros), max(r.Micros.Mean+ci, minMicros)
}

// drawString draws s in ink with its baseline starting at (x, y).
func drawString(dst draw.Image, face font.Face, s string, x, y int) {
	d := font.Drawer{Dst: dst, Src: image.NewUniform(inkColor), Face: face, Dot: fixed.P(x, y)}
	d.DrawString(s)
}

// drawVertical draws s turned a quarter left (read from the bottom up),
// centred on y, its top at x: the text is drawn level into a scratch image
// and copied turned.
func drawVertical(dst *image.RGBA, face font.Face, s string, x, y int) {
	m := face.Metrics()
	w, h := font.MeasureString(face, s).Ceil(), (m.Ascent + m.Descent).Ceil()
	level := image.NewRGBA(image.Rect(0, 0, w, h))
	drawString(level, face, s, 0, m.Ascent.Ceil())
	turned := image.NewRGBA(image.Rect(0, 0, h, w))
	for ly := range h {
		for lx := range w {
			turned.SetRGBA(ly, w-1-lx, level.RGBAAt(lx, ly))
		}
	}
	draw.Draw(dst, image.Rect(x, y-w/2, x+h, y-w/2+w), turned, image.Point{}, draw.Over)
}
