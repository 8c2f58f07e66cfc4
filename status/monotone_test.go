package status

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nqueens/nqueens/coordinator"
)

// growingJob is a Source whose estimate of the total grows between two
// looks while work goes on: what a big task's nodes do to the estimate.
type growingJob struct {
	mu   sync.Mutex
	snap coordinator.Status
}

func (g *growingJob) set(done, total float64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.snap = coordinator.Status{Summary: coordinator.Summary{N: 15, Tasks: 100, Nodes: uint64(done)}, WorkDone: done, WorkTotal: total}
}

func (g *growingJob) Status() coordinator.Status {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.snap
}

func (g *growingJob) Events(uint64) []coordinator.Event { return nil }

// TestProgressNeverFalls: when the estimate of the total grows faster than
// the work done (50.1% -> 43.6%), /api/status holds the
// highest fraction and says the estimate grew; it rises again past it.
func TestProgressNeverFalls(t *testing.T) {
	g := &growingJob{}
	base := serve(t, NewHandler(g, Options{}))
	look := func() (float64, bool) {
		t.Helper()
		_, body := get(t, http.DefaultClient, base+"/api/status")
		var a struct {
			Fraction float64 `json:"fraction"`
			Grew     bool    `json:"estimate_grew"`
		}
		if err := json.Unmarshal(body, &a); err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		return a.Fraction, a.Grew
	}
	for _, tc := range []struct {
		done, total, want float64
		grew              bool
	}{
		{501, 1000, 0.501, false},
		{520, 1193, 0.501, true}, // 43.6% by the new estimate
		{900, 1193, 900.0 / 1193, false},
	} {
		g.set(tc.done, tc.total)
		if f, grew := look(); f != tc.want || grew != tc.grew {
			t.Errorf("work %v of %v: fraction %v (estimate grew %v), want %v (%v)", tc.done, tc.total, f, grew, tc.want, tc.grew)
		}
	}
}

// TestFractionAfterResume: restored work counts as done, so a resumed run
// does not restart at 0% (58% of the tasks, 13.6% shown),
// while the rate stays this run's.
func TestFractionAfterResume(t *testing.T) {
	r := resumedRun{sizes: []float64{4e9, 2e9, 1e9, 5e8, 1e8, 3e9, 1e9, 8e8, 1e8, 4e6}, restored: 5, idle: 30 * time.Second, rate: 1e8}
	s := r.at(31 * time.Second) // 1 s of this run's work
	e := EstimateOf(s)
	restored, all := 7.6e9, 12.504e9
	if want := (restored + 1e8) / all; e.Fraction < want-1e-9 || e.Fraction > want+1e-9 {
		t.Errorf("after 1 s of a resumed run: fraction %v, want %v (restored work done)", e.Fraction, want)
	}
	if e.NodesPerSec < r.rate-1 || e.NodesPerSec > r.rate+1 {
		t.Errorf("rate %v nodes/s, want this run's %v", e.NodesPerSec, r.rate)
	}
}

// durableJob is a Source with a journal: durable of its tasks on disk.
type durableJob struct {
	*growingJob
	durable int
}

func (d durableJob) DurableTasks() int { return d.durable }

// TestDurableShown: with a journal, /api/status says how
// many committed tasks are on disk (never more than are committed);
// without one it does not pretend to know.
func TestDurableShown(t *testing.T) {
	g := &growingJob{}
	g.set(500, 1000)
	g.snap.Summary.Committed = 40
	for _, tc := range []struct {
		src  Source
		want string
	}{
		{durableJob{g, 37}, `"tasks_durable":37`},
		{durableJob{g, 45}, `"tasks_durable":40`}, // restored tasks a quarantine took back
		{g, ""},
	} {
		base := serve(t, NewHandler(tc.src, Options{}))
		_, body := get(t, http.DefaultClient, base+"/api/status")
		if got := strings.Contains(string(body), `"tasks_durable"`); got != (tc.want != "") || !strings.Contains(string(body), tc.want) {
			t.Errorf("%T: /api/status %.300s…; want %q", tc.src, body, tc.want)
		}
	}
}
