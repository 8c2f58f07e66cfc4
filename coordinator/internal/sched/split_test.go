package sched

import (
	"testing"
	"time"

	"github.com/nqueens/nqueens/solver"
)

// splitTruth counts a leased task from its own prefix (children are not
// in the plan).
func splitTruth(t *testing.T, n int, a Assignment) solver.Counts {
	t.Helper()
	c, err := solver.CountTask(n, solver.Task{Index: a.Task.Index, Prefix: a.Prefix})
	if err != nil {
		t.Fatalf("task %d %v: %v", a.Task.Index, a.Prefix, err)
	}
	return c
}

// finishAll answers every assignment honestly until the job is done, and
// checks the job's counts against the board's known ones.
func finishAll(t *testing.T, h *schedHarness, workers map[*Session]*recorder) {
	t.Helper()
	for progress := true; progress; {
		progress = false
		for sess, rec := range workers {
			for _, a := range rec.fresh() {
				progress = true
				r := Report{Task: a.Task, Lease: a.Lease}
				if a.Run > 1 {
					r = h.honest(a)
				} else {
					r.Counts = splitTruth(t, h.plan.N, a)
				}
				r.Elapsed = time.Millisecond
				v := h.s.Result(sess, r)
				if v.Outcome == OutcomeRejected || v.Outcome == OutcomeConflict {
					t.Fatalf("honest result of task %d: outcome %d (%s)", a.Task.Index, v.Outcome, v.Reason)
				}
				h.s.Settle([]Ticket{v.Ticket})
				h.s.Ready(sess, 1)
			}
		}
	}
	h.s.Wait()
	select {
	case <-h.s.Finished():
	default:
		t.Fatal("every assignment answered, but the job is not finished")
	}
	sum, committed, _, err := h.s.Totals()
	tasks, _ := h.s.Shape()
	k, _ := solver.Known(h.plan.N)
	if err != nil || sum.Total != k.Total || sum.Unique != k.Unique || committed != tasks {
		t.Fatalf("totals = %d/%d, %d of %d tasks committed, %v; want %d/%d, all", sum.Total, sum.Unique, committed, tasks, err, k.Total, k.Unique)
	}
}

// TestSplitQueueRule: a plan far smaller than its cluster is split until
// every attached slot has splitPerSlot tasks queued, and still counts the
// board exactly; the journal sees every split, numbered from the task
// count before it.
func TestSplitQueueRule(t *testing.T) {
	j := &memJournal{commits: map[int]solver.Counts{}, by: map[int]uint64{}}
	h := newSchedHarness(t, 12, 2, Options{Journal: j, TaskTarget: time.Hour, testBoardSeconds: 1e6})
	base := len(h.plan.Tasks)
	workers := map[*Session]*recorder{}
	for _, name := range []string{"a", "b", "c"} {
		sess, rec := h.worker(name, 2)
		workers[sess] = rec
	}
	h.s.mu.Lock()
	queued, tasks := h.s.queuedLocked(), h.s.store.len()
	h.s.mu.Unlock()
	if queued < splitPerSlot*3 || tasks <= base {
		t.Fatalf("3 slots attached: %d tasks queued of %d (plan %d), want at least %d", queued, tasks, base, splitPerSlot*3)
	}
	first := base
	for _, sp := range j.splits {
		if sp.First != first || sp.Count < 1 {
			t.Fatalf("split %+v: want children numbered from %d", sp, first)
		}
		first += sp.Count
	}
	if first != tasks {
		t.Fatalf("journal splits number %d tasks, the scheduler has %d", first, tasks)
	}
	finishAll(t, h, workers)
}

// TestSplitSizeRule: with tasks estimated far above TaskTarget, every task
// is split before it is leased, past depth 5 (no cap but the board), and
// the count stays exact.
func TestSplitSizeRule(t *testing.T) {
	h := newSchedHarness(t, 12, 1, Options{TaskTarget: time.Second, testBoardSeconds: 1e9})
	sess, rec := h.worker("a", 4)
	for _, a := range rec.all() {
		if len(a.Prefix) <= 5 {
			if kids, _ := solver.Split(12, a.Prefix); kids != nil {
				t.Fatalf("task %d %v leased at depth %d while it could be split", a.Task.Index, a.Prefix, len(a.Prefix))
			}
		}
	}
	finishAll(t, h, map[*Session]*recorder{sess: rec})
	if _, deepest := h.s.Shape(); deepest <= 5 {
		t.Errorf("deepest split %d, want more than 5", deepest)
	}
}

// TestSplitStraggler: once nothing is queued, a task leased longer than
// TaskTarget is taken back from its worker and split for the idle one;
// the straggler's late result is dropped as superseded, never counted.
func TestSplitStraggler(t *testing.T) {
	h := newSchedHarness(t, 10, 0, Options{TaskTarget: time.Second, Lease: time.Hour})
	slow, slowRec := h.worker("slow", 1)
	held := slowRec.fresh()
	if len(held) != 1 {
		t.Fatalf("slow worker leased %d tasks, want the whole board", len(held))
	}
	idle, idleRec := h.worker("idle", 2)
	if got := idleRec.fresh(); len(got) != 0 {
		t.Fatalf("idle worker leased %v with nothing queued", indexes(got))
	}
	h.clock.Advance(2 * time.Second)
	h.s.expire(h.clock.Now())
	cs := slowRec.cancelList()
	if len(cs) != 1 || cs[0].reason != "task split" {
		t.Fatalf("slow worker's cancels = %+v, want its task split", cs)
	}
	v := h.s.Result(slow, Report{Task: held[0].Task, Lease: held[0].Lease, Counts: splitTruth(t, 10, held[0])})
	if v.Outcome != OutcomeDuplicate || h.s.stats.Superseded != 1 {
		t.Fatalf("late result of the split task: outcome %d (%s), superseded %d; want a duplicate, superseded 1", v.Outcome, v.Reason, h.s.stats.Superseded)
	}
	finishAll(t, h, map[*Session]*recorder{idle: idleRec, slow: slowRec})
}

// TestSplitRestore: a job killed halfway through a split-heavy run is
// resumed from what its journal holds (the splits in order, then the
// commits), numbers every task as before, and counts the board exactly:
// nothing counted twice, nothing missed.
func TestSplitRestore(t *testing.T) {
	j := &memJournal{commits: map[int]solver.Counts{}, by: map[int]uint64{}}
	opt := Options{Journal: j, TaskTarget: time.Second, testBoardSeconds: 1e4}
	h := newSchedHarness(t, 11, 2, opt)
	sess, rec := h.worker("a", 3)
	for range 40 { // about half the work
		as := rec.fresh()
		if len(as) == 0 {
			break
		}
		for _, a := range as {
			v := h.s.Result(sess, Report{Task: a.Task, Lease: a.Lease, Counts: splitTruth(t, 11, a)})
			h.s.Settle([]Ticket{v.Ticket})
			h.s.Ready(sess, 1)
		}
	}
	h.s.Wait()
	if len(j.splits) == 0 || len(j.commits) == 0 {
		t.Fatalf("%d splits, %d commits journaled: the test needs both", len(j.splits), len(j.commits))
	}
	h2 := newSchedHarness(t, 11, 2, Options{TaskTarget: time.Second, testBoardSeconds: 1e4})
	for _, sp := range j.splits {
		if err := h2.s.RestoreSplit(sp); err != nil {
			t.Fatal(err)
		}
	}
	for i, c := range j.commits {
		if err := h2.s.Restore(i, c); err != nil {
			t.Fatal(err)
		}
	}
	if err := h2.s.RestoreSplit(Split{Parent: 0, First: 1, Count: 2}); err == nil {
		t.Error("a split numbered wrongly was restored")
	}
	s2, rec2 := h2.worker("b", 3)
	finishAll(t, h2, map[*Session]*recorder{s2: rec2})
}

// TestSplitBound: splitting never holds more than maxTasks tasks, however
// big the tasks look, and a worker that claims its tasks took hours (more
// than the time since their lease) makes nothing split.
func TestSplitBound(t *testing.T) {
	h := newSchedHarness(t, 12, 1, Options{TaskTarget: time.Second, testBoardSeconds: 1e12, testMaxTasks: 200})
	sess, rec := h.worker("a", 4)
	finishAll(t, h, map[*Session]*recorder{sess: rec})
	if n := h.s.store.peak; n > 200 {
		t.Errorf("%d live tasks, bound 200", n)
	}

	h = newSchedHarness(t, 12, 3, Options{TaskTarget: time.Second})
	sess, rec = h.worker("liar", 1)
	for range 20 {
		for _, a := range rec.fresh() {
			h.s.Result(sess, Report{Task: a.Task, Lease: a.Lease, Counts: splitTruth(t, 12, a), Elapsed: 1000 * time.Hour})
			h.s.Ready(sess, 1)
		}
	}
	if h.s.stats.Splits != 0 {
		t.Errorf("claimed durations of 1000 h split %d tasks, want none (the fake clock never moved)", h.s.stats.Splits)
	}
}

// TestTaskTargetKept: the task target is what was asked at any board
// size: the bound is on the live tasks, not on those made over the run.
func TestTaskTargetKept(t *testing.T) {
	for _, n := range []int{16, 24, 26, 27, 28, 32} {
		plan, err := solver.NewLazyPlan(n, 3, solver.KindCount)
		if err != nil {
			t.Fatal(err)
		}
		if sp := newSplitter(Options{Plan: plan, TaskTarget: time.Minute}); sp.target != time.Minute {
			t.Errorf("n=%d: target %v, want the minute asked", n, sp.target)
		}
	}
}

// TestMinTasks: MinTasks makes the size rule split until at least that
// many tasks are made, depth first, so that the live tasks stay a small
// fraction of them; the count is exact.
func TestMinTasks(t *testing.T) {
	const want = 3000
	h := newSchedHarness(t, 11, 1, Options{MinTasks: want, testChunkBits: 6})
	sess, rec := h.worker("a", 8)
	finishAll(t, h, map[*Session]*recorder{sess: rec})
	checkCollapsed(t, h)
	h.s.mu.Lock()
	made, peak := h.s.store.len(), h.s.store.peak
	h.s.mu.Unlock()
	if made < want || peak > made/10 {
		t.Errorf("%d tasks made, at most %d live; want at least %d made, at most a tenth live", made, peak, want)
	}
	t.Logf("%d tasks made, at most %d live", made, peak)
}
