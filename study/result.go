package study

import "math"

// Result is one (N, k) cell of the Las Vegas study: over Trials runs of
// the method, the failed attempts before the first solution and the time
// to it in microseconds, each as a mean and a spread.
type Result struct {
	N, K, Trials int
	Failures     Stat // failed attempts per trial
	Micros       Stat // microseconds per trial, wall clock
}

// Stat is the mean and the sample standard deviation of a cell's trials.
// The standard deviation is the spread of single trials (how far one run
// of the method may stray); CI95 is the spread of the mean (how far the
// table's figure may be from the method's true mean).
type Stat struct {
	Mean, SD float64
}

// z95 is the normal distribution's two-sided 95% quantile. The interval
// of the mean is Mean ± z95·SD/√trials: the normal approximation, which
// the central limit theorem makes good from a few dozen trials whatever
// the shape of a single trial's time (heavy-tailed here: a few trials
// backtrack far longer than the rest).
const z95 = 1.959964

// CI95 is the half-width of the 95% confidence interval of the mean over
// trials trials (0 for fewer than 2: one trial has no spread to measure).
func (s Stat) CI95(trials int) float64 {
	if trials < 2 {
		return 0
	}
	return z95 * s.SD / math.Sqrt(float64(trials))
}

// moments accumulates a mean and a variance one value at a time (Welford's
// method), so a cell of many trials keeps three numbers, not every trial,
// and no large sums of squares cancel each other.
type moments struct {
	n        int
	mean, m2 float64 // m2: the sum of squared differences from the mean
}

func (m *moments) add(x float64) {
	m.n++
	d := x - m.mean
	m.mean += d / float64(m.n)
	m.m2 += d * (x - m.mean)
}

// stat is the mean and the sample standard deviation (n-1 in the
// denominator; 0 for fewer than 2 values).
func (m moments) stat() Stat {
	if m.n < 2 {
		return Stat{Mean: m.mean}
	}
	return Stat{Mean: m.mean, SD: math.Sqrt(m.m2 / float64(m.n-1))}
}
