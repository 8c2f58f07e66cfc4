package coordinator

import "testing"

// TestSumWarning: N=28's total (about 2.5e18) fits a uint64, N=29's
// (about 2.7e19) does not; the fundamental count passes 2^64 one board
// later. A wrong threshold either warns for nothing or lets a sum wrap.
func TestSumWarning(t *testing.T) {
	for _, tc := range []struct {
		n      int
		unique bool
		warn   bool
	}{
		{27, false, false}, {28, false, false}, {29, false, true}, {32, false, true},
		{29, true, false}, {30, true, true},
	} {
		c := NewConfig(tc.n)
		c.Unique = tc.unique
		if got := c.SumWarning() != ""; got != tc.warn {
			t.Errorf("n=%d unique=%v: warning %v, want %v (%q)", tc.n, tc.unique, got, tc.warn, c.SumWarning())
		}
	}
}
