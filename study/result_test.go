package study

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestMomentsMatchTwoPass: the one-pass mean and standard deviation equal
// the textbook two-pass ones, on values with a large common offset (where
// a naive sum of squares loses every digit).
func TestMomentsMatchTwoPass(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		n      int
		offset float64
	}{{1, 0}, {2, 0}, {10, 0}, {1000, 0}, {1000, 1e9}} {
		xs := make([]float64, tc.n)
		var m moments
		for i := range xs {
			xs[i] = tc.offset + rng.ExpFloat64()*50
			m.add(xs[i])
		}
		var sum float64
		for _, x := range xs {
			sum += x
		}
		mean := sum / float64(len(xs))
		var ss float64
		for _, x := range xs {
			ss += (x - mean) * (x - mean)
		}
		sd := 0.0
		if len(xs) > 1 {
			sd = math.Sqrt(ss / float64(len(xs)-1))
		}
		got := m.stat()
		if math.Abs(got.Mean-mean) > 1e-9*math.Max(1, math.Abs(mean)) || math.Abs(got.SD-sd) > 1e-6*math.Max(1, sd) {
			t.Errorf("n=%d offset %g: stat = %+v, want mean %g sd %g", tc.n, tc.offset, got, mean, sd)
		}
	}
}

func TestCI95(t *testing.T) {
	s := Stat{Mean: 10, SD: 5}
	if got, want := s.CI95(100), 1.959964*5/10; math.Abs(got-want) > 1e-12 {
		t.Errorf("CI95(100) = %g, want %g", got, want)
	}
	if got := s.CI95(1); got != 0 {
		t.Errorf("CI95(1) = %g, want 0 (one trial has no spread)", got)
	}
}

// TestMarkdownSpread: each row carries the standard deviations and the 95%
// interval of the mean time, and the fastest-k line its ± half-width.
func TestMarkdownSpread(t *testing.T) {
	results := []Result{
		{N: 8, K: 0, Trials: 100, Failures: Stat{0, 0}, Micros: Stat{Mean: 20, SD: 10}},
		{N: 8, K: 1, Trials: 100, Failures: Stat{1.5, 2.25}, Micros: Stat{Mean: 12, SD: 5}},
		{N: 9, K: 0, Trials: 4, Failures: Stat{0, 0}, Micros: Stat{Mean: 3, SD: 9}},
	}
	var b strings.Builder
	if err := WriteMarkdown(&b, results); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| 8 | 0 | 100 | 0.00 | 0.00 | 20.0 | 10.0 | 18.0–22.0 |",
		"| 8 | 1 | 100 | 1.50 | 2.25 | 12.0 | 5.0 | 11.0–13.0 |",
		"| 9 | 0 | 4 | 0.00 | 0.00 | 3.0 | 9.0 | 0.0–11.8 |", // the interval stops at 0
		"N=8 k=1 (12.0 ± 1.0 µs), N=9 k=0 (3.0 ± 8.8 µs)",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
}
