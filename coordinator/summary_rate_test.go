package coordinator

import (
	"strings"
	"testing"
)

// TestRateLeavesRestoredOut: after a resume, the summary's rate counts this
// run's solutions only (restored ones made it about twice
// too high).
func TestRateLeavesRestoredOut(t *testing.T) {
	s := Summary{N: 12, Kind: "count", Solutions: 14200, RestoredSolutions: 10200, BusySeconds: 2, ElapsedSeconds: 2, Complete: true}
	want := HumanRate(2000) + " solutions/s"
	if got := s.Human(); !strings.Contains(got, want) {
		t.Errorf("Human() = %q, want the rate %q (4000 new solutions in 2 s)", got, want)
	}
}
