package status

import (
	"testing"
	"time"

	"github.com/nqueens/nqueens/coordinator"
)

// TestJoinProgressByUnits: a join job's units report no nodes, so its
// progress and ETA go by units (a compose run of N=20 showed 0.0% and no
// ETA until the end); restored units count as done but not in the rate.
func TestJoinProgressByUnits(t *testing.T) {
	for _, tc := range []struct {
		name                string
		committed, restored int
		busy                time.Duration
		fraction            float64
		eta                 time.Duration
	}{
		{"fresh", 64, 0, 10 * time.Second, 0.25, 30 * time.Second},
		{"resumed", 64, 32, 10 * time.Second, 0.25, 60 * time.Second},
	} {
		s := coordinator.Status{Restored: tc.restored, Busy: tc.busy}
		s.Summary.Engine, s.Summary.Tasks, s.Summary.Committed = "join", 256, tc.committed
		e := EstimateOf(s)
		if e.Fraction != tc.fraction || !e.HasETA || (e.ETA-tc.eta).Abs() > time.Millisecond {
			t.Errorf("%s: fraction %v, ETA %v (known %v); want %v and %v", tc.name, e.Fraction, e.ETA, e.HasETA, tc.fraction, tc.eta)
		}
	}
	s := coordinator.Status{Done: true}
	s.Summary.Engine, s.Summary.Tasks, s.Summary.Committed = "join", 256, 256
	if e := EstimateOf(s); e.Fraction != 1 || e.HasETA {
		t.Errorf("done: fraction %v, ETA known %v; want 1 and no ETA", e.Fraction, e.HasETA)
	}
}
