package sched

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/nqueens/nqueens/solver"
)

// The scheduler alone: plain Go calls, the fake clock, recording mailboxes
// and no gRPC server. Honest results are the solver's own counts
// (solver.CountTask), and whole jobs must add up to DESIGN.md §5 (known).

// cancelled is one Cancel a worker would receive.
type cancelled struct {
	lease  uint64
	task   TaskID
	reason string
}

// recorder is a mailbox that records what its worker would receive. The
// scheduler calls it under its lock, the coordinator's own verifications
// from their goroutines, so it has its own lock.
type recorder struct {
	mu      sync.Mutex
	assigns []Assignment
	cancels []cancelled
	drains  []string
	closed  bool
	taken   int // assigns already returned by fresh
}

func (r *recorder) Assign(a Assignment) {
	r.mu.Lock()
	r.assigns = append(r.assigns, a)
	r.mu.Unlock()
}

func (r *recorder) Cancel(lease uint64, task TaskID, reason string) {
	r.mu.Lock()
	r.cancels = append(r.cancels, cancelled{lease, task, reason})
	r.mu.Unlock()
}

func (r *recorder) Drain(reason string) {
	r.mu.Lock()
	r.drains = append(r.drains, reason)
	r.mu.Unlock()
}

func (r *recorder) Close() {
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
}

// fresh returns the assignments received since the last call.
func (r *recorder) fresh() []Assignment {
	r.mu.Lock()
	defer r.mu.Unlock()
	a := slices.Clone(r.assigns[r.taken:])
	r.taken = len(r.assigns)
	return a
}

// all returns every assignment received.
func (r *recorder) all() []Assignment {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.assigns)
}

func (r *recorder) cancelList() []cancelled {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.cancels)
}

func (r *recorder) drainList() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.drains)
}

// indexes lists the tasks of assignments, in order.
func indexes(as []Assignment) []int {
	out := make([]int, len(as))
	for i, a := range as {
		out[i] = a.Task.Index
	}
	return out
}

// span is lo, lo+1, ..., hi-1.
func span(lo, hi int) []int {
	var out []int
	for i := lo; i < hi; i++ {
		out = append(out, i)
	}
	return out
}

// schedHarness is a scheduler on an n-board plan with a fake clock.
type schedHarness struct {
	t     *testing.T
	clock *fakeClock
	s     *Scheduler
	plan  solver.Plan
	truth map[int]solver.Counts
	runs  bool // workers it attaches take runs (runs.go)
}

// testLease is the lease of every harness unless a test sets another.
const testLease = 10 * time.Second

func newSchedHarness(t *testing.T, n, depth int, opt Options) *schedHarness {
	t.Helper()
	plan, err := solver.NewPlan(n, depth, solver.KindCount)
	if err != nil {
		t.Fatal(err)
	}
	h := &schedHarness{t: t, clock: newFakeClock(), plan: plan, truth: map[int]solver.Counts{}}
	opt.Plan, opt.Clock = plan, h.clock
	if opt.Lease == 0 {
		opt.Lease = testLease
	}
	h.s = NewScheduler(opt)
	h.s.mu.check = func() {
		if err := h.s.invariantsLocked(); err != nil {
			t.Errorf("invariant broken: %v", err)
		}
	}
	t.Cleanup(h.s.Wait) // the coordinator's own verifications
	return h
}

// counts is the truth of task idx.
func (h *schedHarness) counts(idx int) solver.Counts {
	h.t.Helper()
	if c, ok := h.truth[idx]; ok {
		return c
	}
	c, err := solver.CountTask(h.plan.N, h.plan.Tasks[idx])
	if err != nil {
		h.t.Fatal(err)
	}
	h.truth[idx] = c
	return c
}

// worker joins a worker named name and attaches it with credits.
func (h *schedHarness) worker(name string, credits uint32) (*Session, *recorder) {
	h.t.Helper()
	rec := &recorder{}
	sess, err := h.s.Join(JoinRequest{Name: name, Version: "test", Slots: 1})
	if err != nil {
		h.t.Fatalf("join %s: %v", name, err)
	}
	if _, err := h.s.Attach(sess.id, "127.0.0.1:1", credits, h.runs, func(bool) Mailbox { return rec }); err != nil {
		h.t.Fatalf("attach %s: %v", name, err)
	}
	return sess, rec
}

// honest is the true report of a (of each task of a run).
func (h *schedHarness) honest(a Assignment) Report {
	if a.Run <= 1 {
		return Report{Task: a.Task, Lease: a.Lease, Counts: h.counts(a.Task.Index)}
	}
	r := Report{Task: a.Task, Lease: a.Lease}
	for i := range a.Run {
		c := h.counts(a.Task.Index + i)
		r.Run = append(r.Run, c)
		r.Counts = addCounts(r.Counts, c, 1)
	}
	return r
}

// lie is a report of a with the given counts.
func lie(a Assignment, c solver.Counts) Report {
	return Report{Task: a.Task, Lease: a.Lease, Counts: c}
}

// commit sends the honest result of a and wants it committed.
func (h *schedHarness) commit(sess *Session, a Assignment) {
	h.t.Helper()
	if v := h.s.Result(sess, h.honest(a)); v.Outcome != OutcomeCommitted {
		h.t.Fatalf("honest result of task %d by %s: outcome %d (%s), want committed", a.Task.Index, sess.name, v.Outcome, v.Reason)
	}
}

// drive answers honestly the pending assignments and every one rec
// receives, with a credit back for each, until none comes, waiting for the
// coordinator's own verifications in between; then it waits for the job
// to finish. Honest work is never rejected nor in conflict.
func (h *schedHarness) drive(sess *Session, rec *recorder, pending ...Assignment) {
	h.t.Helper()
	for {
		h.s.Wait()
		as := append(pending, rec.fresh()...)
		pending = nil
		if len(as) == 0 {
			break
		}
		for _, a := range as {
			if v := h.s.Result(sess, h.honest(a)); v.Outcome == OutcomeRejected || v.Outcome == OutcomeConflict {
				h.t.Errorf("honest result of task %d by %s: outcome %d (%s)", a.Task.Index, sess.name, v.Outcome, v.Reason)
			}
			h.s.Ready(sess, 1)
		}
	}
	select {
	case <-h.s.Finished():
	case <-time.After(eventTimeout):
		st := h.status()
		h.t.Fatalf("the job did not finish: %d of %d committed, %d leased, %d queued", st.Committed, st.Tasks, st.Leased, st.Queued)
	}
	h.s.Wait()
}

// status is a fresh snapshot; it checks that the task states add up.
func (h *schedHarness) status() Progress {
	h.t.Helper()
	st := h.s.Status()
	if st.Queued < 0 || st.Leased < 0 || st.Queued+st.Leased+st.Committed != st.Tasks {
		h.t.Errorf("queued %d + leased %d + committed %d, want %d tasks, none negative",
			st.Queued, st.Leased, st.Committed, st.Tasks)
	}
	return st
}

// checkExact wants the job finished without error and its totals exact.
func (h *schedHarness) checkExact() {
	h.t.Helper()
	c, committed, _, err := h.s.Totals()
	if err != nil || committed != len(h.plan.Tasks) {
		h.t.Fatalf("totals: %d of %d tasks committed, err %v", committed, len(h.plan.Tasks), err)
	}
	if k := known[h.plan.N]; c.Total != k.total || c.Unique != k.unique {
		h.t.Errorf("totals %d solutions, %d fundamental; want %d, %d", c.Total, c.Unique, k.total, k.unique)
	}
}

func (h *schedHarness) stats() Stats {
	_, _, st, _ := h.s.Totals()
	return st
}

// TestSchedLeaseOrder: fresh tasks go out in index order, taken-back ones
// before them, lowest index first, one per credit.
func TestSchedLeaseOrder(t *testing.T) {
	tests := []struct {
		name string
		run  func(h *schedHarness) []int // the tasks the last worker was leased
		want []int
	}{
		{"fresh tasks in index order, bounded by credits", func(h *schedHarness) []int {
			sess, rec := h.worker("a", 5)
			if got := indexes(rec.fresh()); !slices.Equal(got, span(0, 5)) {
				h.t.Errorf("first credits: tasks %v, want %v", got, span(0, 5))
			}
			h.s.Ready(sess, 3)
			return indexes(rec.fresh())
		}, span(5, 8)},
		{"taken-back tasks first, lowest index first", func(h *schedHarness) []int {
			a, ra := h.worker("a", 6)
			as := ra.fresh()
			h.s.Release(a, []uint64{as[4].Lease, as[1].Lease})
			b, rb := h.worker("b", 1)
			first := indexes(rb.fresh())
			h.s.Detach(a, "stream broken") // 0, 2, 3, 5 go back too
			h.s.Ready(b, 6)
			return append(first, indexes(rb.fresh())...)
		}, []int{1, 0, 2, 3, 4, 5, 6}},
		{"no credits, no lease", func(h *schedHarness) []int {
			_, rec := h.worker("a", 0)
			return indexes(rec.fresh())
		}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newSchedHarness(t, 8, 2, Options{})
			if got := tc.run(h); !slices.Equal(got, tc.want) {
				t.Errorf("leased tasks %v, want %v", got, tc.want)
			}
			h.status() // the task states add up
		})
	}
}

// TestSchedLeaseCreditCap: a worker that offers more than MaxCredits
// credits holds at most MaxCredits leases.
func TestSchedLeaseCreditCap(t *testing.T) {
	h := newSchedHarness(t, 13, 5, Options{}) // 7808 tasks
	if len(h.plan.Tasks) < MaxCredits+100 {
		t.Fatalf("plan of %d tasks, the test needs more than %d", len(h.plan.Tasks), MaxCredits+100)
	}
	a, ra := h.worker("greedy", MaxCredits+500)
	if got := indexes(ra.fresh()); !slices.Equal(got, span(0, MaxCredits)) {
		t.Fatalf("leased %d tasks, want the first %d", len(got), MaxCredits)
	}
	rest := len(h.plan.Tasks) - MaxCredits
	c, rc := h.worker("rest", uint32(rest))
	if got := len(rc.fresh()); got != rest {
		t.Fatalf("leased %d tasks, want the other %d", got, rest)
	}
	// Credits offered with nothing to lease do not pile up beyond the cap.
	b, rb := h.worker("hoarder", 0)
	h.s.Ready(b, MaxCredits)
	h.s.Ready(b, MaxCredits)
	h.s.Detach(a, "gone")
	h.s.Detach(c, "gone")
	if got := indexes(rb.fresh()); !slices.Equal(got, span(0, MaxCredits)) {
		t.Errorf("hoarder leased %d tasks, want the first %d", len(got), MaxCredits)
	}
	if st := h.status(); st.Leased != MaxCredits || b.credits != 0 {
		t.Errorf("leased %d, hoarder's credits %d; want %d, 0", st.Leased, b.credits, MaxCredits)
	}
}

// TestSchedLeaseExpiry: a heartbeat or a batch extends a lease; past its
// deadline expire cancels it on the worker, counts it and leases the task
// to the next worker with credits.
func TestSchedLeaseExpiry(t *testing.T) {
	h := newSchedHarness(t, 8, 1, Options{}) // 3 tasks
	a, ra := h.worker("a", 3)
	as := ra.fresh()
	b, rb := h.worker("b", 1) // nothing left to lease
	if got := rb.fresh(); len(got) != 0 {
		t.Fatalf("b leased %v with every task out", indexes(got))
	}
	h.clock.Advance(6 * time.Second)
	h.s.Heartbeat(a, []uint64{as[0].Lease})
	if _, _, ok := h.s.LeaseFor(a, as[2].Task, as[2].Lease); !ok {
		t.Fatal("leaseFor refused a's live lease")
	}
	if _, _, ok := h.s.LeaseFor(b, as[2].Task, as[2].Lease); ok {
		t.Fatal("leaseFor gave b a's lease")
	}
	h.clock.Advance(testLease - 6*time.Second) // task 1 at its deadline: not past it
	if n := h.s.expire(h.clock.Now()); n != 0 {
		t.Fatalf("expire at the deadline took back %d leases", n)
	}
	h.clock.Advance(time.Millisecond)
	if n := h.s.expire(h.clock.Now()); n != 1 {
		t.Fatalf("expire took back %d leases, want 1 (task 1)", n)
	}
	want := []cancelled{{as[1].Lease, as[1].Task, "lease expired"}}
	if got := ra.cancelList(); !slices.Equal(got, want) {
		t.Errorf("a's cancels %v, want %v", got, want)
	}
	if got := indexes(rb.fresh()); !slices.Equal(got, []int{1}) {
		t.Errorf("b leased %v after the expiry, want [1]", got)
	}
	h.s.Heartbeat(a, []uint64{as[1].Lease}) // too late
	if _, _, ok := h.s.LeaseFor(a, as[1].Task, as[1].Lease); ok || a.held[as[1].Lease] != nil {
		t.Error("an expired lease came back to life")
	}
	if st := h.stats(); st.Expired != 1 || st.Requeued != 1 || st.Leased != 4 {
		t.Errorf("expired %d, requeued %d, leased %d; want 1, 1, 4", st.Expired, st.Requeued, st.Leased)
	}
	// The heartbeat and the batch moved the others' deadlines 6s on.
	h.clock.Advance(6 * time.Second)
	if n := h.s.expire(h.clock.Now()); n != 2 || len(a.held) != 0 {
		t.Errorf("expire took back %d leases, a holds %d; want 2, 0", n, len(a.held))
	}
	if st := h.status(); st.Stats.Expired != 3 || st.Leased != 1 {
		t.Errorf("expired %d, leased %d; want 3, 1 (b's)", st.Stats.Expired, st.Leased)
	}
}

// retryStep ends one lease of task 0 on a worker of the given name.
type retryStep struct {
	name string
	end  string // fail, detach, expire, release
}

// TestSchedRetryCap: only the solver's own failures count toward a task's
// retry cap, and only on distinct worker names: MaxAttempts
// of them fail the job with an error naming the failure.
func TestSchedRetryCap(t *testing.T) {
	const failure = "solver exploded"
	fail := func(name string) retryStep { return retryStep{name, "fail"} }
	tests := []struct {
		name     string
		steps    []retryStep
		wantFail bool
	}{
		{"one name, MaxAttempts failures", []retryStep{fail("a"), fail("a"), fail("a"), fail("a")}, false},
		{"two names, repeated", []retryStep{fail("a"), fail("b"), fail("a"), fail("b")}, false},
		{"MaxAttempts distinct names", []retryStep{fail("a"), fail("b"), fail("c")}, true},
		{"broken streams, expiries and releases never count", []retryStep{
			fail("a"), {"b", "detach"}, {"c", "expire"}, {"d", "release"}, {"e", "detach"}, fail("a"), {"f", "expire"}, fail("b"),
		}, false},
		{"the third distinct failure after breaks", []retryStep{
			fail("a"), {"b", "detach"}, {"c", "expire"}, fail("b"), {"d", "release"}, fail("d"),
		}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newSchedHarness(t, 8, 1, Options{MaxAttempts: 3})
			for i, st := range tc.steps {
				sess, rec := h.worker(st.name, 1)
				as := rec.fresh()
				if !slices.Equal(indexes(as), []int{0}) {
					t.Fatalf("step %d: %s leased %v, want task 0 first", i, st.name, indexes(as))
				}
				switch st.end {
				case "fail":
					r := Report{Task: as[0].Task, Lease: as[0].Lease, Failure: failure}
					if v := h.s.Result(sess, r); v.Outcome != OutcomeRejected {
						t.Fatalf("step %d: failure outcome %d, want rejected", i, v.Outcome)
					}
				case "detach":
					h.s.Detach(sess, "stream broken")
				case "expire":
					h.clock.Advance(testLease + time.Second)
					if n := h.s.expire(h.clock.Now()); n != 1 {
						t.Fatalf("step %d: %d leases expired, want 1", i, n)
					}
				case "release":
					h.s.Release(sess, []uint64{as[0].Lease})
				}
			}
			_, _, stats, err := h.s.Totals()
			if stats.Requeued != uint64(len(tc.steps)) {
				t.Errorf("requeued %d, want %d", stats.Requeued, len(tc.steps))
			}
			if !tc.wantFail {
				if err != nil || h.s.finishedLocked() {
					t.Fatalf("the job failed: %v", err)
				}
				z, rz := h.worker("z", 3)
				h.drive(z, rz)
				h.checkExact()
				return
			}
			if err == nil || !strings.Contains(err.Error(), "task 0") || !strings.Contains(err.Error(), failure) {
				t.Fatalf("job error %v, want one naming task 0 and %q", err, failure)
			}
			select {
			case <-h.s.Finished():
			default:
				t.Error("failed job not finished")
			}
			if _, rz := h.worker("z", 3); len(rz.fresh()) != 0 || len(rz.drainList()) != 1 {
				t.Errorf("a worker joining a failed job was not drained at once")
			}
		})
	}
}

// TestSchedRelease: released leases go back without a Cancel and without
// counting toward the retry cap; a worker cannot release another's lease.
func TestSchedRelease(t *testing.T) {
	h := newSchedHarness(t, 8, 2, Options{MaxAttempts: 1})
	a, ra := h.worker("a", 3)
	as := ra.fresh()
	b, rb := h.worker("b", 0)
	h.s.Release(b, []uint64{as[1].Lease}) // not b's: nothing happens
	h.s.Release(a, []uint64{as[0].Lease, as[2].Lease, 999})
	if got := ra.cancelList(); len(got) != 0 {
		t.Errorf("release sent cancels %v", got)
	}
	if len(a.held) != 1 || a.held[as[1].Lease] == nil {
		t.Errorf("a holds %d leases, want task 1's", len(a.held))
	}
	h.s.Ready(b, 3)
	if got := indexes(rb.fresh()); !slices.Equal(got, []int{0, 2, 3}) {
		t.Errorf("b leased %v, want [0 2 3]", got)
	}
	// With a retry cap of 1, releases by many workers still fail nothing.
	for _, name := range []string{"c", "d", "e"} {
		sess, rec := h.worker(name, 1)
		l := rec.fresh()
		h.s.Release(sess, []uint64{l[0].Lease})
	}
	st := h.stats()
	if st.Requeued != 5 || st.Expired != 0 || st.Rejected != 0 {
		t.Errorf("requeued %d, expired %d, rejected %d; want 5, 0, 0", st.Requeued, st.Expired, st.Rejected)
	}
	if _, _, _, err := h.s.Totals(); err != nil {
		t.Errorf("releases failed the job: %v", err)
	}
}

// expireAll moves the clock past every lease and expires them.
func (h *schedHarness) expireAll() int {
	h.clock.Advance(testLease + time.Second)
	return h.s.expire(h.clock.Now())
}

// resultCase is one result and the verdict it must get.
type resultCase struct {
	name string
	// run leases tasks to workers a and b (attached with no credits) and
	// returns the verdict of the result under test.
	run        func(h *schedHarness, a, b *Session, ra, rb *recorder) Verdict
	want       Outcome
	committed  int // tasks committed after it
	leased     int // tasks leased after it
	dup, confl uint64
	rejected   uint64
}

// expiredTo leases task 0 to a, expires it and leases it to b.
func (h *schedHarness) expiredTo(a, b *Session, ra, rb *recorder) (Assignment, Assignment) {
	h.t.Helper()
	h.s.Ready(a, 1)
	la := ra.fresh()[0]
	if h.expireAll() != 1 {
		h.t.Fatal("a's lease did not expire")
	}
	h.s.Ready(b, 1)
	lb := rb.fresh()[0]
	if la.Task.Index != 0 || lb.Task.Index != 0 {
		h.t.Fatalf("leased %d, then %d; want task 0 twice", la.Task.Index, lb.Task.Index)
	}
	return la, lb
}

// otherCounts are plausible counts that task 0 (no solution) does not have.
var otherCounts = solver.Counts{Total: 8, Unique: 1, Nodes: 14}

// againCases are results for tasks committed already or about to be.
func againCases() []resultCase {
	return []resultCase{
		{name: "late, nobody committed meanwhile", run: func(h *schedHarness, a, b *Session, ra, rb *recorder) Verdict {
			la, lb := h.expiredTo(a, b, ra, rb)
			v := h.s.Result(a, h.honest(la))
			want := []cancelled{{lb.Lease, lb.Task, "committed by another worker"}}
			if got := rb.cancelList(); !slices.Equal(got, want) {
				h.t.Errorf("b's cancels %v, want %v", got, want)
			}
			if late := h.s.Result(b, h.honest(lb)); late.Outcome != OutcomeDuplicate {
				h.t.Errorf("b's result after the cancel: outcome %d, want duplicate", late.Outcome)
			}
			return v
		}, want: OutcomeCommitted, committed: 1, dup: 1},
		{name: "late, committed meanwhile, equal", run: func(h *schedHarness, a, b *Session, ra, rb *recorder) Verdict {
			la, lb := h.expiredTo(a, b, ra, rb)
			h.commit(b, lb)
			return h.s.Result(a, h.honest(la))
		}, want: OutcomeDuplicate, committed: 1, dup: 1},
		{name: "late, committed meanwhile, different", run: func(h *schedHarness, a, b *Session, ra, rb *recorder) Verdict {
			la, lb := h.expiredTo(a, b, ra, rb)
			h.commit(b, lb)
			return h.s.Result(a, lie(la, otherCounts))
		}, want: OutcomeConflict, committed: 1, confl: 1},
		{name: "the same result twice", run: func(h *schedHarness, a, b *Session, ra, rb *recorder) Verdict {
			h.s.Ready(a, 1)
			la := ra.fresh()[0]
			h.commit(a, la)
			return h.s.Result(a, h.honest(la))
		}, want: OutcomeDuplicate, committed: 1, dup: 1},
		{name: "another result for a committed task", run: func(h *schedHarness, a, b *Session, ra, rb *recorder) Verdict {
			h.s.Ready(a, 1)
			la := ra.fresh()[0]
			h.commit(a, la)
			return h.s.Result(a, lie(la, otherCounts))
		}, want: OutcomeConflict, committed: 1, confl: 1},
	}
}

// foreignCases are results for tasks the worker does not hold: rejected,
// and a's lease of task 0 lives on.
func foreignCases() []resultCase {
	leased := func(h *schedHarness, a *Session, ra *recorder, edit func(*Report)) Verdict {
		h.s.Ready(a, 1)
		r := h.honest(ra.fresh()[0])
		edit(&r)
		return h.s.Result(a, r)
	}
	return []resultCase{
		{name: "another plan", run: func(h *schedHarness, a, b *Session, ra, rb *recorder) Verdict {
			return leased(h, a, ra, func(r *Report) { r.Task.Plan++ })
		}, want: OutcomeRejected, leased: 1, rejected: 1},
		{name: "index below the plan", run: func(h *schedHarness, a, b *Session, ra, rb *recorder) Verdict {
			return leased(h, a, ra, func(r *Report) { r.Task.Index = -1 })
		}, want: OutcomeRejected, leased: 1, rejected: 1},
		{name: "index past the plan", run: func(h *schedHarness, a, b *Session, ra, rb *recorder) Verdict {
			return leased(h, a, ra, func(r *Report) { r.Task.Index = len(h.plan.Tasks) })
		}, want: OutcomeRejected, leased: 1, rejected: 1},
		{name: "a task never leased", run: func(h *schedHarness, a, b *Session, ra, rb *recorder) Verdict {
			return leased(h, a, ra, func(r *Report) { r.Task.Index = 5 })
		}, want: OutcomeRejected, leased: 1, rejected: 1},
		{name: "no lease at all", run: func(h *schedHarness, a, b *Session, ra, rb *recorder) Verdict {
			return h.s.Result(a, Report{Task: TaskID{Plan: h.plan.Fingerprint(), Index: 3}})
		}, want: OutcomeRejected, rejected: 1},
		{name: "another worker's lease", run: func(h *schedHarness, a, b *Session, ra, rb *recorder) Verdict {
			h.s.Ready(a, 1)
			return h.s.Result(b, h.honest(ra.fresh()[0]))
		}, want: OutcomeRejected, leased: 1, rejected: 1},
	}
}

// TestSchedResults: late, duplicate, conflicting and foreign results get
// the right verdict and counters, and change nothing else.
func TestSchedResults(t *testing.T) {
	for _, tc := range append(againCases(), foreignCases()...) {
		t.Run(tc.name, func(t *testing.T) {
			h := newSchedHarness(t, 8, 2, Options{})
			a, ra := h.worker("a", 0)
			b, rb := h.worker("b", 0)
			v := tc.run(h, a, b, ra, rb)
			if v.Outcome != tc.want {
				t.Errorf("outcome %d (%s), want %d", v.Outcome, v.Reason, tc.want)
			}
			st := h.status()
			if st.Committed != tc.committed || st.Leased != tc.leased || st.Stats.Duplicates != tc.dup ||
				st.Stats.Conflicts != tc.confl || st.Stats.Rejected != tc.rejected {
				t.Errorf("committed %d, leased %d, duplicates %d, conflicts %d, rejected %d; want %d, %d, %d, %d, %d",
					st.Committed, st.Leased, st.Stats.Duplicates, st.Stats.Conflicts, st.Stats.Rejected,
					tc.committed, tc.leased, tc.dup, tc.confl, tc.rejected)
			}
			conflicts := 0
			for _, e := range h.s.EventsAfter(0) {
				if e.Kind == EventConflict {
					conflicts++
				}
			}
			if conflicts != int(tc.confl) {
				t.Errorf("%d conflict events, want %d", conflicts, tc.confl)
			}
			if c, _, _, _ := h.s.Totals(); c != st.committedCounts() {
				t.Errorf("totals %+v, status %+v", c, st.committedCounts())
			}
		})
	}
}

// committedCounts is what st says was committed.
func (st Progress) committedCounts() solver.Counts {
	return solver.Counts{Total: st.Solutions, Unique: st.Unique, Nodes: st.Nodes}
}

// TestSchedImplausible: counts no task of the board can have are rejected
// without recomputing them (D8), the worker earns a strike and the task
// goes to the next worker.
func TestSchedImplausible(t *testing.T) {
	tests := []struct {
		name   string
		counts solver.Counts
		reason string
	}{
		{"odd total", solver.Counts{Total: 7, Unique: 1}, "odd"},
		{"unique above total", solver.Counts{Total: 8, Unique: 9}, "exceeds"},
		{"total above the board's", solver.Counts{Total: known[8].total + 2, Unique: 1}, "whole board"},
		{"unique above the board's", solver.Counts{Total: known[8].total, Unique: known[8].unique + 1}, "whole board"},
		{"near overflow", solver.Counts{Total: 1<<64 - 2, Unique: 1}, "whole board"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newSchedHarness(t, 8, 2, Options{})
			a, ra := h.worker("a", 1)
			v := h.s.Result(a, lie(ra.fresh()[0], tc.counts))
			if v.Outcome != OutcomeRejected || !strings.Contains(v.Reason, tc.reason) {
				t.Errorf("outcome %d (%s), want rejected for %q", v.Outcome, v.Reason, tc.reason)
			}
			if a.strikes != 1 || a.quarantined || len(a.held) != 0 {
				t.Errorf("strikes %d, quarantined %v, holds %d; want 1, false, 0", a.strikes, a.quarantined, len(a.held))
			}
			_, rb := h.worker("b", 1)
			if got := indexes(rb.fresh()); !slices.Equal(got, []int{0}) {
				t.Errorf("b leased %v, want the rejected task 0", got)
			}
			if st := h.status(); st.Committed != 0 || st.Stats.Rejected != 1 || st.Stats.Requeued != 1 || st.Solutions != 0 {
				t.Errorf("committed %d, rejected %d, requeued %d, solutions %d; want 0, 1, 1, 0",
					st.Committed, st.Stats.Rejected, st.Stats.Requeued, st.Solutions)
			}
		})
	}
}

// TestSchedQuarantineStrikes: MaxStrikes invalid results or batches
// quarantine a worker: it is drained, refused, and the tasks it committed
// go back to the queue, so the totals stay exact.
func TestSchedQuarantineStrikes(t *testing.T) {
	bad := solver.Counts{Total: 7, Unique: 1}
	tests := []struct {
		name    string
		batches []bool // per strike: a bad batch (true) or a bad result
	}{
		{"two bad results", []bool{false, false}},
		{"three bad results", []bool{false, false, false}},
		{"three bad batches", []bool{true, true, true}},
		{"bad results and a bad batch", []bool{false, true, false}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newSchedHarness(t, 8, 2, Options{})
			a, ra := h.worker("a", 5)
			as := ra.fresh()
			h.commit(a, as[0])
			h.commit(a, as[4]) // 8 solutions
			nbatches := 0
			for i, batch := range tc.batches {
				if batch {
					nbatches++
					h.s.RejectBatch(a, as[1+i].Lease, "bad batch")
				} else if v := h.s.Result(a, lie(as[1+i], bad)); v.Outcome != OutcomeRejected {
					t.Fatalf("strike %d: outcome %d, want rejected", i, v.Outcome)
				}
			}
			if got := len(ra.cancelList()); got != nbatches {
				t.Errorf("%d cancels, want one per bad batch (%d)", got, nbatches)
			}
			quarantined := len(tc.batches) >= MaxStrikes
			st := h.status()
			if a.quarantined != quarantined || st.Stats.Quarantined != uint64(len(tc.batches)/MaxStrikes) {
				t.Fatalf("quarantined %v (%d), want %v", a.quarantined, st.Stats.Quarantined, quarantined)
			}
			if !quarantined {
				if st.Committed != 2 || len(ra.drainList()) != 0 {
					t.Errorf("committed %d, drains %v; want 2, none", st.Committed, ra.drainList())
				}
				return
			}
			if d := ra.drainList(); len(d) != 1 || !strings.HasPrefix(d[0], "quarantined") {
				t.Errorf("drains %q, want one quarantine", d)
			}
			if st.Committed != 0 || st.Solutions != 0 || st.Leased != 0 || len(a.held) != 0 {
				t.Errorf("after the quarantine: committed %d, solutions %d, leased %d; want nothing left", st.Committed, st.Solutions, st.Leased)
			}
			if v := h.s.Result(a, h.honest(as[0])); v.Outcome != OutcomeRejected {
				t.Errorf("a quarantined worker's result: outcome %d, want rejected", v.Outcome)
			}
			b, rb := h.worker("b", 5)
			bs := rb.fresh()
			if got := indexes(bs); !slices.Equal(got, span(0, 5)) {
				t.Errorf("b leased %v, want the quarantined worker's tasks %v first", got, span(0, 5))
			}
			h.drive(b, rb, bs...)
			h.checkExact()
		})
	}
}

// countOf counts the assignments of task idx.
func countOf(as []Assignment, idx int) int {
	n := 0
	for _, a := range as {
		if a.Task.Index == idx {
			n++
		}
	}
	return n
}

// TestSchedQuarantineVerifiedCommitter: with VerifyFraction 1 a committed
// lie is caught by a second worker, the coordinator's own count (solver.CountTask) settles
// it, the liar is quarantined and the totals stay exact.
func TestSchedQuarantineVerifiedCommitter(t *testing.T) {
	checkLeaks(t)
	h := newSchedHarness(t, 8, 2, Options{VerifyFraction: 1})
	liar, rl := h.worker("liar", 2)
	ls := rl.fresh()
	h.commit(liar, ls[1])
	if v := h.s.Result(liar, lie(ls[0], solver.Counts{Total: 8, Unique: 1, Nodes: 14})); v.Outcome != OutcomeCommitted {
		t.Fatalf("the lie: outcome %d, want committed (it is plausible)", v.Outcome)
	}
	hon, rh := h.worker("honest", 100)
	hs := rh.fresh()
	// Verifications go in commit order: task 1, then the lie.
	if got, want := indexes(hs), append(span(2, 17), 1, 0); !slices.Equal(got, want) {
		t.Fatalf("honest leased %v, want the fresh tasks, then verifications %v", got, want)
	}
	if v := h.s.Result(hon, h.honest(hs[15])); v.Outcome != OutcomeVerified {
		t.Errorf("verification of the liar's true task 1: outcome %d, want verified", v.Outcome)
	}
	if v := h.s.Result(hon, h.honest(hs[16])); v.Outcome != OutcomeConflict {
		t.Errorf("verification of the lie: outcome %d, want conflict", v.Outcome)
	}
	h.s.Wait() // the coordinator's count of task 0
	if !liar.quarantined || len(rl.drainList()) != 1 {
		t.Fatalf("liar quarantined %v, drains %q", liar.quarantined, rl.drainList())
	}
	if st := h.status(); st.Committed != 1 || st.Solutions != 0 {
		t.Errorf("after the quarantine: %d committed with %d solutions; want task 0 with the truth, 0", st.Committed, st.Solutions)
	}
	if v := h.s.Result(liar, h.honest(ls[1])); v.Outcome != OutcomeRejected {
		t.Errorf("the quarantined liar's result: outcome %d, want rejected", v.Outcome)
	}
	h.drive(hon, rh, hs[:15]...)
	h.checkExact()
	if n := countOf(rh.all(), 1); n != 2 {
		t.Errorf("honest leased task 1 %d times, want 2 (verified, then taken back from the liar)", n)
	}
	if countOf(rh.all(), 0) != 1 {
		t.Error("the task the coordinator settled was leased again")
	}
	if st := h.stats(); st.Quarantined != 1 || st.Conflicts != 1 || st.Verified < uint64(len(h.plan.Tasks)) {
		t.Errorf("quarantined %d, conflicts %d, verified %d; want 1, 1, at least %d", st.Quarantined, st.Conflicts, st.Verified, len(h.plan.Tasks))
	}
	if len(rh.drainList()) != 0 {
		t.Errorf("the honest worker was drained: %q", rh.drainList())
	}
}

// TestSchedQuarantineVerifiedVerifier: a worker that lies in a
// verification is quarantined, and the committed counts stay.
func TestSchedQuarantineVerifiedVerifier(t *testing.T) {
	checkLeaks(t)
	h := newSchedHarness(t, 8, 2, Options{VerifyFraction: 1})
	liar, rl := h.worker("liar", 0) // attached: the verifications wait for it
	hon, rh := h.worker("honest", 17)
	for _, a := range rh.fresh() {
		h.commit(hon, a)
	}
	h.s.Ready(liar, 17)
	ls := rl.fresh()
	if got := indexes(ls); !slices.Equal(got, span(0, 17)) {
		t.Fatalf("liar verifies %v, want every task", got)
	}
	if v := h.s.Result(liar, lie(ls[4], solver.Counts{Total: 16, Unique: 2, Nodes: 37})); v.Outcome != OutcomeConflict {
		t.Errorf("the lying verification: outcome %d, want conflict", v.Outcome)
	}
	h.s.Wait()
	if !liar.quarantined || len(rl.drainList()) != 1 || len(liar.held) != 0 {
		t.Fatalf("liar quarantined %v, drains %q, holds %d", liar.quarantined, rl.drainList(), len(liar.held))
	}
	for _, a := range ls[5:] {
		if v := h.s.Result(liar, h.honest(a)); v.Outcome != OutcomeRejected {
			t.Errorf("quarantined liar's verification of task %d: outcome %d, want rejected", a.Task.Index, v.Outcome)
		}
	}
	h.drive(hon, rh) // the coordinator verifies the rest itself
	h.checkExact()
	if st := h.status(); st.Stats.Quarantined != 1 || st.Stats.Verified != 17 || len(rh.all()) != 17 {
		t.Errorf("quarantined %d, verified %d, honest leased %d; want 1, 17, 17", st.Stats.Quarantined, st.Stats.Verified, len(rh.all()))
	}
}

// TestSchedRestore: tasks restored from a journal are never leased and
// count in the totals but not in this run's work; an implausible record is
// dropped and its task computed again.
func TestSchedRestore(t *testing.T) {
	h := newSchedHarness(t, 8, 2, Options{})
	for _, idx := range []int{-1, len(h.plan.Tasks)} {
		if err := h.s.Restore(idx, solver.Counts{}); err == nil {
			t.Errorf("restore(%d) of a %d-task plan: no error", idx, len(h.plan.Tasks))
		}
	}
	records := []struct {
		index int
		c     solver.Counts
	}{
		{0, h.counts(0)},
		{4, h.counts(4)}, // 8 solutions
		{5, solver.Counts{Total: 7, Unique: 1, Nodes: 3}},   // odd: dropped
		{6, solver.Counts{Total: 92, Unique: 12, Nodes: 1}}, // past the board with task 4's: dropped
		{4, solver.Counts{Total: 16, Unique: 2, Nodes: 5}},  // restored already: ignored
	}
	for _, r := range records {
		if err := h.s.Restore(r.index, r.c); err != nil {
			t.Fatalf("restore(%d): %v", r.index, err)
		}
	}
	h.s.CheckDone()
	st := h.status()
	if st.Restored != 2 || st.Committed != 2 || st.Solutions != 8 || st.WorkDone != 0 || st.Done {
		t.Errorf("restored %d, committed %d, solutions %d, work done %v, done %v; want 2, 2, 8, 0, false",
			st.Restored, st.Committed, st.Solutions, st.WorkDone, st.Done)
	}
	a, ra := h.worker("a", 100)
	as := ra.fresh()
	want := slices.DeleteFunc(span(0, 17), func(i int) bool { return i == 0 || i == 4 })
	if got := indexes(as); !slices.Equal(got, want) {
		t.Fatalf("leased %v, want every task but the restored 0 and 4: %v", got, want)
	}
	var work float64
	for _, i := range want {
		work += float64(h.counts(i).Nodes)
	}
	h.drive(a, ra, as...)
	h.checkExact()
	st = h.status()
	if st.Restored != 2 || st.WorkDone != work || st.WorkTotal != work || !st.Done {
		t.Errorf("restored %d, work %v of %v, done %v; want 2, %v of %v, true", st.Restored, st.WorkDone, st.WorkTotal, st.Done, work, work)
	}
}

// TestSchedRestoreAll: a job restored whole is done before any worker
// joins, and a worker that joins is drained at once.
func TestSchedRestoreAll(t *testing.T) {
	h := newSchedHarness(t, 8, 2, Options{})
	for i := range h.plan.Tasks {
		if err := h.s.Restore(i, h.counts(i)); err != nil {
			t.Fatal(err)
		}
	}
	h.s.CheckDone()
	select {
	case <-h.s.Finished():
	default:
		t.Fatal("a job restored whole is not finished")
	}
	_, ra := h.worker("a", 5)
	if len(ra.fresh()) != 0 || len(ra.drainList()) != 1 {
		t.Errorf("a worker joining a restored job: %d assignments, drains %q", len(ra.all()), ra.drainList())
	}
	h.checkExact()
	if st := h.status(); st.WorkTotal != 0 || st.Restored != 17 {
		t.Errorf("work total %v, restored %d; want 0, 17", st.WorkTotal, st.Restored)
	}
}

// TestSchedEndedLeasesBounded: leases that end are remembered only in a
// ring of MaxEndedLeases (D4), so a worker that takes and releases leases
// in a loop cannot grow the coordinator's memory; a late result for a
// lease the ring still holds is matched, an older one is not.
func TestSchedEndedLeasesBounded(t *testing.T) {
	h := newSchedHarness(t, 8, 1, Options{})
	a, ra := h.worker("a", 1)
	first := ra.fresh()[0]
	prev := first
	for range MaxEndedLeases + 100 {
		h.s.Release(a, []uint64{prev.Lease})
		h.s.Ready(a, 1)
		as := ra.fresh()
		if len(as) != 1 || as[0].Task.Index != 0 {
			t.Fatalf("after a release: leased %v, want task 0 again", indexes(as))
		}
		prev = as[0]
	}
	if live := len(a.held); live != 1 || len(h.s.leases) > live+MaxEndedLeases {
		t.Fatalf("%d leases remembered, %d live; want at most %d", len(h.s.leases), live, live+MaxEndedLeases)
	}
	if v := h.s.Result(a, h.honest(first)); v.Outcome != OutcomeRejected {
		t.Errorf("result for a forgotten lease: outcome %d, want rejected", v.Outcome)
	}
	all := ra.all()
	recent := all[len(all)-2] // released last
	if v := h.s.Result(a, h.honest(recent)); v.Outcome != OutcomeCommitted {
		t.Errorf("late result for a remembered lease: outcome %d (%s), want committed", v.Outcome, v.Reason)
	}
	if st := h.stats(); st.Requeued != MaxEndedLeases+101 || st.Leased != MaxEndedLeases+101 {
		t.Errorf("requeued %d, leased %d; want %d each", st.Requeued, st.Leased, MaxEndedLeases+101)
	}
}

// TestSchedStatus: the task states add up to the plan (h.status checks it
// at every step), Busy counts only time with a worker attached, and the
// work done grows with the committed nodes.
func TestSchedStatus(t *testing.T) {
	h := newSchedHarness(t, 8, 2, Options{})
	check := func(what string, busy time.Duration, queued, leased, committed int) Progress {
		t.Helper()
		st := h.status()
		if st.Busy != busy || st.Queued != queued || st.Leased != leased || st.Committed != committed {
			t.Errorf("%s: busy %v, queued %d, leased %d, committed %d; want %v, %d, %d, %d",
				what, st.Busy, st.Queued, st.Leased, st.Committed, busy, queued, leased, committed)
		}
		if st.WorkDone < 0 || st.WorkTotal < st.WorkDone {
			t.Errorf("%s: work %v of %v", what, st.WorkDone, st.WorkTotal)
		}
		return st
	}
	h.clock.Advance(5 * time.Second) // nobody attached
	check("no worker", 0, 17, 0, 0)
	a, ra := h.worker("a", 3)
	h.clock.Advance(7 * time.Second)
	check("a attached", 7*time.Second, 14, 3, 0)
	b, rb := h.worker("b", 2)
	h.clock.Advance(time.Second) // two workers: still one second
	st := check("a and b", 8*time.Second, 12, 5, 0)
	if len(st.Workers) != 2 || st.PeakWorkers != 2 || st.Workers[0].Leases+st.Workers[1].Leases != 5 {
		t.Errorf("workers %+v, peak %d; want a and b, 5 leases between them", st.Workers, st.PeakWorkers)
	}
	as := ra.fresh()
	var done float64
	for i, x := range as[:2] {
		h.commit(a, x)
		done += float64(h.counts(x.Task.Index).Nodes)
		st = check("a committed", 8*time.Second, 12, 4-i, 1+i)
		if st.WorkDone != done {
			t.Errorf("after %d commits: work done %v, want the committed nodes %v", i+1, st.WorkDone, done)
		}
	}
	h.s.Detach(a, "stream broken")
	check("a gone", 8*time.Second, 13, 2, 2)
	h.s.Detach(b, "stream broken")
	h.clock.Advance(11 * time.Second) // nobody attached again
	st = check("all gone", 8*time.Second, 15, 0, 2)
	if len(st.Workers) != 0 || st.PeakWorkers != 2 || len(rb.cancelList()) != 0 {
		t.Errorf("workers %d, peak %d, cancels %v; want 0, 2, none", len(st.Workers), st.PeakWorkers, rb.cancelList())
	}
	c, rc := h.worker("c", 20)
	h.clock.Advance(2 * time.Second)
	check("c attached", 10*time.Second, 0, 15, 2)
	h.drive(c, rc)
	st = check("done", 10*time.Second, 0, 0, 17)
	if !st.Done || st.WorkDone != st.WorkTotal || st.Solutions != known[8].total {
		t.Errorf("done %v, work %v of %v, solutions %d; want true, all, %d", st.Done, st.WorkDone, st.WorkTotal, st.Solutions, known[8].total)
	}
}

// TestSchedStatusVerifying: verification leases are of committed tasks;
// they must not make the queue look shorter than it is.
func TestSchedStatusVerifying(t *testing.T) {
	checkLeaks(t)
	h := newSchedHarness(t, 8, 2, Options{VerifyFraction: 1})
	v, rv := h.worker("verifier", 0)
	c, rc := h.worker("committer", 17)
	for _, a := range rc.fresh() {
		h.commit(c, a)
	}
	h.s.Ready(v, 4) // verifications of the committed tasks
	if got := indexes(rv.fresh()); !slices.Equal(got, span(0, 4)) {
		t.Fatalf("verifier leased %v, want verifications of tasks 0..3", got)
	}
	st := h.status()
	if st.Queued != 0 || st.Committed != 17 {
		t.Errorf("queued %d, committed %d; want 0, 17", st.Queued, st.Committed)
	}
}

// TestSchedEvents: joins, leaves, expiries, quarantines and the end are
// recorded in order with growing Seq, eventsAfter returns only newer
// ones, and at most maxEvents are kept.
func TestSchedEvents(t *testing.T) {
	h := newSchedHarness(t, 8, 1, Options{}) // 3 tasks
	a, _ := h.worker("a", 1)
	h.expireAll()
	b, rb := h.worker("b", 3)
	liar, _ := h.worker("liar", 0)
	for range MaxStrikes {
		h.s.RejectBatch(liar, 0, "bad batch")
	}
	h.drive(b, rb)
	h.s.Detach(a, "stream broken")
	type ev struct {
		kind   EventKind
		worker string
	}
	want := []ev{{EventJoin, "a"}, {EventExpire, "a"}, {EventJoin, "b"}, {EventJoin, "liar"},
		{EventQuarantine, "liar"}, {EventDone, ""}, {EventLeave, "a"}}
	evs := h.s.EventsAfter(0)
	var got []ev
	for i, e := range evs {
		got = append(got, ev{e.Kind, e.Worker})
		if e.Seq != uint64(i+1) || !e.Time.Equal(h.clock.Now()) && e.Kind != EventJoin {
			t.Errorf("event %d: seq %d, time %v", i, e.Seq, e.Time)
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("events %v, want %v", got, want)
	}
	if after := h.s.EventsAfter(4); len(after) != 3 || after[0].Seq != 5 {
		t.Errorf("eventsAfter(4) = %v, want seq 5..7", after)
	}
	if after := h.s.EventsAfter(7); len(after) != 0 {
		t.Errorf("eventsAfter(7) = %v, want none", after)
	}
	// A flapping cluster: join and leave events beyond maxEvents.
	for i := range maxEvents {
		s, _ := h.worker("flap", 0)
		h.s.Detach(s, "flap "+string(rune('a'+i%26)))
	}
	total := uint64(7 + 2*maxEvents)
	evs = h.s.EventsAfter(0)
	if len(evs) != maxEvents || evs[0].Seq != total-maxEvents+1 || evs[len(evs)-1].Seq != total {
		t.Fatalf("%d events kept, seq %d..%d; want %d, %d..%d", len(evs), evs[0].Seq, evs[len(evs)-1].Seq, maxEvents, total-maxEvents+1, total)
	}
	for i := 1; i < len(evs); i++ {
		if evs[i].Seq != evs[i-1].Seq+1 {
			t.Fatalf("seq %d after %d", evs[i].Seq, evs[i-1].Seq)
		}
	}
	if after := h.s.EventsAfter(total - 10); len(after) != 10 {
		t.Errorf("eventsAfter(%d) returned %d events, want 10", total-10, len(after))
	}
}

// TestSchedVerifiedTwice: a second, different result for a verification
// already passed is a conflict with the committed counts; it must not
// count as a verification again, or the job would end before every
// sampled task is verified.
func TestSchedVerifiedTwice(t *testing.T) {
	checkLeaks(t)
	h := newSchedHarness(t, 8, 2, Options{VerifyFraction: 1})
	v, rv := h.worker("v", 0)
	w, rw := h.worker("w", 0)
	c, rc := h.worker("committer", 17)
	for _, a := range rc.fresh() {
		h.commit(c, a)
	}
	h.s.Ready(v, 1)
	va := rv.fresh()[0]
	if r := h.s.Result(v, h.honest(va)); r.Outcome != OutcomeVerified {
		t.Fatalf("honest verification: outcome %d, want verified", r.Outcome)
	}
	if r := h.s.Result(v, lie(va, solver.Counts{Total: 16, Unique: 2, Nodes: 14})); r.Outcome != OutcomeConflict {
		t.Errorf("a second, different verification: outcome %d, want conflict", r.Outcome)
	}
	h.s.Wait()
	h.s.Ready(w, 15)
	for _, a := range rw.fresh() {
		if r := h.s.Result(w, h.honest(a)); r.Outcome != OutcomeVerified {
			t.Errorf("verification of task %d: outcome %d, want verified", a.Task.Index, r.Outcome)
		}
	}
	if h.status().Done {
		t.Fatal("the job is done with a sampled task not verified")
	}
	h.s.Ready(w, 1)
	h.drive(w, rw)
	h.checkExact()
	h.s.mu.Lock()
	pending := h.s.pendingVerify
	h.s.mu.Unlock()
	if st := h.stats(); st.Verified != 17 || st.Conflicts != 1 || pending != 0 {
		t.Errorf("verified %d, conflicts %d, pending %d; want 17, 1, 0", st.Verified, st.Conflicts, pending)
	}
}

// memJournal records what the scheduler makes durable.
type memJournal struct {
	mu        sync.Mutex
	commits   map[int]solver.Counts
	by        map[int]uint64
	distrust  []uint64
	splits    []Split
	log       []any // every record in order: Split, JournalResult, or a distrusted key (uint64)
	commitErr error
	syncErr   error
}

func (j *memJournal) Split(sp Split) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.splits = append(j.splits, sp)
	j.log = append(j.log, sp)
	return nil
}

func (j *memJournal) Commit(index int, c solver.Counts, worker uint64) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.commitErr != nil {
		return j.commitErr
	}
	j.commits[index], j.by[index] = c, worker
	j.log = append(j.log, JournalResult{Index: index, Counts: c, Worker: worker})
	return nil
}

func (j *memJournal) CommitRun(first int, cs []solver.Counts, worker uint64) error {
	for i, c := range cs {
		if err := j.Commit(first+i, c, worker); err != nil {
			return err
		}
	}
	return nil
}

func (j *memJournal) Sync() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.syncErr
}

func (j *memJournal) Distrust(worker uint64) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.distrust = append(j.distrust, worker)
	j.log = append(j.log, worker)
	return nil
}

// TestSchedJournal: every commit reaches the journal with its committer's
// key before the worker is told; a quarantine distrusts the liar's key; a
// journal that refuses a commit, or fails to sync, fails the job.
func TestSchedJournal(t *testing.T) {
	j := &memJournal{commits: map[int]solver.Counts{}, by: map[int]uint64{}}
	h := newSchedHarness(t, 8, 2, Options{Journal: j})
	a, ra := h.worker("a", 5)
	as := ra.fresh()
	for _, x := range as[:2] {
		v := h.s.Result(a, h.honest(x))
		if v.Outcome != OutcomeCommitted || !h.s.Settle([]Ticket{v.Ticket}) {
			t.Fatalf("commit of task %d: outcome %d, not durable", x.Task.Index, v.Outcome)
		}
	}
	h.s.Wait()
	if len(j.commits) != 2 || j.commits[1] != h.counts(1) || j.by[1] != a.key {
		t.Errorf("journal %v by %v, want tasks 0 and 1 by %x", j.commits, j.by, a.key)
	}
	for _, x := range as[2:] {
		h.s.Result(a, lie(x, solver.Counts{Total: 7}))
	}
	if !a.quarantined || !slices.Equal(j.distrust, []uint64{a.key}) {
		t.Errorf("quarantined %v, distrusted %x; want a's key %x", a.quarantined, j.distrust, a.key)
	}
	j.commitErr = errFakeDisk
	b, rb := h.worker("b", 1)
	v := h.s.Result(b, h.honest(rb.fresh()[0]))
	if v.Outcome != OutcomeCommitted || h.s.Settle([]Ticket{v.Ticket}) {
		t.Fatalf("a commit the journal refused: outcome %d, durable", v.Outcome)
	}
	h.s.Wait()
	if _, _, _, err := h.s.Totals(); err == nil || !strings.Contains(err.Error(), "journal commit of task 0") {
		t.Errorf("job error %v, want the journal's", err)
	}
	j2 := &memJournal{commits: map[int]solver.Counts{}, by: map[int]uint64{}, syncErr: errFakeDisk}
	h2 := newSchedHarness(t, 8, 2, Options{Journal: j2})
	c, rc := h2.worker("c", 1)
	if v := h2.s.Result(c, h2.honest(rc.fresh()[0])); v.Outcome != OutcomeCommitted || h2.s.Settle([]Ticket{v.Ticket}) {
		t.Fatalf("a commit whose sync failed: outcome %d, durable", v.Outcome)
	}
	h2.s.Wait()
	if _, _, _, err := h2.s.Totals(); err == nil || !strings.Contains(err.Error(), "journal sync") {
		t.Errorf("job error %v, want the failed sync's", err)
	}
}

// errFakeDisk is a journal's failure.
var errFakeDisk = errors.New("disk on fire")

// TestTaskRecordSize: the scheduler keeps one taskState per task, 10^7
// or more on the biggest boards: a field added in the wrong place
// (padding), a per-task slice or a pointer (which the garbage collector
// would scan) shows here first.
func TestTaskRecordSize(t *testing.T) {
	if got := unsafe.Sizeof(taskState{}); got > 6 {
		t.Errorf("taskState is %d bytes, want at most 6 (flat memory)", got)
	}
	typ := reflect.TypeFor[taskState]()
	for i := range typ.NumField() {
		switch typ.Field(i).Type.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Map, reflect.String, reflect.Interface:
			t.Errorf("taskState.%s is a %s: the records must hold no pointer", typ.Field(i).Name, typ.Field(i).Type.Kind())
		}
	}
}
