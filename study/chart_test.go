package study

import (
	"bytes"
	"image"
	"image/png"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// labels lists the labelled ticks.
func labels(ts []tick) []string {
	var out []string
	for _, t := range ts {
		if t.Label != "" {
			out = append(out, t.Label)
		}
	}
	return out
}

// TestLogTicks: the axis ends on the 1-2-5 series around the data and both
// ends are labelled, so an axis within one decade still reads at both.
func TestLogTicks(t *testing.T) {
	for _, tc := range []struct {
		yMin, yMax float64
		want       []string
	}{
		{5.2, 9.4, []string{"5", "10"}},              // inside one decade
		{12, 80, []string{"10", "20", "50", "100"}},  // one decade: the 2s and 5s too
		{3, 3, []string{"2", "5"}},                   // one value
		{10, 100, []string{"10", "20", "50", "100"}}, // ends on powers of ten
		{4.2, 23000, []string{"2", "10", "100", "1,000", "10,000", "50,000"}},
		{0.0031, 0.04, []string{"0.002", "0.005", "0.01", "0.02", "0.05"}},
		{0.0031, 0.4, []string{"0.002", "0.01", "0.1", "0.5"}},
	} {
		ts, lo, hi := logTicks(tc.yMin, tc.yMax)
		if got := labels(ts); !slices.Equal(got, tc.want) {
			t.Errorf("logTicks(%g, %g) labels = %q, want %q", tc.yMin, tc.yMax, got, tc.want)
		}
		if lo > tc.yMin || hi < tc.yMax {
			t.Errorf("logTicks(%g, %g): axis %g..%g does not hold the data", tc.yMin, tc.yMax, lo, hi)
		}
	}
}

// TestLogTicksProperties, on random ranges over 12 decades: the axis holds
// the data, its two ends are labelled ticks, at least two labels, and the
// ticks rise.
func TestLogTicksProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		a, b := math.Pow(10, rng.Float64()*12-3), math.Pow(10, rng.Float64()*12-3)
		yMin, yMax := min(a, b), max(a, b)
		ts, lo, hi := logTicks(yMin, yMax)
		if lo > yMin || hi < yMax || lo <= 0 {
			t.Fatalf("logTicks(%g, %g): axis %g..%g does not hold the data", yMin, yMax, lo, hi)
		}
		if len(ts) < 2 || !near(ts[0].Value, lo) || !near(ts[len(ts)-1].Value, hi) ||
			ts[0].Label == "" || ts[len(ts)-1].Label == "" {
			t.Fatalf("logTicks(%g, %g) = %v on %g..%g: want labelled ticks at both ends", yMin, yMax, ts, lo, hi)
		}
		for i := 1; i < len(ts); i++ {
			if ts[i].Value <= ts[i-1].Value {
				t.Fatalf("logTicks(%g, %g): ticks do not rise: %v", yMin, yMax, ts)
			}
		}
	}
}

func TestTickLabel(t *testing.T) {
	for _, tc := range []struct {
		m, e int
		want string
	}{{1, -3, "0.001"}, {5, -2, "0.05"}, {2, 0, "2"}, {1, 2, "100"}, {2, 4, "20,000"}, {1, 6, "1,000,000"}} {
		if got := tickLabel(tc.m, tc.e); got != tc.want {
			t.Errorf("tickLabel(%d, %d) = %q, want %q", tc.m, tc.e, got, tc.want)
		}
	}
}

func TestIntegerTicks(t *testing.T) {
	for _, tc := range []struct {
		lo, hi int
		want   []string
	}{
		{0, 8, []string{"0", "1", "2", "3", "4", "5", "6", "7", "8"}},
		{0, 20, []string{"0", "2", "4", "6", "8", "10", "12", "14", "16", "18", "20"}},
		{3, 3, []string{"3"}},
		{0, 100, []string{"0", "10", "20", "30", "40", "50", "60", "70", "80", "90", "100"}},
	} {
		if got := labels(integerTicks(tc.lo, tc.hi)); !slices.Equal(got, tc.want) {
			t.Errorf("integerTicks(%d, %d) = %q, want %q", tc.lo, tc.hi, got, tc.want)
		}
	}
}

// TestChartPoints draws a known study and reads the picture back: each
// point's marker is in its line's colour where the axes put it, and each
// labelled y tick has text left of the plot.
func TestChartPoints(t *testing.T) {
	var results []Result
	for n := 6; n <= 8; n++ {
		for k := 0; k <= n; k++ {
			// Lines a factor of 4 apart, so no marker covers another.
			mean := 10 * math.Pow(4, float64(n-6)) * math.Pow(1.3, math.Abs(float64(k-n/2)))
			results = append(results, Result{N: n, K: k, Trials: 400, Micros: Stat{Mean: mean, SD: mean / 4}})
		}
	}
	var buf bytes.Buffer
	if err := WriteChart(&buf, results); err != nil {
		t.Fatal(err)
	}
	decoded, err := png.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if b := decoded.Bounds(); b.Dx() != ChartWidth || b.Dy() != ChartHeight {
		t.Fatalf("chart is %v, want %dx%d", b, ChartWidth, ChartHeight)
	}
	img := image.NewRGBA(decoded.Bounds())
	for y := range ChartHeight {
		for x := range ChartWidth {
			img.Set(x, y, decoded.At(x, y))
		}
	}
	c := newChart(image.NewRGBA(img.Bounds()), results)
	for _, r := range results {
		x, y := int(c.x(float64(r.K))), int(c.y(r.Micros.Mean))
		if got, want := img.RGBAAt(x, y), palette[r.N-6]; got != want {
			t.Errorf("N=%d k=%d: pixel (%d, %d) = %v, want the line's colour %v", r.N, r.K, x, y, got, want)
		}
	}
	for _, tk := range c.yTicks {
		if tk.Label == "" {
			continue
		}
		y, ink := int(c.y(tk.Value)), 0
		for dy := -6; dy <= 6; dy++ {
			for x := 20; x < c.plot.Min.X-4; x++ {
				if p := img.RGBAAt(x, y+dy); p.R < 0x80 && p.G < 0x80 && p.B < 0x80 {
					ink++
				}
			}
		}
		if ink < 5 {
			t.Errorf("y tick %s at y=%d: %d dark pixels left of the plot, want its label", tk.Label, y, ink)
		}
	}
	if err := WriteChart(&bytes.Buffer{}, nil); err == nil {
		t.Error("WriteChart(nil) = nil error, want one: nothing to draw")
	}
}
