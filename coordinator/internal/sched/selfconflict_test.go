package sched

import (
	"testing"

	"github.com/nqueens/nqueens/solver"
)

// TestSchedSelfContradiction: a worker that sends, for a
// task it committed, a second Result with other counts earns a strike;
// another worker's conflicting result is a conflict, not a strike against
// the committer, and not one against itself either (it may be the one
// that erred, or not: --verify-fraction decides).
func TestSchedSelfContradiction(t *testing.T) {
	h := newSchedHarness(t, 8, 2, Options{})
	a, ra := h.worker("a", 2)
	as := ra.fresh()
	for _, x := range as {
		h.commit(a, x)
	}
	other := func(x Assignment) solver.Counts {
		c := h.counts(x.Task.Index)
		if c.Total >= 2 {
			return solver.Counts{Total: c.Total - 2, Unique: min(c.Unique, c.Total-2), Nodes: c.Nodes}
		}
		return solver.Counts{Total: c.Total + 2, Unique: c.Unique, Nodes: c.Nodes}
	}
	b, _ := h.worker("b", 0)
	if v := h.s.Result(b, lie(as[0], other(as[0]))); v.Outcome != OutcomeConflict && v.Outcome != OutcomeRejected {
		t.Errorf("b's conflicting result: outcome %d (%s)", v.Outcome, v.Reason)
	}
	if a.strikes != 0 {
		t.Errorf("another worker's conflict struck a: %d strikes", a.strikes)
	}
	v := h.s.Result(a, lie(as[1], other(as[1])))
	if v.Outcome != OutcomeConflict || a.strikes != 1 {
		t.Errorf("a contradicting its own commit: outcome %d (%s), %d strikes; want a conflict and 1 strike", v.Outcome, v.Reason, a.strikes)
	}
	if st := h.stats(); st.Conflicts < 1 {
		t.Errorf("%d conflicts counted, want at least 1", st.Conflicts)
	}
}
