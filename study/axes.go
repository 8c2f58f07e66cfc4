package study

import (
	"math"
	"strconv"
)

// tick is one mark on an axis; an empty Label is a grid line only.
type tick struct {
	Value float64
	Label string
}

// integerTicks labels the integers lo..hi, every one when there are few,
// every 2nd, 5th, 10th... when there are many (at most about 12 labels).
func integerTicks(lo, hi int) []tick {
	step := 1
	for _, s := range []int{1, 2, 5, 10, 20, 50, 100, 200, 500, 1000} {
		step = s
		if (hi-lo)/s <= 12 {
			break
		}
	}
	var ts []tick
	for v := lo; v <= hi; v++ {
		if v%step == 0 {
			ts = append(ts, tick{float64(v), strconv.Itoa(v)})
		}
	}
	return ts
}

// logTicks chooses a log axis for data from yMin to yMax (both positive):
// its ends lo and hi are the nearest values of the 1-2-5 series outside the
// data, and both are labelled, so even an axis inside one decade reads at
// its two ends. Powers of ten in between are labelled too, and on an axis
// of under a decade and a half so are the 2s and 5s; the other multiples
// (2..9 times a power of ten) are grid lines without labels, left out on
// axes of more than four decades where they would crowd.
func logTicks(yMin, yMax float64) (ts []tick, lo, hi float64) {
	lo, hi = floor125(yMin), ceil125(yMax)
	if lo >= hi {
		lo, hi = floor125(lo*0.999), ceil125(hi*1.001)
	}
	span := math.Log10(hi / lo)
	for e := int(math.Floor(math.Log10(lo))); float64(e) <= math.Ceil(math.Log10(hi)); e++ {
		for m := 1; m <= 9; m++ {
			v := float64(m) * math.Pow(10, float64(e))
			if !between(v, lo, hi) {
				continue
			}
			t := tick{Value: v}
			switch {
			case m == 1, near(v, lo), near(v, hi), span < 1.5 && (m == 2 || m == 5):
				t.Label = tickLabel(m, e)
			case span > 4:
				continue
			}
			ts = append(ts, t)
		}
	}
	return ts, lo, hi
}

// near reports whether a and b are equal up to rounding.
func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(a, b) }

// between reports whether lo ≤ v ≤ hi up to rounding.
func between(v, lo, hi float64) bool { return (v >= lo || near(v, lo)) && (v <= hi || near(v, hi)) }

// series125 is one decade of the 1-2-5 series, with the next decade's 1.
var series125 = []float64{1, 2, 5, 10}

// floor125 is the largest value of the 1-2-5 series at most v (v > 0).
func floor125(v float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(v)))
	out := p
	for _, m := range series125 {
		if m*p <= v || near(m*p, v) {
			out = m * p
		}
	}
	return out
}

// ceil125 is the smallest value of the 1-2-5 series at least v (v > 0).
func ceil125(v float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range series125 {
		if m*p >= v || near(m*p, v) {
			return m * p
		}
	}
	return 10 * p
}

// tickLabel writes m·10^e in plain digits: 0.05, 2, 100, 20,000.
func tickLabel(m, e int) string {
	if e < 0 {
		return strconv.FormatFloat(float64(m)*math.Pow(10, float64(e)), 'f', -e, 64)
	}
	s := strconv.Itoa(m)
	for range e {
		s += "0"
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
