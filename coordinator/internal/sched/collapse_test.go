package sched

import (
	"testing"
	"time"

	"github.com/nqueens/nqueens/solver"
)

// collapseOptions split a 10-board's plan into a few hundred tasks, kept
// in chunks of 8 so that chunks are released as subtrees collapse.
func collapseOptions(j Journal) Options {
	opt := Options{TaskTarget: time.Second, testBoardSeconds: 100, testChunkBits: 3}
	if j != nil {
		opt.Journal = j
	}
	return opt
}

// checkCollapsed wants every split collapsed at the end: the scheduler
// holds the plan's tasks only, and every chunk of children is released.
func checkCollapsed(t *testing.T, h *schedHarness) {
	t.Helper()
	h.s.mu.Lock()
	defer h.s.mu.Unlock()
	base := h.s.sp.planTasks
	if h.s.collapses == 0 || h.s.store.live != base || len(h.s.open) != 0 {
		t.Errorf("%d collapses, %d live tasks of %d made, %d open splits; want collapses, the plan's %d tasks live, none open",
			h.s.collapses, h.s.store.live, h.s.store.len(), len(h.s.open), base)
	}
	if want := (base + 7) / 8; h.s.store.held > want+1 {
		t.Errorf("%d chunks held for %d live tasks, want at most %d", h.s.store.held, base, want+1)
	}
}

// TestCollapseLateResults: results that arrive after their tasks
// collapsed into an ancestor are duplicates, never counted again.
func TestCollapseLateResults(t *testing.T) {
	h := newSchedHarness(t, 10, 1, collapseOptions(nil))
	a, ra := h.worker("a", 6)
	stale := ra.fresh()
	if len(stale) == 0 || h.expireAll() != len(stale) {
		t.Fatalf("%d leases to a, want some to expire", len(stale))
	}
	b, rb := h.worker("b", 4)
	finishAll(t, h, map[*Session]*recorder{b: rb})
	checkCollapsed(t, h)
	before, _, _, _ := h.s.Totals()
	late := 0
	for _, x := range stale {
		v := h.s.Result(a, Report{Task: x.Task, Lease: x.Lease, Counts: splitTruth(t, 10, x)})
		if v.Outcome != OutcomeDuplicate {
			t.Errorf("late result of task %d: outcome %d (%s), want a duplicate", x.Task.Index, v.Outcome, v.Reason)
		}
		if x.Task.Index >= h.s.sp.planTasks {
			late++
		}
	}
	after, _, _, _ := h.s.Totals()
	if late == 0 || after != before {
		t.Errorf("%d late results for split children; totals %+v after them, %+v before", late, after, before)
	}
}

// TestCollapseWaitsForVerification: with every commit verified, a split
// collapses only once its children's verifications end (the invariants
// check it at every step), and a lie inside a subtree is caught, its
// liar quarantined, and the count stays exact.
func TestCollapseWaitsForVerification(t *testing.T) {
	opt := collapseOptions(nil)
	opt.VerifyFraction = 1
	h := newSchedHarness(t, 10, 1, opt)
	a, ra := h.worker("a", 3)
	l, rl := h.worker("liar", 3)
	lied := false
	for round := 0; round < 50 && !lied; round++ {
		for _, x := range rl.fresh() {
			r := Report{Task: x.Task, Lease: x.Lease, Counts: splitTruth(t, 10, x)}
			if !lied && x.Task.Index >= h.s.sp.planTasks && r.Counts.Total >= 2 {
				r.Counts.Total -= 2 // short: the sums never pass the board's
				r.Counts.Unique = min(r.Counts.Unique, r.Counts.Total)
				lied = true
			}
			h.s.Result(l, r)
			h.s.Ready(l, 1)
		}
	}
	if !lied {
		t.Fatal("the liar got no split child to lie about")
	}
	for progress := true; progress; { // finishAll, but a verification may disagree
		progress = false
		for _, x := range ra.fresh() {
			progress = true
			v := h.s.Result(a, Report{Task: x.Task, Lease: x.Lease, Counts: splitTruth(t, 10, x)})
			if v.Outcome == OutcomeRejected {
				t.Fatalf("honest result of task %d: rejected (%s)", x.Task.Index, v.Reason)
			}
			h.s.Ready(a, 1)
		}
		h.s.Wait()
	}
	finishAll(t, h, map[*Session]*recorder{a: ra})
	checkCollapsed(t, h)
	st := h.stats()
	if st.Quarantined != 1 || st.Verified == 0 {
		t.Errorf("%d quarantined, %d verified; want the liar quarantined and commits verified", st.Quarantined, st.Verified)
	}
}

// TestCollapseQuarantine: a worker whose commits were collapsed into
// records is quarantined; every record that may hold one of them is
// reopened and counted again, the journal records the reopenings, and
// the count is exact. A resume from any prefix of that journal ends
// exact too (resumeAt).
func TestCollapseQuarantine(t *testing.T) {
	j := &memJournal{commits: map[int]solver.Counts{}, by: map[int]uint64{}}
	h := newSchedHarness(t, 10, 1, collapseOptions(j))
	l, rl := h.worker("l", 4)
	for range 30 { // honest for a while: its commits collapse
		for _, x := range rl.fresh() {
			v := h.s.Result(l, Report{Task: x.Task, Lease: x.Lease, Counts: splitTruth(t, 10, x)})
			h.s.Settle([]Ticket{v.Ticket})
			h.s.Ready(l, 1)
		}
	}
	if h.s.collapses == 0 {
		t.Fatal("nothing collapsed before the quarantine")
	}
	for _, x := range rl.fresh() { // then odd totals: three strikes
		h.s.Result(l, Report{Task: x.Task, Lease: x.Lease, Counts: solver.Counts{Total: 3}})
		h.s.Ready(l, 1)
	}
	if !l.quarantined {
		t.Fatal("the worker was not quarantined")
	}
	if h.s.reopened == 0 {
		t.Fatal("the quarantine reopened no collapsed record")
	}
	a, ra := h.worker("a", 4)
	finishAll(t, h, map[*Session]*recorder{a: ra})
	checkCollapsed(t, h)
	reopens := []int{}
	for i, r := range j.log {
		if sp, ok := r.(Split); ok && sp.Reopen {
			reopens = append(reopens, i)
		}
	}
	if len(reopens) == 0 {
		t.Fatal("the journal holds no reopen record")
	}
	cuts := map[int]bool{len(j.log): true}
	for _, i := range reopens {
		for k := i - 2; k <= i+2; k++ {
			cuts[min(max(k, 0), len(j.log))] = true
		}
	}
	for k := 0; k < len(j.log); k += len(j.log)/8 + 1 {
		cuts[k] = true
	}
	for k := range cuts {
		resumeAt(t, j.log[:k])
	}
}

// resumeAt replays a journal's records (log, cut anywhere) as
// coordinator.restore does, splits first, then the results of workers
// not distrusted, and finishes the job with an honest worker: exact.
func resumeAt(t *testing.T, log []any) {
	t.Helper()
	h := newSchedHarness(t, 10, 1, collapseOptions(nil))
	bad := map[uint64]bool{}
	for _, r := range log {
		switch r := r.(type) {
		case Split:
			if err := h.s.RestoreSplit(r); err != nil {
				t.Fatalf("cut at %d: %v", len(log), err)
			}
		case uint64:
			bad[r] = true
		}
	}
	for _, r := range log {
		if r, ok := r.(JournalResult); ok && !bad[r.Worker] {
			if err := h.s.Restore(r.Index, r.Counts); err != nil {
				t.Fatalf("cut at %d: %v", len(log), err)
			}
		}
	}
	h.s.CheckDone()
	w, rw := h.worker("w", 4)
	finishAll(t, h, map[*Session]*recorder{w: rw})
}
