package study

import (
	"fmt"
	"image/color"
	"io"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/nqueens/nqueens/solver"
)

// The chart is ChartWidth × ChartHeight pixels: chartDPI dots per inch on a
// canvas of ChartWidth/chartDPI × ChartHeight/chartDPI inches.
const (
	ChartWidth  = 960
	ChartHeight = 600
	chartDPI    = 96
)

// palette holds ten colours that stay apart from each other (the "category
// 10" set), so the lines of N=12..20 do not repeat a colour; shapes differ
// too, for readers who cannot tell the colours apart.
var palette = []color.RGBA{
	{0x1f, 0x77, 0xb4, 0xff}, {0xff, 0x7f, 0x0e, 0xff}, {0x2c, 0xa0, 0x2c, 0xff},
	{0xd6, 0x27, 0x28, 0xff}, {0x94, 0x67, 0xbd, 0xff}, {0x8c, 0x56, 0x4b, 0xff},
	{0xe3, 0x77, 0xc2, 0xff}, {0x7f, 0x7f, 0x7f, 0xff}, {0xbc, 0xbd, 0x22, 0xff},
	{0x17, 0xbe, 0xcf, 0xff},
}

// WriteChart draws the mean time to the first solution (log scale) against
// k, one line per N with a legend, as a ChartWidth × ChartHeight PNG.
func WriteChart(w io.Writer, results []solver.Study) error {
	p := plot.New()
	p.Title.Text = "Las Vegas N-Queens: mean time to the first solution"
	p.X.Label.Text = "k (rows placed at random; the rest by backtracking)"
	p.Y.Label.Text = "mean time (µs, log scale)"
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Title.TextStyle.Font.Size = vg.Points(15)
	p.Title.Padding = vg.Points(8)
	p.X.Label.TextStyle.Font.Size = vg.Points(12)
	p.Y.Label.TextStyle.Font.Size = vg.Points(12)
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	p.Legend.Left = false
	p.Legend.XOffs = -vg.Points(6)
	p.Legend.YOffs = -vg.Points(6)
	p.Legend.Padding = vg.Points(2)
	p.Legend.ThumbnailWidth = 0.8 * vg.Centimeter
	p.Legend.TextStyle.Font.Size = vg.Points(11)
	maxK := 0
	for _, r := range results {
		maxK = max(maxK, r.K)
	}
	// Room on the right for the legend, so it never covers a line.
	p.X.Min = 0
	p.X.Max = float64(maxK) + 1 + 0.2*float64(maxK)
	p.X.Tick.Marker = integerTicks{max: maxK}

	line := 0
	for start := 0; start < len(results); {
		end := start
		for end < len(results) && results[end].N == results[start].N {
			end++
		}
		pts := make(plotter.XYs, 0, end-start)
		for _, r := range results[start:end] {
			// The log scale needs positive values; a mean below a nanosecond
			// cannot be measured anyway.
			pts = append(pts, plotter.XY{X: float64(r.K), Y: max(micros(r.MeanTime), micros(time.Nanosecond))})
		}
		l, s, err := plotter.NewLinePoints(pts)
		if err != nil {
			return fmt.Errorf("chart: %w", err)
		}
		c := palette[line%len(palette)]
		l.Color, l.Width = c, vg.Points(1.5)
		s.Color, s.Shape, s.Radius = c, plotutil.Shape(line), vg.Points(2.5)
		p.Add(l, s)
		p.Legend.Add(fmt.Sprintf("N=%d", results[start].N), l, s)
		line++
		start = end
	}
	if line == 0 {
		return fmt.Errorf("chart: no results to draw")
	}
	c := vgimg.NewWith(
		vgimg.UseWH(vg.Length(ChartWidth)/chartDPI*vg.Inch, vg.Length(ChartHeight)/chartDPI*vg.Inch),
		vgimg.UseDPI(chartDPI),
		vgimg.UseBackgroundColor(color.White),
	)
	dc := draw.New(c)
	p.Draw(draw.Crop(dc, vg.Points(8), -vg.Points(12), vg.Points(6), -vg.Points(6)))
	if _, err := (vgimg.PngCanvas{Canvas: c}).WriteTo(w); err != nil {
		return fmt.Errorf("chart: %w", err)
	}
	return nil
}

// integerTicks labels every integer k when there are few, every 2nd or 5th
// when there are many.
type integerTicks struct{ max int }

func (t integerTicks) Ticks(lo, hi float64) []plot.Tick {
	hi = min(hi, float64(t.max))
	step := 1
	for (hi-lo)/float64(step) > 25 {
		step *= 5
	}
	if (hi-lo)/float64(step) > 12 {
		step *= 2
	}
	var ts []plot.Tick
	for v := int(lo); float64(v) <= hi; v++ {
		if v%step == 0 {
			ts = append(ts, plot.Tick{Value: float64(v), Label: fmt.Sprint(v)})
		}
	}
	return ts
}
