package coordinator

import (
	"container/heap"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"google.golang.org/protobuf/types/known/timestamppb"

	nqueenspb "github.com/nqueens/nqueens/proto/nqueens/v1"
	"github.com/nqueens/nqueens/solver"
)

// Clock tells the time for lease deadlines. Tests inject a fake clock to
// expire leases without waiting for them.
type Clock interface {
	Now() time.Time
}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

// Journal makes commits durable (issue 6). Commit is called once per
// committed task, after the result was validated and before the worker is
// acknowledged, outside the scheduler's lock (so a journal may share one
// fsync among concurrent commits), with the committer's session key; Run
// waits for every Commit before it prints the summary. Distrust is called,
// under the lock, when --verify-fraction quarantines a worker: a resume
// must not keep anything that worker committed, even a Commit still in
// flight, and its tasks may be committed again by others. If either fails,
// the job fails. Without a journal commits live in memory only.
type Journal interface {
	Commit(index int, c solver.Counts, worker uint64) error
	Distrust(worker uint64) error
}

// Stats counts what the scheduler dropped or redid; they appear in --json.
type Stats struct {
	Leased      uint64 // leases handed out (tasks and verifications): 0 for a refused worker
	Conflicts   uint64 // results for committed tasks whose counts differ (logged as errors)
	Duplicates  uint64 // results for committed tasks with equal counts
	Rejected    uint64 // results or batches for unknown tasks, other plans, foreign leases, invalid solutions
	Requeued    uint64 // leases taken back (broken stream, expiry, release, rejection)
	Expired     uint64 // leases that ran out without a heartbeat
	Verified    uint64 // committed tasks computed again and confirmed (--verify-fraction)
	Quarantined uint64 // workers caught reporting wrong counts
}

// lease is one attempt at a task by one worker session.
type lease struct {
	id       uint64
	task     int
	sess     *session
	deadline time.Time
	live     bool // false once taken back or finished; kept for late results
	verify   bool // a verification of a committed task
}

// taskState is the scheduler's record of one task of the plan.
type taskState struct {
	committed bool
	counts    solver.Counts
	failures  int         // attempts that ended without a result (retry cap)
	lease     *lease      // the live lease, nil when queued or committed
	queued    bool        // in the retry heap
	committer *session    // whose result was committed (nil: restored or the coordinator's)
	verify    verifyState // --verify-fraction progress
}

// scheduler owns the job's bookkeeping: which task is queued, leased to
// whom until when, or committed with which counts. Every method takes mu;
// nothing in it blocks on the network (messages to workers go to
// unbounded per-session outboxes that sender goroutines drain).
type scheduler struct {
	plan        solver.Plan
	fingerprint uint64
	leaseLen    time.Duration
	maxAttempts int
	want        bool // tasks stream their solutions
	clock       Clock
	log         hclog.Logger
	journal     Journal
	journaling  sync.WaitGroup // Journal.Commit calls in flight
	// published receives each committed task index with its spilled
	// solutions (want only); it is called under mu and must not block.
	published func(index int, path string)
	// revoked takes back a published task that goes back to the queue
	// (a quarantine); called under mu, must not block.
	revoked     func(index int)
	msgRate     float64        // Work messages per second per worker (limits.go)
	maxSessions int            // joined workers at most (maxSessions; tests lower it)
	verifyFrac  float64        // fraction of committed tasks verified on another worker
	rng         *rand.Rand     // samples the verified tasks; used under mu
	truths      sync.WaitGroup // the coordinator's own recomputations in flight

	mu sync.Mutex
	// mu guards every field below.
	tasks         []taskState
	retry         indexHeap           // tasks taken back, lowest index first; served before fresh ones
	next          int                 // next task never leased
	sessions      map[string]*session // joined workers by id
	leases        map[uint64]*lease   // every lease of the job by id, live or not
	nextLease     uint64
	nextWID       uint64
	committed     int
	solutions     uint64 // committed solutions so far, for progress only
	stats         Stats
	err           error // the job failed
	draining      bool  // no more assignments; new sessions are drained at once
	peak          int   // most sessions attached at once
	verifyQ       []int // committed tasks waiting for verification
	pendingVerify int   // sampled tasks not yet verified
	done          chan struct{}
}

func newScheduler(plan solver.Plan, leaseLen time.Duration, maxAttempts int, want bool, clock Clock, log hclog.Logger) *scheduler {
	return &scheduler{
		rng:         rand.New(rand.NewPCG(plan.Fingerprint(), 0x6e71756565)),
		msgRate:     DefaultMessageRate,
		maxSessions: maxSessions,
		plan:        plan,
		fingerprint: plan.Fingerprint(),
		leaseLen:    leaseLen,
		maxAttempts: maxAttempts,
		want:        want,
		clock:       clock,
		log:         log,
		tasks:       make([]taskState, len(plan.Tasks)),
		sessions:    make(map[string]*session),
		leases:      make(map[uint64]*lease),
		done:        make(chan struct{}),
	}
}

// restore marks a task committed before any worker joins (a resumed job).
func (s *scheduler) restore(index int, c solver.Counts) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if index < 0 || index >= len(s.tasks) {
		return fmt.Errorf("restore task %d: plan has %d tasks", index, len(s.tasks))
	}
	t := &s.tasks[index]
	if !t.committed {
		t.committed, t.counts = true, c
		s.committed++
		s.solutions += c.Total
	}
	s.finishIfDoneLocked()
	return nil
}

// checkDone finishes a job that has nothing left to do (an empty plan, or
// every task restored).
func (s *scheduler) checkDone() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.finishIfDoneLocked()
}

// join registers a worker and returns its session id.
// It fails with errTooManyWorkers when maxSessions are joined already.
func (s *scheduler) join(name string) (*session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.sessions) >= s.maxSessions {
		return nil, errTooManyWorkers
	}
	s.nextWID++
	sess := &session{
		id:     fmt.Sprintf("w%d", s.nextWID),
		key:    workerKey(),
		name:   name,
		held:   make(map[uint64]*lease),
		out:    newOutbox(),
		joined: s.clock.Now(),
		limit:  newLimiter(s.msgRate, s.clock.Now()),
	}
	s.sessions[sess.id] = sess
	return sess, nil
}

// workerKey returns a random non-zero key for a session. It comes from
// math/rand/v2's randomly seeded top-level source, not the scheduler's
// generator: a resumed run must not hand out the key of a session that an
// earlier run distrusted.
func workerKey() uint64 {
	for {
		if k := rand.Uint64(); k != 0 {
			return k
		}
	}
}

// errTooManyWorkers refuses a Join beyond maxSessions.
var errTooManyWorkers = fmt.Errorf("more than %d workers joined", maxSessions)

// dropUnattachedLocked forgets sessions that joined but opened no Work
// stream within attachTimeout (or a lease, if shorter): a worker that died
// between Join and Work, or a client that only calls Join.
func (s *scheduler) dropUnattachedLocked(now time.Time) {
	for id, sess := range s.sessions {
		if !sess.attached && now.Sub(sess.joined) > min(s.leaseLen, attachTimeout) {
			delete(s.sessions, id)
		}
	}
}

// attach binds a Work stream to a joined session and grants its first
// credits. A session attaches once.
func (s *scheduler) attach(id string, credits uint32) (*session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sess := s.sessions[id]
	if sess == nil {
		return nil, fmt.Errorf("unknown worker id %q: call Join first", id)
	}
	if sess.attached {
		return nil, fmt.Errorf("worker id %q already has a Work stream", id)
	}
	sess.attached = true
	live := 0
	for _, o := range s.sessions {
		if o.attached && !o.gone {
			live++
		}
	}
	s.peak = max(s.peak, live)
	// While a verification is pending the job is not over: it may send
	// tasks back to the queue (a quarantine), and this worker may verify.
	if s.draining || s.err != nil || s.committed == len(s.tasks) && s.pendingVerify == 0 {
		sess.out.push(drainMsg("job is over"))
		return sess, nil
	}
	s.addCreditsLocked(sess, credits)
	return sess, nil
}

// ready grants a session more credits.
func (s *scheduler) ready(sess *session, credits uint32) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.addCreditsLocked(sess, credits)
}

func (s *scheduler) addCreditsLocked(sess *session, credits uint32) {
	sess.credits = min(sess.credits+int(credits), maxCredits)
	s.dispatchLocked()
}

// dispatchLocked leases queued tasks to sessions with credits.
func (s *scheduler) dispatchLocked() {
	if s.draining || s.err != nil {
		return
	}
	for _, sess := range s.sessions {
		for sess.attached && !sess.gone && !sess.quarantined && sess.credits > 0 {
			if idx, ok := s.popLocked(); ok {
				s.leaseLocked(sess, idx, false)
				continue
			}
			if idx, ok := s.popVerifyLocked(sess); ok {
				s.tasks[idx].verify = verifyLeased
				s.leaseLocked(sess, idx, true)
				continue
			}
			break
		}
	}
	s.verifyLocallyLocked()
}

// popLocked returns the next task to lease: taken-back tasks first (lowest
// index first, so ordered output stays contiguous), then fresh ones.
func (s *scheduler) popLocked() (int, bool) {
	for s.retry.Len() > 0 {
		i := heap.Pop(&s.retry).(int)
		t := &s.tasks[i]
		t.queued = false
		if !t.committed && t.lease == nil {
			return i, true
		}
	}
	for s.next < len(s.tasks) {
		i := s.next
		s.next++
		if t := &s.tasks[i]; !t.committed && t.lease == nil {
			return i, true
		}
	}
	return 0, false
}

func (s *scheduler) leaseLocked(sess *session, idx int, verify bool) {
	s.nextLease++
	l := &lease{id: s.nextLease, task: idx, sess: sess, deadline: s.clock.Now().Add(s.leaseLen), live: true, verify: verify}
	s.leases[l.id] = l
	s.stats.Leased++
	if !verify {
		s.tasks[idx].lease = l
	}
	sess.held[l.id] = l
	sess.credits--
	sess.limit.grant(messagesPerLease)
	task := s.plan.Tasks[idx]
	prefix := make([]uint32, len(task.Prefix))
	for i, c := range task.Prefix {
		prefix[i] = uint32(c)
	}
	sess.out.push(&nqueenspb.WorkResponse{Msg: &nqueenspb.WorkResponse_Assign{Assign: &nqueenspb.Assign{
		TaskId:        s.taskID(idx),
		N:             uint32(s.plan.N),
		Kind:          nqueenspb.TaskKind_TASK_KIND_COUNT, // listings too: see solver.ListTask
		Prefix:        prefix,
		WantSolutions: s.want,
		Deadline:      timestamppb.New(l.deadline),
		LeaseId:       l.id,
	}}})
}

func (s *scheduler) taskID(idx int) *nqueenspb.TaskId {
	return &nqueenspb.TaskId{PlanFingerprint: s.fingerprint, Index: uint32(idx)}
}

// takeBackLocked ends a live lease without a result and queues its task at
// the front. A failure counts toward the task's retry cap; when the cap is
// reached the job fails.
func (s *scheduler) takeBackLocked(l *lease, failure bool, reason string) {
	if !l.live {
		return
	}
	l.live = false
	delete(l.sess.held, l.id)
	t := &s.tasks[l.task]
	if l.verify { // the verification goes back to its queue
		if t.verify == verifyLeased && t.committed {
			t.verify = verifyQueued
			s.verifyQ = append(s.verifyQ, l.task)
		}
		return
	}
	if t.lease == l {
		t.lease = nil
	}
	s.stats.Requeued++
	if failure {
		t.failures++
		if t.failures >= s.maxAttempts && !t.committed {
			s.failLocked(fmt.Errorf("task %d failed %d times (last: %s); giving up (retry cap --max-attempts)", l.task, t.failures, reason))
			return
		}
	}
	if !t.committed && !t.queued {
		s.retryPushLocked(l.task)
	}
}

// retryPushLocked queues a task at the front.
func (s *scheduler) retryPushLocked(idx int) {
	heap.Push(&s.retry, idx)
	s.tasks[idx].queued = true
}

// heartbeat extends the leases a session still holds.
func (s *scheduler) heartbeat(sess *session, ids []uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	deadline := s.clock.Now().Add(s.leaseLen)
	for _, id := range ids {
		if l := sess.held[id]; l != nil {
			l.deadline = deadline
		}
	}
}

// release hands leases back unfinished (a worker shutting down). It does
// not count against the tasks' retry caps.
func (s *scheduler) release(sess *session, ids []uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, id := range ids {
		if l := sess.held[id]; l != nil {
			s.takeBackLocked(l, false, "released")
		}
	}
	s.dispatchLocked()
}

// detach ends a session whose stream closed: its live leases go back to the
// front of the queue at once.
func (s *scheduler) detach(sess *session, failure bool, reason string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sess.gone {
		return
	}
	sess.gone = true
	for _, l := range sess.held {
		s.takeBackLocked(l, failure, reason)
	}
	sess.out.close()
	delete(s.sessions, sess.id)
	s.dispatchLocked()
}

// expire takes back every lease whose deadline passed and cancels it on
// its worker. It returns how many expired.
func (s *scheduler) expire(now time.Time) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dropUnattachedLocked(now)
	n := 0
	for _, sess := range s.sessions {
		for _, l := range sess.held {
			if now.After(l.deadline) {
				n++
				s.stats.Expired++
				s.log.Warn("lease expired", "worker_id", sess.id, "task", l.task, "lease_id", l.id)
				sess.out.push(cancelMsg(s.taskID(l.task), l.id, "lease expired"))
				s.takeBackLocked(l, true, "lease expired")
			}
		}
	}
	if n > 0 {
		s.dispatchLocked()
	}
	return n
}

// leaseFor returns the live lease id of sess for a batch, renewing it, or
// an error saying why the batch must be dropped.
func (s *scheduler) leaseFor(sess *session, id *nqueenspb.TaskId, leaseID uint64) (*lease, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := sess.held[leaseID]
	if l == nil || id == nil || id.GetPlanFingerprint() != s.fingerprint || int(id.GetIndex()) != l.task {
		return nil, errors.New("no live lease for this batch")
	}
	l.deadline = s.clock.Now().Add(s.leaseLen)
	return l, nil
}

// rejectBatch ends a lease whose solutions failed validation: the attempt
// is counted as failed and the task queued again.
func (s *scheduler) rejectBatch(sess *session, leaseID uint64, reason string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stats.Rejected++
	if l := sess.held[leaseID]; l != nil {
		sess.out.push(cancelMsg(s.taskID(l.task), l.id, reason))
		s.takeBackLocked(l, true, reason)
		s.dispatchLocked()
	}
}

// outcome is the scheduler's verdict on a Result.
type outcome struct {
	code   nqueenspb.Ack_Outcome
	reason string
	index  int           // the committed task (COMMITTED only)
	counts solver.Counts // its counts (COMMITTED only)
	worker uint64        // its committer's session key (COMMITTED only)
}

// result judges a Result. streamed is what the attempt's batches delivered
// (want only): Unique counts the class representatives, Total the
// solutions of their classes; path is the file they were spilled to. The
// scheduler takes ownership of path only when it commits.
func (s *scheduler) result(sess *session, r *nqueenspb.Result, streamed solver.Counts, path string) outcome {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := r.GetTaskId()
	if id == nil || id.GetPlanFingerprint() != s.fingerprint || int(id.GetIndex()) >= len(s.tasks) {
		s.stats.Rejected++
		s.log.Warn("result for unknown task dropped", "worker_id", sess.id, "task_id", id.String())
		return outcome{code: nqueenspb.Ack_OUTCOME_REJECTED, reason: "unknown task or other plan"}
	}
	idx := int(id.GetIndex())
	t := &s.tasks[idx]
	got := solver.Counts{Total: r.GetTotal(), Unique: r.GetUnique(), Nodes: r.GetNodes()}
	l := s.leases[r.GetLeaseId()]
	ownLease := l != nil && l.sess == sess && l.task == idx
	endLease := func() {
		if ownLease && l.live {
			l.live = false
			delete(sess.held, l.id)
			if t.lease == l {
				t.lease = nil
			}
		}
	}
	if sess.quarantined {
		endLease()
		s.stats.Rejected++
		return outcome{code: nqueenspb.Ack_OUTCOME_REJECTED, reason: "worker quarantined"}
	}
	if t.committed && ownLease && l.verify {
		endLease()
		return s.verifyResultLocked(sess, idx, got)
	}
	if t.committed {
		endLease()
		if got.Total == t.counts.Total && got.Unique == t.counts.Unique {
			s.stats.Duplicates++
			s.log.Debug("duplicate result dropped", "worker_id", sess.id, "task", idx)
			return outcome{code: nqueenspb.Ack_OUTCOME_DUPLICATE, reason: "already committed"}
		}
		s.stats.Conflicts++
		s.log.Error("conflicting result dropped", "worker_id", sess.id, "task", idx,
			"committed_total", t.counts.Total, "committed_unique", t.counts.Unique,
			"got_total", got.Total, "got_unique", got.Unique)
		return outcome{code: nqueenspb.Ack_OUTCOME_CONFLICT, reason: fmt.Sprintf("task %d was committed with total %d unique %d", idx, t.counts.Total, t.counts.Unique)}
	}
	if !ownLease {
		s.stats.Rejected++
		s.log.Warn("result for a task this worker never held dropped", "worker_id", sess.id, "task", idx)
		return outcome{code: nqueenspb.Ack_OUTCOME_REJECTED, reason: "task not leased to this worker"}
	}
	reason := r.GetFailure()
	if reason == "" {
		reason = s.implausible(got, streamed, path)
	}
	if reason != "" {
		s.stats.Rejected++
		s.log.Warn("invalid result dropped", "worker_id", sess.id, "task", idx, "reason", reason)
		s.takeBackLocked(l, true, reason) // a no-op for a late result
		s.dispatchLocked()
		return outcome{code: nqueenspb.Ack_OUTCOME_REJECTED, reason: reason}
	}
	if s.journal != nil {
		s.journaling.Add(1) // before done can close: Run waits for it
	}
	endLease()
	t.committed, t.counts, t.committer = true, got, sess
	s.committed++
	s.solutions += got.Total
	if t.lease != nil { // another attempt still runs: stop it
		other := t.lease
		other.sess.out.push(cancelMsg(id, other.id, "committed by another worker"))
		s.takeBackLocked(other, false, "committed elsewhere")
	}
	if s.want && s.published != nil {
		s.published(idx, path)
	}
	s.sampleLocked(idx)
	s.finishIfDoneLocked()
	s.dispatchLocked()
	return outcome{code: nqueenspb.Ack_OUTCOME_COMMITTED, index: idx, counts: got, worker: sess.key}
}

// makeDurable journals a commit outside the lock; the caller acknowledges
// the worker only after it returns true.
func (s *scheduler) makeDurable(o outcome) bool {
	if s.journal == nil || o.code != nqueenspb.Ack_OUTCOME_COMMITTED {
		return true
	}
	defer s.journaling.Done()
	if err := s.journal.Commit(o.index, o.counts, o.worker); err != nil {
		s.fail(fmt.Errorf("journal commit of task %d: %w", o.index, err))
		return false
	}
	return true
}

// implausible says why a result cannot be right without recomputing it, or
// "" when it may be.
func (s *scheduler) implausible(c solver.Counts, streamed solver.Counts, path string) string {
	if c.Unique > c.Total {
		return fmt.Sprintf("unique %d exceeds total %d", c.Unique, c.Total)
	}
	if !s.want {
		return ""
	}
	if path == "" && c.Unique > 0 {
		return "solutions were not streamed"
	}
	if c.Unique != streamed.Unique || c.Total != streamed.Total {
		return fmt.Sprintf("result says %d classes of %d solutions, %d classes of %d were streamed",
			c.Unique, c.Total, streamed.Unique, streamed.Total)
	}
	return ""
}

func (s *scheduler) finishIfDoneLocked() {
	if s.committed == len(s.tasks) && s.pendingVerify == 0 && s.err == nil {
		select {
		case <-s.done:
		default:
			close(s.done)
		}
	}
}

// fail ends the job with err (the first error wins).
func (s *scheduler) fail(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failLocked(err)
}

func (s *scheduler) failLocked(err error) {
	if s.err != nil {
		return
	}
	select {
	case <-s.done: // finished already
		return
	default:
	}
	s.err = err
	close(s.done)
}

// drain stops all assignment and tells every session to finish.
func (s *scheduler) drain(reason string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.draining = true
	for _, sess := range s.sessions {
		sess.out.push(drainMsg(reason))
	}
}

// peakWorkers is the largest number of workers attached at once.
func (s *scheduler) peakWorkers() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.peak
}

// progress is a snapshot for the progress display.
type progress struct {
	Done, Total int
	Solutions   uint64
	Workers     int
}

func (s *scheduler) progress() progress {
	s.mu.Lock()
	defer s.mu.Unlock()
	w := 0
	for _, sess := range s.sessions {
		if sess.attached && !sess.gone {
			w++
		}
	}
	return progress{Done: s.committed, Total: len(s.tasks), Solutions: s.solutions, Workers: w}
}

// totals recomputes the job's counts from the committed results, with
// overflow-checked addition, and reports how many tasks are committed.
func (s *scheduler) totals() (solver.Counts, int, Stats, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var sum solver.Counts
	for i := range s.tasks {
		if !s.tasks[i].committed {
			continue
		}
		var err error
		if sum, err = sum.Add(s.tasks[i].counts); err != nil {
			return solver.Counts{}, s.committed, s.stats, fmt.Errorf("adding task %d: %w", i, err)
		}
	}
	return sum, s.committed, s.stats, s.err
}

func drainMsg(reason string) *nqueenspb.WorkResponse {
	return &nqueenspb.WorkResponse{Msg: &nqueenspb.WorkResponse_Drain{Drain: &nqueenspb.Drain{Reason: reason}}}
}

func cancelMsg(id *nqueenspb.TaskId, leaseID uint64, reason string) *nqueenspb.WorkResponse {
	return &nqueenspb.WorkResponse{Msg: &nqueenspb.WorkResponse_Cancel{Cancel: &nqueenspb.Cancel{TaskId: id, LeaseId: leaseID, Reason: reason}}}
}

// indexHeap is a min-heap of task indexes.
type indexHeap []int

func (h indexHeap) Len() int           { return len(h) }
func (h indexHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h indexHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *indexHeap) Push(x any)        { *h = append(*h, x.(int)) }
func (h *indexHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
