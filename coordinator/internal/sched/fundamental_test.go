package sched

import (
	"strings"
	"testing"

	"github.com/nqueens/nqueens/solver"
)

// withSolutions returns the first of as whose task has solutions.
func withSolutions(h *schedHarness, as []Assignment) Assignment {
	h.t.Helper()
	for _, a := range as {
		if a.Run <= 1 && h.counts(a.Task.Index).Total > 0 {
			return a
		}
	}
	h.t.Fatal("no leased task with solutions")
	return Assignment{}
}

// TestSchedConflictOnFundamental: a second result for a committed task
// that agrees on the total but not on the fundamental count is a
// conflict, not a duplicate, and a worker contradicting its own commit
// earns a strike.
func TestSchedConflictOnFundamental(t *testing.T) {
	h := newSchedHarness(t, 8, 2, Options{})
	a, ra := h.worker("a", uint32(len(h.plan.Tasks)))
	x := withSolutions(h, ra.fresh())
	h.commit(a, x)
	c := h.counts(x.Task.Index)
	v := h.s.Result(a, lie(x, solver.Counts{Total: c.Total, Unique: c.Unique + 1, Nodes: c.Nodes}))
	if v.Outcome != OutcomeConflict || h.stats().Conflicts != 1 {
		t.Fatalf("same total, fundamental %d for %d: outcome %d (%s), %d conflicts; want a conflict", c.Unique+1, c.Unique, v.Outcome, v.Reason, h.stats().Conflicts)
	}
	if a.strikes != 1 {
		t.Errorf("strikes %d, want 1: the worker contradicts its own commit", a.strikes)
	}
}

// TestSchedVerifyOnFundamental: a verification that agrees on the total
// but not on the fundamental count is a disagreement: the coordinator's
// recount settles it, and the verifier that lied is quarantined.
func TestSchedVerifyOnFundamental(t *testing.T) {
	checkLeaks(t)
	h := newSchedHarness(t, 8, 2, Options{VerifyFraction: 1})
	liar, rl := h.worker("liar", 0) // attached: the verifications wait for it
	hon, rh := h.worker("honest", uint32(len(h.plan.Tasks)))
	for _, a := range rh.fresh() {
		h.commit(hon, a)
	}
	h.s.Ready(liar, uint32(len(h.plan.Tasks)))
	x := withSolutions(h, rl.fresh())
	c := h.counts(x.Task.Index)
	if v := h.s.Result(liar, lie(x, solver.Counts{Total: c.Total, Unique: c.Unique + 1, Nodes: c.Nodes})); v.Outcome != OutcomeConflict {
		t.Errorf("a verification with the right total and fundamental %d for %d: outcome %d (%s), want conflict", c.Unique+1, c.Unique, v.Outcome, v.Reason)
	}
	h.s.Wait()
	if !liar.quarantined {
		t.Fatal("the verifier that lied about the fundamental count is not quarantined")
	}
	h.drive(hon, rh) // the coordinator verifies the rest itself
	h.checkExact()
}

// TestRunPastPublished: a run's Result whose counts would bring the
// running sums past the board's published count is refused whole, as a
// single task's is, and its worker earns no strike (the excess may be an
// earlier liar's).
func TestRunPastPublished(t *testing.T) {
	h := runHarness(t, 8, 3, Options{})
	a, ra := h.worker("a", 8)
	var as []Assignment
	for _, x := range ra.fresh() {
		if x.Run >= 2 && (len(as) == 0 || h.honest(x).Counts.Total > 0) {
			as = append(as, x)
		}
	}
	if len(as) < 2 {
		t.Fatalf("leases %+v, want two runs, the second with solutions", ra.all())
	}
	// The first run claims the whole board on its first task: plausible
	// alone, and it fills the sums.
	first := h.honest(as[0])
	for i := range first.Run {
		first.Run[i] = solver.Counts{Nodes: 1}
	}
	first.Run[0] = solver.Counts{Total: known[8].total, Unique: 1, Nodes: 1}
	first.Counts = solver.Counts{Total: known[8].total, Unique: 1, Nodes: uint64(len(first.Run))}
	if v := h.s.Result(a, first); v.Outcome != OutcomeCommitted {
		t.Fatalf("a run claiming the whole board: outcome %d (%s), want committed", v.Outcome, v.Reason)
	}
	second := h.honest(as[1])
	v := h.s.Result(a, second)
	if v.Outcome != OutcomeRejected || !strings.Contains(v.Reason, "running sums") {
		t.Errorf("a run past the published count: outcome %d (%s), want rejected, the running sums", v.Outcome, v.Reason)
	}
	if a.strikes != 0 {
		t.Errorf("strikes %d, want 0", a.strikes)
	}
	if st := h.status(); st.Solutions > known[8].total {
		t.Errorf("the running sum is %d, past the board's %d", st.Solutions, known[8].total)
	}
}
