package sched

import (
	"testing"
	"time"

	"github.com/nqueens/nqueens/solver"
)

// Runs of tasks (runs.go) in the scheduler alone: every task of a run is
// judged and committed on its own, exactly once, whatever happens to the
// run's lease.

// runHarness is a harness whose workers take runs, on a plan of tasks
// small enough (testBoardSeconds) to be leased in runs.
func runHarness(t *testing.T, n, depth int, opt Options) *schedHarness {
	t.Helper()
	if opt.testBoardSeconds == 0 {
		opt.testBoardSeconds = 1e-3
	}
	h := newSchedHarness(t, n, depth, opt)
	h.runs = true
	return h
}

// covered counts how many times each task was leased by as.
func covered(as []Assignment) map[int]int {
	c := map[int]int{}
	for _, a := range as {
		for i := range max(a.Run, 1) {
			c[a.Task.Index+i]++
		}
	}
	return c
}

// TestRunsCommitEveryTask: a worker that takes runs is leased runs of
// consecutive plan tasks without prefixes, each task once; the job counts
// the board exactly; and the last tasks go out one by one.
func TestRunsCommitEveryTask(t *testing.T) {
	h := runHarness(t, 10, 4, Options{})
	sess, rec := h.worker("runner", 4)
	first := rec.all()
	if len(first) == 0 || first[0].Run < 2 || first[0].Prefix != nil {
		t.Fatalf("first assignments %+v: want a run without a prefix", first)
	}
	h.drive(sess, rec)
	h.checkExact()
	all := rec.all()
	if len(all) >= len(h.plan.Tasks)/3 {
		t.Errorf("%d leases for %d tasks: runs did not share their messages", len(all), len(h.plan.Tasks))
	}
	for idx, n := range covered(all) {
		if n != 1 {
			t.Errorf("task %d leased %d times, want once", idx, n)
		}
	}
	if c := covered(all); len(c) != len(h.plan.Tasks) {
		t.Errorf("%d tasks leased, want %d", len(c), len(h.plan.Tasks))
	}
	if last := all[len(all)-1]; last.Run != 1 {
		t.Errorf("the last lease is a run of %d, want a single task", last.Run)
	}
}

// TestRunsNeverForListingsOrSingleWorkers: a listing, and a worker that
// did not ask for runs, get one task per lease.
func TestRunsNeverForListingsOrSingleWorkers(t *testing.T) {
	h := runHarness(t, 10, 4, Options{Want: true})
	_, rec := h.worker("lister", 4)
	for _, a := range rec.all() {
		if a.Run != 1 || a.Prefix == nil {
			t.Fatalf("listing lease %+v: want one task with its prefix", a)
		}
	}
	h = newSchedHarness(t, 10, 4, Options{testBoardSeconds: 1e-3})
	sess, rec := h.worker("single", 4)
	h.drive(sess, rec)
	h.checkExact()
	for _, a := range rec.all() {
		if a.Run != 1 {
			t.Fatalf("lease %+v to a worker without runs", a)
		}
	}
}

// TestRunLateResult: a run that expires goes back to the queue task by
// task; another worker takes them; the late result of the first run
// commits what is still open and is a duplicate for the rest.
func TestRunLateResult(t *testing.T) {
	h := runHarness(t, 10, 4, Options{})
	slow, slowRec := h.worker("slow", 1)
	run := slowRec.fresh()[0]
	if run.Run < 4 {
		t.Fatalf("slow worker's lease is a run of %d, want at least 4", run.Run)
	}
	h.clock.Advance(testLease + time.Second)
	if n := h.s.expire(h.clock.Now()); n != 1 {
		t.Fatalf("%d leases expired, want the run", n)
	}
	fast, fastRec := h.worker("fast", 1)
	taken := fastRec.fresh()
	if len(taken) != 1 || taken[0].Task.Index != run.Task.Index || taken[0].Run >= run.Run {
		t.Fatalf("fast worker leased %+v, want the start of the expired run %+v, shorter", taken, run)
	}
	h.commit(fast, taken[0])
	before := h.status().Committed
	v := h.s.Result(slow, h.honest(run))
	if got := h.status().Committed - before; v.Outcome != OutcomeCommitted || got != run.Run-taken[0].Run {
		t.Fatalf("late run result: outcome %d (%s), %d commits; want %d commits", v.Outcome, v.Reason, got, run.Run-taken[0].Run)
	}
	if st := h.stats(); st.Duplicates != uint64(taken[0].Run) {
		t.Errorf("%d duplicates, want %d", st.Duplicates, taken[0].Run)
	}
	h.s.Ready(slow, 1)
	finishAll(t, h, map[*Session]*recorder{slow: slowRec, fast: fastRec})
	h.checkExact()
}

// TestRunInvalidResults: a run's Result that cannot be right is refused
// whole, earns a strike and queues every task of the run again.
func TestRunInvalidResults(t *testing.T) {
	for _, tc := range []struct {
		name  string
		spoil func(r *Report)
	}{
		{"too few tasks", func(r *Report) { r.Counts = addCounts(r.Counts, r.Run[0], -1); r.Run = r.Run[1:] }},
		{"sums differ", func(r *Report) { r.Counts.Total += 2 }},
		{"odd total", func(r *Report) { r.Run[1].Total++; r.Counts.Total++ }},
		{"a single lease with a run's counts", func(r *Report) {
			r.Run = []solver.Counts{r.Counts, r.Counts}
			r.Counts = addCounts(r.Counts, r.Counts, 1)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := runHarness(t, 10, 4, Options{})
			h.runs = tc.name != "a single lease with a run's counts"
			liar, liarRec := h.worker("liar", 1)
			h.runs = true
			a := liarRec.fresh()[0]
			r := h.honest(a)
			tc.spoil(&r)
			if v := h.s.Result(liar, r); v.Outcome != OutcomeRejected || liar.strikes != 1 {
				t.Fatalf("outcome %d (%s), %d strikes; want rejected with a strike", v.Outcome, v.Reason, liar.strikes)
			}
			honest, rec := h.worker("honest", 4)
			finishAll(t, h, map[*Session]*recorder{honest: rec})
			h.checkExact()
		})
	}
}

// TestRunFailureEndsRuns: a run its worker's solver fails on is not held
// against its tasks, and that worker is leased single tasks from then on.
func TestRunFailureEndsRuns(t *testing.T) {
	h := runHarness(t, 10, 4, Options{MaxAttempts: 1})
	w, rec := h.worker("broken", 1)
	a := rec.fresh()[0]
	if v := h.s.Result(w, Report{Task: a.Task, Lease: a.Lease, Failure: "solver says no"}); v.Outcome != OutcomeRejected {
		t.Fatalf("failed run: outcome %d, want rejected", v.Outcome)
	}
	if _, _, _, err := h.s.Totals(); err != nil {
		t.Fatalf("a failed run failed the job: %v", err)
	}
	h.s.Ready(w, 1)
	next := rec.fresh()
	if len(next) != 1 || next[0].Run != 1 || next[0].Task.Index != a.Task.Index {
		t.Fatalf("after the failed run %+v the worker got %+v, want task %d alone", a, next, a.Task.Index)
	}
	h.drive(w, rec, next...)
	h.checkExact()
}

// TestRunStraggler: with nothing queued and a slot idle, a run leased for
// longer than the task target is taken back and its tasks leased again.
func TestRunStraggler(t *testing.T) {
	h := runHarness(t, 10, 4, Options{TaskTarget: time.Second, Lease: time.Hour})
	slow, slowRec := h.worker("slow", 4096)
	held := slowRec.fresh()
	h.s.mu.Lock() // the slow worker's spare credits would make it idle too
	slow.credits = 0
	delete(h.s.hungry, slow)
	h.s.mu.Unlock()
	idle, idleRec := h.worker("idle", 2)
	if got := idleRec.fresh(); len(got) != 0 {
		t.Fatalf("idle worker leased %v with nothing queued", indexes(got))
	}
	h.clock.Advance(2 * time.Second)
	h.s.expire(h.clock.Now())
	cs := slowRec.cancelList()
	if len(cs) == 0 || cs[0].reason != "run taken back to share its tasks" {
		t.Fatalf("slow worker's cancels = %+v, want a run taken back", cs)
	}
	if got := idleRec.fresh(); len(got) == 0 || got[0].Task.Index != cs[0].task.Index {
		t.Fatalf("idle worker leased %+v, want the taken-back run's first task %d", got, cs[0].task.Index)
	}
	for _, a := range held { // the slow worker's late results: commits or duplicates
		r := h.honest(a)
		if v := h.s.Result(slow, r); v.Outcome == OutcomeRejected || v.Outcome == OutcomeConflict {
			t.Fatalf("late result of %+v: outcome %d (%s)", a, v.Outcome, v.Reason)
		}
	}
	finishAll(t, h, map[*Session]*recorder{idle: idleRec})
	h.checkExact()
}

// TestRunsJournalAndVerify: each task of a run reaches the journal once
// with its own counts, the scheduler's wait returns (every commit of a run
// is synced), and sampled tasks of runs are verified one by one.
func TestRunsJournalAndVerify(t *testing.T) {
	j := &memJournal{commits: map[int]solver.Counts{}, by: map[int]uint64{}}
	h := runHarness(t, 10, 4, Options{Journal: j, VerifyFraction: 0.2})
	a, recA := h.worker("a", 4)
	b, recB := h.worker("b", 4)
	finishAll(t, h, map[*Session]*recorder{a: recA, b: recB})
	h.checkExact()
	if len(j.commits) != len(h.plan.Tasks) {
		t.Fatalf("journal holds %d commits, want %d", len(j.commits), len(h.plan.Tasks))
	}
	for idx, c := range j.commits {
		if c != h.counts(idx) {
			t.Errorf("journal: task %d committed with %+v, want %+v", idx, c, h.counts(idx))
		}
	}
	if st := h.stats(); st.Verified == 0 {
		t.Errorf("no task verified with --verify-fraction 0.2")
	}
	done := make(chan struct{})
	go func() { h.s.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(eventTimeout):
		t.Fatal("wait did not return: a run's commits were not all synced")
	}
}

// TestRunsBoundedPerSession: a worker that grants every credit it may
// (MaxCredits) with one slot holds at most a quarter of the queue in
// runs, and its other leases are single tasks.
func TestRunsBoundedPerSession(t *testing.T) {
	h := runHarness(t, 12, 5, Options{})
	greedy, rec := h.worker("greedy", MaxCredits)
	held, runs := 0, 0
	for _, a := range rec.all() {
		held += a.Run
		if a.Run > 1 {
			runs++
		}
	}
	tasks := len(h.plan.Tasks)
	if runs > runsPerSlot || held > tasks/4+MaxCredits {
		t.Fatalf("%d leases, %d of them runs, holding %d of %d tasks; want at most %d runs and %d tasks",
			len(rec.all()), runs, held, tasks, runsPerSlot, tasks/4+MaxCredits)
	}
	h.drive(greedy, rec)
	h.checkExact()
}
