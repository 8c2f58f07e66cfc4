package sched

import (
	"strings"
	"testing"
	"time"

	"github.com/nqueens/nqueens/solver"
)

// TestSchedRunningSum: a result that would bring the
// running sums past the board's published count is refused, even when it
// is plausible alone: here a lie of the whole board's total on one task
// makes the next true result impossible. Its worker earns no strike (the
// liar may be another), but the task counts an attempt, so a sum that
// stays wrong fails the job.
func TestSchedRunningSum(t *testing.T) {
	h := newSchedHarness(t, 8, 2, Options{})
	a, ra := h.worker("a", uint32(len(h.plan.Tasks)))
	as := ra.fresh()
	for len(as) > 2 && h.counts(as[1].Task.Index).Total == 0 {
		as = append(as[:1], as[2:]...) // the next task must have solutions
	}
	whole := solver.Counts{Total: known[8].total, Unique: 1, Nodes: 1}
	if v := h.s.Result(a, lie(as[0], whole)); v.Outcome != OutcomeCommitted {
		t.Fatalf("a lie of the board's total on one task: outcome %d (%s), want committed (plausible alone)", v.Outcome, v.Reason)
	}
	next := h.honest(as[1])
	v := h.s.Result(a, next)
	if v.Outcome != OutcomeRejected || !strings.Contains(v.Reason, "running sums") || !strings.Contains(v.Reason, "whole board") {
		t.Errorf("a result past the published count: outcome %d (%s), want rejected, the running sums past the whole board", v.Outcome, v.Reason)
	}
	if a.strikes != 0 {
		t.Errorf("strikes %d, want 0: the sum's excess may be another worker's", a.strikes)
	}
	if st := h.status(); st.Solutions > known[8].total {
		t.Errorf("the running sum is %d, past the board's %d", st.Solutions, known[8].total)
	}
}

// TestSchedFinalSumChecked: a job whose every task is in
// but whose sums differ from the published count fails, naming both,
// instead of finishing: here a worker reported 0 for a task with
// solutions, a lie no single check can see. A synthetic load (made-up
// counts) is not compared, and ends as it is.
func TestSchedFinalSumChecked(t *testing.T) {
	for _, synthetic := range []bool{false, true} {
		h := newSchedHarness(t, 8, 2, Options{Synthetic: synthetic})
		if ChecksPublished(h.plan, synthetic) == synthetic {
			t.Errorf("synthetic %v: ChecksPublished() = %v, want %v", synthetic, !synthetic, synthetic)
		}
		err := finishWithLie(h)
		c, _, _, _ := h.s.Totals()
		switch {
		case synthetic && err != nil:
			t.Errorf("a synthetic load's sums %d and %d: err %v, want none (not compared)", c.Total, c.Unique, err)
		case !synthetic && (err == nil || !strings.Contains(err.Error(), "published count") || strings.Contains(err.Error(), "\n")):
			t.Errorf("every task in, sums %d and %d against the published %d and %d: err %v; want one line naming the published count",
				c.Total, c.Unique, known[8].total, known[8].unique, err)
		}
	}
}

// finishWithLie commits every task of h's job from one worker, the first
// with solutions as 0, and returns the job's error once it ends.
func finishWithLie(h *schedHarness) error {
	t := h.t
	a, ra := h.worker("a", 1)
	lied := false
	for as := ra.fresh(); len(as) > 0; as = ra.fresh() {
		for _, x := range as {
			r := h.honest(x)
			if !lied && r.Counts.Total > 0 {
				r, lied = lie(x, solver.Counts{Nodes: 1}), true
			}
			if v := h.s.Result(a, r); v.Outcome != OutcomeCommitted {
				t.Fatalf("task %d: outcome %d (%s), want committed", x.Task.Index, v.Outcome, v.Reason)
			}
			h.s.Ready(a, 1)
		}
	}
	select {
	case <-h.s.Finished():
	case <-time.After(eventTimeout):
		t.Fatal("the job did not end")
	}
	_, _, _, err := h.s.Totals()
	return err
}
