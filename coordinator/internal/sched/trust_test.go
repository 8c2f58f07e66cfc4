package sched

import (
	"math"
	"testing"

	"github.com/nqueens/nqueens/solver"
)

// TestSchedSessionVerifyFraction: a session that joined with a verify
// fraction has that share of its commits computed again even when the
// job's own fraction is 0, and the verified tasks' solutions add up in
// Stats.VerifiedSolutions; a session that joined without one has none.
func TestSchedSessionVerifyFraction(t *testing.T) {
	for _, f := range []float64{0, 1} {
		h := newSchedHarness(t, 8, 2, Options{})
		rec := &recorder{}
		sess, err := h.s.Join(JoinRequest{Name: "w", Version: "test", Slots: 1, VerifyFraction: f})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := h.s.Attach(sess.id, "127.0.0.1:1", 1, h.runs, func(bool) Mailbox { return rec }); err != nil {
			t.Fatal(err)
		}
		h.drive(sess, rec)
		st := h.stats()
		wantTasks, wantSols := uint64(0), uint64(0)
		if f == 1 {
			wantTasks, wantSols = uint64(h.status().Committed), known[8].total
		}
		if st.Verified != wantTasks || st.VerifiedSolutions != wantSols {
			t.Errorf("a session joined with verify fraction %v: %d tasks and %d solutions verified, want %d and %d",
				f, st.Verified, st.VerifiedSolutions, wantTasks, wantSols)
		}
	}
}

// TestNodeCountsSaturate: the job's and a session's node counts stop at
// 2^64-1 instead of wrapping, and a saturated count stays saturated when
// a quarantine takes counts back from it (its true value is unknown).
func TestNodeCountsSaturate(t *testing.T) {
	h := newSchedHarness(t, 8, 2, Options{})
	a, ra := h.worker("a", 2)
	as := ra.fresh()
	for _, x := range as[:2] {
		r := h.honest(x)
		r.Counts.Nodes = 1 << 63
		if v := h.s.Result(a, r); v.Outcome != OutcomeCommitted {
			t.Fatalf("task %d: outcome %d (%s), want committed", x.Task.Index, v.Outcome, v.Reason)
		}
	}
	if st := h.status(); st.Nodes != math.MaxUint64 {
		t.Errorf("two commits of 2^63 nodes: the job's node count is %d, want 2^64-1", st.Nodes)
	}
	if ws := h.status().Workers; len(ws) != 1 || ws[0].Nodes != math.MaxUint64 {
		t.Errorf("two commits of 2^63 nodes: the worker's node count is %+v, want 2^64-1", ws)
	}
	if got := addCounts(solver.Counts{Nodes: math.MaxUint64}, solver.Counts{Nodes: 5}, -1).Nodes; got != math.MaxUint64 {
		t.Errorf("a saturated count less 5 nodes is %d, want it saturated still", got)
	}
}
