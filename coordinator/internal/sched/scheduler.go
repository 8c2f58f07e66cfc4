package sched

import (
	"cmp"
	"container/heap"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/nqueens/nqueens/solver"
)

// Clock tells the time for lease deadlines. Tests inject a fake clock to
// expire leases without waiting for them.
type Clock interface {
	Now() time.Time
}

// RealClock is the wall clock.
type RealClock struct{}

func (RealClock) Now() time.Time { return time.Now() }

// Journal makes commits durable. Commit is called once per
// committed task, under the scheduler's lock, with the committer's session
// key: it queues the record and must not wait for the disk. Sync returns
// once every record queued so far is durable; it is called outside the
// lock before the workers are acknowledged, so the commits of every message
// read while an fsync runs share the next one, and the scheduler's wait
// returns only after every commit's Sync. Distrust is called, under the
// lock, when --verify-fraction quarantines a worker: a resume must not keep
// anything that worker committed, even a commit not yet synced, and its
// tasks may be committed again by others. If any of them fails, the job
// fails. Without a journal commits live in memory only.
//
// CommitRun is Commit for consecutive tasks of one run (runs.go), which a
// journal may write as one record.
//
// Split is called, under the lock, when a task is split (split.go); like
// Commit it does not wait for the disk, and records reach the disk in the
// order they were made, so a child's commit is never durable without its
// split.
type Journal interface {
	Commit(index int, c solver.Counts, worker uint64) error
	// CommitRun is Commit for tasks first, first+1, ... with counts cs,
	// committed together from one run (runs.go).
	CommitRun(first int, cs []solver.Counts, worker uint64) error
	Sync() error
	Distrust(worker uint64) error
	Split(sp Split) error
}

// Stats counts what the scheduler dropped or redid; they appear in --json.
type Stats struct {
	Leased      uint64 // tasks leased (first attempts, retries and verifications; each task of a run): 0 for a refused worker
	Runs        uint64 // leases of several tasks (runs.go)
	Conflicts   uint64 // results for committed tasks whose counts differ (logged as errors)
	Duplicates  uint64 // results for committed tasks with equal counts
	Rejected    uint64 // results or batches for unknown tasks, other plans, foreign leases, invalid solutions
	Requeued    uint64 // leased tasks taken back (broken stream, expiry, release, rejection), each task of a run
	Expired     uint64 // leases that ran out without a heartbeat
	Verified    uint64 // committed tasks computed again and confirmed (--verify-fraction)
	Quarantined uint64 // workers caught reporting wrong counts
	Splits      uint64 // tasks split into their children (split.go)
	Superseded  uint64 // results for tasks split meanwhile, dropped

	// VerifiedSolutions are the solutions of the Verified tasks.
	VerifiedSolutions uint64
}

// TaskID names one task of one plan: a result for another plan (another
// N, depth, kind or solver version) never matches.
type TaskID struct {
	Plan  uint64 // solver.Plan.Fingerprint
	Index int    // the task's index in the plan
}

// Assignment is one lease on its way to a worker.
type Assignment struct {
	Lease    uint64
	Task     TaskID // the task, or the first of a run
	Run      int    // the tasks it covers: 1, or a run of consecutive plan tasks (runs.go)
	Prefix   []int  // solver.Task.Prefix; nil for a run, whose worker works the prefixes out
	Deadline time.Time
	Verify   bool // a verification of a committed task (a join worker then backtracks)
}

// Outcome is the scheduler's verdict on a result; package coordinator maps it to the
// wire's Ack outcome.
type Outcome uint8

// The outcomes of a result.
const (
	OutcomeCommitted Outcome = iota + 1 // first valid result: counted
	OutcomeDuplicate                    // equal to the committed one: dropped
	OutcomeConflict                     // differs from the committed one: dropped, logged
	OutcomeRejected                     // invalid, foreign, unknown or from a quarantined worker
	OutcomeVerified                     // a verification that agrees
)

// Mailbox carries a session's messages to its worker: package coordinator's outbox
// turns them into wire messages for the session's one sender goroutine.
// The scheduler calls it under its lock, so no method may block.
type Mailbox interface {
	Assign(a Assignment)
	Cancel(lease uint64, task TaskID, reason string)
	Drain(reason string)
	Close()
}

// ListingPublisher takes the spilled solutions of committed listing tasks
// (package listing): add hands over a committed attempt's spill file,
// revoke takes a task back (a quarantine). The scheduler calls them under
// its lock, so they must not block.
type ListingPublisher interface {
	Add(index int, path string)
	Revoke(index int)
	Grow(tasks int)
}

// cause says why a lease ended without a result. Only a failure reported
// by the solver itself counts toward a task's retry cap: a broken stream,
// an expiry or a rejection is the worker's or the network's fault, never
// the task's.
type cause uint8

const (
	causeReleased   cause = iota // the worker handed it back
	causeBroken                  // the worker's stream ended
	causeExpired                 // no heartbeat within the lease
	causeRejected                // the worker sent an invalid batch or result
	causeSolver                  // the solver failed on the task (Result.failure)
	causeElsewhere               // another attempt committed it
	causeQuarantine              // the worker was caught lying
	causeSplit                   // the task was split (split.go)
)

// lease is one attempt at a task, or at a run of consecutive plan tasks
// (runs.go), by one worker session.
type lease struct {
	id       uint64
	task     int // the task, or the run's first
	run      int // the tasks it covers (1 but for a run)
	sess     *Session
	deadline time.Time
	start    time.Time // when it was granted
	live     bool      // false once taken back or finished; kept a while for late results
	verify   bool      // a verification of a committed task
}

// taskState is a task's state, in its record (taskRec, store.go): 6
// bytes, no pointer. Its live lease is in scheduler.holder; the counts of
// its commit are in its record while it lives, then in its collapsed
// ancestor's (collapse.go).
type taskState struct {
	by     [4]byte     // committer, little-endian: see committer
	flags  taskFlags   // committed, restored, queued, split, nosplit
	verify verifyState // --verify-fraction progress
}

// committer is the serial of the session whose result was committed (0:
// none, restored, or the coordinator's own).
func (t *taskState) committer() uint32 { return binary.LittleEndian.Uint32(t.by[:]) }

// setCommitter records serial as the task's committer.
func (t *taskState) setCommitter(serial uint32) { binary.LittleEndian.PutUint32(t.by[:], serial) }

// taskFlags are a task's yes-or-no facts, a bit each.
type taskFlags uint8

const (
	taskCommitted taskFlags = 1 << iota
	taskRestored            // committed by an earlier run (read from the journal)
	taskQueued              // in the ready heap
	taskSplit               // split into children (split.go): never leased or counted again
	taskNoSplit             // found not to split
	taskGone                // collapsed into its parent or dropped with a reopened subtree (collapse.go)
	taskCollapsed           // committed as its collapsed subtree's one record (collapse.go)
)

// is reports whether every flag of f is set.
func (t *taskState) is(f taskFlags) bool { return t.flags&f == f }

// set sets (on) or clears the flags of f.
func (t *taskState) set(f taskFlags, on bool) {
	if on {
		t.flags |= f
	} else {
		t.flags &^= f
	}
}

// Options is everything a scheduler depends on.
type Options struct {
	Plan        solver.Plan
	Lease       time.Duration // how long a silent worker keeps a task
	Sweep       time.Duration // how often run looks for expired leases
	MaxAttempts int           // distinct workers a task may fail on before the job fails
	Want        bool          // tasks stream their solutions (a listing)
	Clock       Clock
	Log         hclog.Logger
	Journal     Journal          // nil: commits live in memory only
	Listing     ListingPublisher // nil unless Want
	// VerifyFraction of the committed tasks is computed again elsewhere.
	VerifyFraction float64
	// TaskTarget is the task duration splitting aims at (split.go);
	// 0 means DefaultTaskTarget.
	TaskTarget time.Duration
	NoSplit    bool // keep the plan's tasks (Config.NoSplit)
	// MinTasks makes the size rule split until every task is at most
	// 1/MinTasks of the board's estimated work, so that at least MinTasks
	// tasks are made over the run (a load test of the bookkeeping of a
	// run of minute-long tasks on a big board); 0: no such rule.
	MinTasks int
	// Synthetic: made-up counts (a load test); the sums are not compared
	// with the board's published counts.
	Synthetic bool
	// testBoardSeconds replaces boardSeconds' guess, testMaxTasks
	// maxTasks (tests).
	testBoardSeconds float64
	testMaxTasks     int
	testChunkBits    int // replaces chunkBits (store.go)
	MaxSessions      int // joined workers at most (DefaultMaxSessions)
	// Done is closed when every task is committed (and verified) or the
	// job failed; nil makes one. The job shares it with the listing.
	Done chan struct{}
}

// Scheduler owns the job's bookkeeping: which task is queued, leased to
// whom until when, or committed with which counts. It speaks plain Go
// types; package coordinator converts to and from the wire. Every method takes mu;
// nothing in it blocks on the network (messages to workers go to
// mailboxes that sender goroutines drain).
type Scheduler struct {
	opt         Options
	plan        solver.Plan
	fingerprint uint64
	log         hclog.Logger
	journaling  sync.WaitGroup // journal commits not yet synced
	truths      sync.WaitGroup // the coordinator's own recomputations in flight
	rng         *rand.Rand     // samples the verified tasks; used under mu

	runsOK bool // the job may lease runs (runs.go): counting, no listing

	mu guard
	// mu guards every field below.
	store         taskStore           // the live tasks' records by index (store.go)
	open          map[int]openSplit   // split tasks not collapsed yet (collapse.go)
	collapsed     map[int]collapsed   // live collapsed records (collapse.go)
	leaves        int                 // leaf tasks of the job's tree (a collapsed record counts its leaves)
	collapses     int                 // splits collapsed
	reopened      int                 // collapsed tasks reopened by a quarantine
	holder        map[int]*lease      // task -> the live lease that covers it: a single task's, a run's for each of its tasks, or a verification's
	known         knownCounts         // the counts of sampled and recent commits (commit.go)
	committers    map[uint32]*Session // sessions with a commit, by serial
	failedOn      map[int][]string    // task -> distinct workers whose solver failed on it (retry cap); few tasks ever fail
	requeued      readyHeap           // queued tasks other than the plan's fresh ones, largest first (split.go)
	deep          []int               // children of the size rule's splits, served first, depth first (split.go)
	next          int                 // the plan's next task never leased
	sp            splitter            // the splits (split.go)
	liveSlots     int                 // slots of the attached sessions
	sessions      map[string]*Session // joined workers by id
	hungry        map[*Session]bool   // attached sessions with credits: the ones dispatch serves
	attached      int                 // sessions with a stream
	leases        map[uint64]*lease   // live leases, and the recent ended ones in ended
	ended         leaseRing           // recently ended leases, for late results
	nextLease     uint64
	nextWID       uint64
	committed     int // committed leaf tasks (a collapsed record counts its leaves)
	restored      int
	solutions     uint64 // committed solutions so far (totals recomputes the result)
	unique        uint64 // committed fundamental solutions so far
	nodes         uint64 // committed nodes so far
	stats         Stats
	err           error // the job failed
	draining      bool  // no more assignments; new sessions are drained at once
	peak          int   // most sessions attached at once
	verifyQ       []int // committed tasks waiting for verification
	pendingVerify int   // sampled tasks not yet verified
	work          workEstimate
	busy          busyClock
	events        eventLog
	done          chan struct{}
}

// NewScheduler makes a scheduler for opt.Plan; opt's zero fields take the
// command line's defaults.
func NewScheduler(opt Options) *Scheduler {
	if opt.Clock == nil {
		opt.Clock = RealClock{}
	}
	if opt.Log == nil {
		opt.Log = hclog.NewNullLogger()
	}
	if opt.Lease <= 0 {
		opt.Lease = DefaultLease
	}
	if opt.Sweep <= 0 {
		opt.Sweep = min(opt.Lease/10, time.Second)
	}
	if opt.MaxAttempts <= 0 {
		opt.MaxAttempts = DefaultMaxAttempts
	}
	if opt.MaxSessions <= 0 {
		opt.MaxSessions = DefaultMaxSessions
	}
	s := &Scheduler{
		opt:         opt,
		plan:        opt.Plan,
		fingerprint: opt.Plan.Fingerprint(),
		log:         opt.Log,
		rng:         rand.New(rand.NewPCG(opt.Plan.Fingerprint(), 0x6e71756565)),
		runsOK:      opt.Plan.Kind == solver.KindCount && !opt.Want,
		holder:      make(map[int]*lease),
		open:        make(map[int]openSplit),
		collapsed:   make(map[int]collapsed),
		known:       newKnownCounts(),
		committers:  make(map[uint32]*Session),
		failedOn:    make(map[int][]string),
		sessions:    make(map[string]*Session),
		hungry:      make(map[*Session]bool),
		leases:      make(map[uint64]*lease),
		done:        opt.Done,
	}
	if s.done == nil {
		s.done = make(chan struct{})
	}
	s.work = newWorkEstimate(opt.Plan, &s.store)
	s.sp = newSplitter(opt)
	s.store.bits = cmp.Or(opt.testChunkBits, chunkBits)
	for range opt.Plan.Len() {
		s.store.add(taskRec{})
	}
	s.leaves = opt.Plan.Len()
	s.events.clock = opt.Clock
	return s
}

// Run looks for expired leases every Sweep until ctx ends.
func (s *Scheduler) Run(ctx context.Context) {
	t := time.NewTicker(s.opt.Sweep)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			s.expire(s.opt.Clock.Now())
		case <-ctx.Done():
			return
		}
	}
}

// Wait returns once every journal commit and every recomputation of the
// coordinator's own has ended: after it, the committed set is final.
func (s *Scheduler) Wait() {
	s.journaling.Wait()
	s.truths.Wait()
}

// Finished is closed when every task is committed (and verified) or the
// job failed.
func (s *Scheduler) Finished() <-chan struct{} { return s.done }

// Session is one joined worker, as the scheduler sees it. Its fields are
// guarded by scheduler.mu, except lastSeen (atomic: stamped on every
// message without the lock) and warns (its own lock).
type Session struct {
	id, name    string
	key         uint64 // random, unique across runs: names its commits in the journal
	serial      uint32 // unique in this run: names its commits in taskState
	slots       int
	version     string
	addr        string
	credits     int
	runs        bool              // it takes runs (runs.go): it said so, and none of its runs failed
	runsHeld    int               // its live leases that are runs
	held        map[uint64]*lease // live leases by id
	attached    bool
	gone        bool
	quarantined bool         // caught lying: drained, its results refused
	strikes     int          // invalid batches and results it sent
	joined      time.Time    // when Join made the session (unattached ones expire)
	tasks       uint64       // tasks it committed
	nodes       uint64       // nodes of those tasks
	batches     bool         // JoinRequest.Batches, for the mailbox Attach opens
	verify      float64      // JoinRequest.VerifyFraction
	out         Mailbox      // nil until Attach
	warns       *warnLimiter // its warnings, rate-limited
	lastSeen    atomic.Int64 // unix nanoseconds of its last message
}

// ID is the session's worker id, which its Work stream names.
func (sess *Session) ID() string { return sess.id }

// Name is the name the worker joined with.
func (sess *Session) Name() string { return sess.name }

// Warn logs a warning about the worker, rate-limited per session.
func (sess *Session) Warn(msg string, args ...any) { sess.warns.warn(msg, args...) }

// FlushWarnings logs how many warnings the rate limit held back.
func (sess *Session) FlushWarnings() { sess.warns.flush() }

// Seen stamps the session's last message.
func (sess *Session) Seen(now time.Time) { sess.lastSeen.Store(now.UnixNano()) }

// live reports whether the session has a stream and may get leases.
func (sess *Session) live() bool { return sess.attached && !sess.gone }

// JoinRequest is what a worker says of itself when it joins.
type JoinRequest struct {
	Name, Version string
	Slots         int
	Batches       bool // it reads batched messages: kept for the mailbox Attach opens
	// VerifyFraction of its commits is computed again elsewhere, when
	// above Options.VerifyFraction (an untrusted worker's share).
	VerifyFraction float64
}

// Join registers a worker. It fails with ErrTooManyWorkers when
// MaxSessions are joined already.
func (s *Scheduler) Join(req JoinRequest) (*Session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.sessions) >= s.opt.MaxSessions {
		s.dropUnattachedLocked(s.opt.Clock.Now())
		if len(s.sessions) >= s.opt.MaxSessions {
			return nil, fmt.Errorf("%w (%d)", ErrTooManyWorkers, s.opt.MaxSessions)
		}
	}
	s.nextWID++
	now := s.opt.Clock.Now()
	sess := &Session{
		id:      fmt.Sprintf("w%d", s.nextWID),
		key:     workerKey(),
		serial:  uint32(s.nextWID),
		name:    req.Name,
		version: req.Version,
		slots:   req.Slots,
		held:    make(map[uint64]*lease),
		batches: req.Batches,
		verify:  req.VerifyFraction,
		joined:  now,
		warns:   newWarnLimiter(s.log.With("worker_id", fmt.Sprintf("w%d", s.nextWID), "worker_name", req.Name), s.opt.Clock),
	}
	sess.Seen(now)
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

// The scheduler's refusals of a worker; package coordinator maps each to
// a gRPC code.
var (
	// ErrTooManyWorkers refuses a Join beyond MaxSessions: capacity, not
	// the worker's fault, so it may retry.
	ErrTooManyWorkers = errors.New("every worker place is taken")
	// ErrUnknownWorker refuses an Attach of an id never joined or
	// forgotten (attachTimeout): the worker must join again.
	ErrUnknownWorker = errors.New("unknown worker id")
	// ErrAttached refuses a second stream for one session.
	ErrAttached = errors.New("worker id already has a Work stream")
)

// dropUnattachedLocked forgets sessions that joined but opened no Work
// stream within attachTimeout (or a lease, if shorter): a worker that died
// between Join and Work, or a client that only calls Join.
func (s *Scheduler) dropUnattachedLocked(now time.Time) {
	ttl := min(s.opt.Lease, attachTimeout)
	for id, sess := range s.sessions {
		if !sess.attached && now.Sub(sess.joined) > ttl {
			delete(s.sessions, id)
		}
	}
}

// Attach binds a Work stream to a joined session and grants its first
// credits; runs says the worker takes runs (runs.go). open makes the
// session's mailbox, told whether its worker reads batched messages: the
// caller keeps what it returns. A session attaches once.
func (s *Scheduler) Attach(id, addr string, credits uint32, runs bool, open func(batches bool) Mailbox) (*Session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sess := s.sessions[id]
	if sess == nil {
		return nil, fmt.Errorf("%w %q: call Join first", ErrUnknownWorker, id)
	}
	if sess.attached {
		return nil, fmt.Errorf("%w: %q", ErrAttached, id)
	}
	sess.attached, sess.addr, sess.runs = true, addr, runs && s.runsOK
	sess.out = open(sess.batches)
	s.attached++
	s.liveSlots += max(sess.slots, 1)
	live := s.liveLocked()
	s.peak = max(s.peak, live)
	s.busy.set(s.opt.Clock.Now(), live)
	unit := "slots"
	if sess.slots == 1 {
		unit = "slot"
	}
	s.events.add(EventJoin, sess.name, fmt.Sprintf("%s, %d %s", addr, sess.slots, unit))
	// While a verification is pending the job is not over: it may send
	// tasks back to the queue (a quarantine), and this worker may verify.
	if s.draining || s.err != nil || s.committed == s.leavesLocked() && s.pendingVerify == 0 {
		sess.out.Drain("job is over")
		return sess, nil
	}
	s.addCreditsLocked(sess, credits)
	return sess, nil
}

// liveLocked counts the sessions with a stream.
func (s *Scheduler) liveLocked() int { return s.attached }

// Ready grants a session more credits.
func (s *Scheduler) Ready(sess *Session, credits uint32) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.addCreditsLocked(sess, credits)
}

func (s *Scheduler) addCreditsLocked(sess *Session, credits uint32) {
	sess.credits = min(sess.credits+int(credits), MaxCredits)
	if sess.credits > 0 && sess.live() && !sess.quarantined {
		s.hungry[sess] = true
	}
	s.dispatchLocked()
}

// dispatchLocked leases queued tasks to sessions with credits. It visits
// only the sessions that have credits, and none when nothing is queued, so
// its cost does not grow with the number of joined workers.
func (s *Scheduler) dispatchLocked() {
	if s.draining || s.err != nil {
		return
	}
	s.fillLocked()
	if s.waitingLocked() || len(s.verifyQ) > 0 {
		s.serveHungryLocked()
	}
	s.verifyLocallyLocked()
}

// serveHungryLocked leases queued tasks and verifications to the sessions
// with credits.
func (s *Scheduler) serveHungryLocked() {
	for sess := range s.hungry {
		if !sess.live() || sess.quarantined {
			delete(s.hungry, sess)
			continue
		}
		for sess.credits > 0 {
			if idx, ok := s.popLocked(); ok {
				run := 1
				if sess.runs && sess.runsHeld < runsPerSlot*max(sess.slots, 1) {
					run = s.runLocked(idx)
				}
				s.leaseLocked(sess, idx, run, false)
				continue
			}
			if idx, ok := s.popVerifyLocked(sess); ok {
				s.leaseLocked(sess, idx, 1, true)
				continue
			}
			break // nothing this session may take
		}
		if sess.credits == 0 {
			delete(s.hungry, sess)
		}
		if !s.waitingLocked() && len(s.verifyQ) == 0 {
			return // nothing left for anyone
		}
	}
}

// leaseLocked leases task idx, or the run of tasks from it, to sess.
func (s *Scheduler) leaseLocked(sess *Session, idx, run int, verify bool) {
	s.nextLease++
	now := s.opt.Clock.Now()
	l := &lease{id: s.nextLease, task: idx, run: run, sess: sess, deadline: now.Add(s.opt.Lease), start: now, live: true, verify: verify}
	s.leases[l.id] = l
	s.stats.Leased += uint64(run)
	if run > 1 {
		s.stats.Runs++
	}
	a := Assignment{Lease: l.id, Task: s.taskID(idx), Run: run, Deadline: l.deadline, Verify: verify}
	if run == 1 {
		a.Prefix = s.prefixLocked(idx)
	}
	for t := idx; t < idx+run; t++ {
		s.holder[t] = l
	}
	sess.held[l.id] = l
	if run > 1 {
		sess.runsHeld++
	}
	sess.credits--
	sess.out.Assign(a)
}

func (s *Scheduler) taskID(idx int) TaskID { return TaskID{Plan: s.fingerprint, Index: idx} }

// endLeaseLocked ends a live lease: it leaves its session and its task,
// and its record moves to the ring of recently ended leases, so a late
// result can still be matched while memory stays proportional to the live
// leases.
func (s *Scheduler) endLeaseLocked(l *lease) {
	if !l.live {
		return
	}
	l.live = false
	delete(l.sess.held, l.id)
	if l.run > 1 {
		l.sess.runsHeld--
	}
	for t := l.task; t < l.task+l.run; t++ {
		if s.holder[t] == l {
			delete(s.holder, t)
		}
	}
	if old := s.ended.push(l); old != nil && s.leases[old.id] == old {
		delete(s.leases, old.id)
	}
}

// takeBackLocked ends a live lease without a result and queues its task at
// the front. Only a solver failure counts toward the task's retry cap: when
// the task has failed on MaxAttempts distinct workers, the job fails.
func (s *Scheduler) takeBackLocked(l *lease, why cause, reason string) {
	if !l.live {
		return
	}
	s.endLeaseLocked(l)
	if l.run > 1 {
		s.requeueRunLocked(l, why)
		return
	}
	t := s.store.at(l.task)
	if l.verify { // the verification goes back to its queue
		if t.verify == verifyWaiting && t.is(taskCommitted) {
			s.verifyQ = append(s.verifyQ, l.task)
		}
		return
	}
	s.stats.Requeued++
	if why == causeSolver && !t.is(taskCommitted) {
		failed := addDistinct(s.failedOn[l.task], l.sess.failureName())
		s.failedOn[l.task] = failed
		if len(failed) >= s.opt.MaxAttempts {
			s.failLocked(fmt.Errorf("task %d failed on %d workers (last: %s); giving up (retry cap --max-attempts)", l.task, len(failed), reason))
			return
		}
	}
	if !t.is(taskCommitted) && !t.is(taskQueued) && !t.is(taskSplit) && !t.is(taskGone) {
		s.requeueLocked(l.task)
	}
}

// failureName is who a solver failure is held against: the worker's name,
// which a crash-looping pod keeps across its sessions, or the session when
// the worker gave none (nameless workers are not all one worker).
func (sess *Session) failureName() string {
	if sess.name == "" {
		return "session " + sess.id
	}
	return sess.name
}

// addDistinct appends name to names unless it is there already.
func addDistinct(names []string, name string) []string {
	for _, n := range names {
		if n == name {
			return names
		}
	}
	return append(names, name)
}

// requeueLocked queues a task at the front.
func (s *Scheduler) requeueLocked(idx int) {
	if s.requeued.Len() > 2*s.store.live+staleSlack {
		s.pruneRequeuedLocked()
	}
	heap.Push(&s.requeued, readyItem{depth: s.depthLocked(idx), idx: idx})
	s.store.at(idx).set(taskQueued, true)
}

// staleSlack is how many entries the ready heap may hold beyond twice
// the live tasks before its stale ones are dropped.
const staleSlack = 1 << 12

// pruneRequeuedLocked drops the ready heap's stale entries (tasks committed,
// split or gone since they were queued), which a replay leaves by the
// million (every restored split queues its children, and most collapse
// before any is leased): the heap then holds at most the live tasks, and
// the cost is amortized over the pushes that made it grow.
func (s *Scheduler) pruneRequeuedLocked() {
	keep := s.requeued[:0]
	for _, it := range s.requeued {
		if t := s.store.at(it.idx); t.is(taskQueued) && !t.is(taskCommitted) && !t.is(taskSplit) && !t.is(taskGone) {
			keep = append(keep, it)
		} else if !t.is(taskGone) {
			t.set(taskQueued, false)
		}
	}
	clear(s.requeued[len(keep):])
	s.requeued = keep
	heap.Init(&s.requeued)
}

// Heartbeat extends the leases a session still holds.
func (s *Scheduler) Heartbeat(sess *Session, ids []uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	deadline := s.opt.Clock.Now().Add(s.opt.Lease)
	for _, id := range ids {
		if l := sess.held[id]; l != nil {
			l.deadline = deadline
		}
	}
}

// Release hands leases back unfinished (a worker shutting down). It does
// not count against the tasks' retry caps.
func (s *Scheduler) Release(sess *Session, ids []uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, id := range ids {
		if l := sess.held[id]; l != nil {
			s.takeBackLocked(l, causeReleased, "released")
		}
	}
	s.dispatchLocked()
}

// Detach ends a session whose stream closed: its live leases go back to the
// front of the queue at once, without counting against the tasks.
func (s *Scheduler) Detach(sess *Session, reason string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sess.gone {
		return
	}
	sess.gone = true
	for _, l := range sess.held {
		s.takeBackLocked(l, causeBroken, reason)
	}
	sess.out.Close()
	delete(s.sessions, sess.id)
	delete(s.hungry, sess)
	if sess.attached {
		s.attached--
		s.liveSlots -= max(sess.slots, 1)
		s.busy.set(s.opt.Clock.Now(), s.liveLocked())
		s.events.add(EventLeave, sess.name, reason)
	}
	s.dispatchLocked()
}

// expire takes back every lease whose deadline passed and cancels it on
// its worker. It returns how many expired.
func (s *Scheduler) expire(now time.Time) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dropUnattachedLocked(now)
	n := 0
	for _, sess := range s.sessions {
		for _, l := range sess.held {
			if now.After(l.deadline) {
				n++
				s.stats.Expired++
				sess.warns.warn("lease expired", "task", l.task, "lease_id", l.id)
				s.events.add(EventExpire, sess.name, fmt.Sprintf("task %d", l.task))
				sess.out.Cancel(l.id, s.taskID(l.task), "lease expired")
				s.takeBackLocked(l, causeExpired, "lease expired")
			}
		}
	}
	if split := s.splitStragglersLocked(now); n > 0 || split {
		s.dispatchLocked()
	}
	return n
}

// LeaseFor returns the task and prefix of the live lease of sess for a
// batch, renewing it, or false when the batch must be dropped (it crossed
// a Cancel on the wire).
func (s *Scheduler) LeaseFor(sess *Session, id TaskID, leaseID uint64) (task int, prefix []int, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := sess.held[leaseID]
	if l == nil || id.Plan != s.fingerprint || id.Index != l.task {
		return 0, nil, false
	}
	l.deadline = s.opt.Clock.Now().Add(s.opt.Lease)
	return l.task, s.prefixLocked(l.task), true
}

// RejectBatch ends a lease whose solutions failed validation: the task is
// queued again and the worker earns a strike.
func (s *Scheduler) RejectBatch(sess *Session, leaseID uint64, reason string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stats.Rejected++
	if l := sess.held[leaseID]; l != nil {
		sess.out.Cancel(l.id, s.taskID(l.task), reason)
		s.takeBackLocked(l, causeRejected, reason)
	}
	s.strikeLocked(sess, reason)
	s.dispatchLocked()
}

// strikeLocked counts an invalid batch or result against its worker; at
// MaxStrikes the worker is quarantined, so a broken or hostile worker
// costs the job a few recomputed tasks, never the job itself.
func (s *Scheduler) strikeLocked(sess *Session, reason string) {
	sess.strikes++
	if sess.strikes >= MaxStrikes {
		s.quarantineLocked(sess, fmt.Sprintf("%d invalid results or batches (last: %s)", sess.strikes, reason))
	}
}

// Fail ends the job with err (the first error wins).
func (s *Scheduler) Fail(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failLocked(err)
}

func (s *Scheduler) failLocked(err error) {
	if s.err != nil {
		return
	}
	select {
	case <-s.done: // finished already
		return
	default:
	}
	s.err = err
	s.events.add(EventFailed, "", err.Error())
	close(s.done)
}

func (s *Scheduler) finishIfDoneLocked() {
	if s.committed == s.leavesLocked() && s.pendingVerify == 0 && s.err == nil {
		if err := s.unpublishedLocked(); err != nil {
			s.failLocked(err)
			return
		}
		select {
		case <-s.done:
		default:
			s.events.add(EventDone, "", fmt.Sprintf("%d tasks committed", s.committed))
			close(s.done)
		}
	}
}

// unpublishedLocked checks a finished whole-board job's sums against the
// board's published counts (solver.Known), where there are some: lies
// that each looked plausible made N=13 end at 74,656 instead of 73,712,
// reported complete. Pinned plans count completions of a
// part of the board and are not checked.
func (s *Scheduler) unpublishedLocked() error {
	k, ok := s.published()
	if !ok {
		return nil
	}
	got := s.committedLocked()
	if s.plan.Kind == solver.KindJoin {
		// Join units count totals only; the fundamental count follows
		// from the total (Burnside) once the job ends.
		got.Unique = k.Unique
	}
	if got.Total != k.Total || got.Unique != k.Unique {
		return fmt.Errorf("the final count, %d solutions (%d fundamental), differs from the published count of the %d-board, %d (%d): a worker reported wrong counts; run again with --verify-fraction 1",
			got.Total, got.Unique, s.plan.N, k.Total, k.Unique)
	}
	return nil
}

// published returns the board's published counts when the job's final
// sums are compared with them (ChecksPublished).
func (s *Scheduler) published() (solver.Counts, bool) {
	k, _ := solver.Known(s.plan.N)
	return k, ChecksPublished(s.plan, s.opt.Synthetic)
}

// ChecksPublished reports whether a job of plan (with Options.Synthetic)
// compares its final sums with the board's published counts, and fails
// when they differ: a whole-board plan (not pinned) of real counts on a
// board in solver.Known.
func ChecksPublished(plan solver.Plan, synthetic bool) bool {
	_, ok := solver.Known(plan.N)
	return ok && plan.Kind != solver.KindPinned && !synthetic
}

// Drain stops all assignment and tells every session to finish.
func (s *Scheduler) Drain(reason string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.draining = true
	for _, sess := range s.sessions {
		if sess.out != nil { // the others are drained when they attach
			sess.out.Drain(reason)
		}
	}
}

// Leases counts the lease records kept (live and recently ended) and the
// live ones: what bounds the scheduler's memory per worker.
func (s *Scheduler) Leases() (kept, live int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, sess := range s.sessions {
		live += len(sess.held)
	}
	return len(s.leases), live
}

// PeakWorkers is the largest number of workers attached at once.
func (s *Scheduler) PeakWorkers() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.peak
}

// leaseRing remembers the last MaxEndedLeases ended leases, oldest first
// out: a result that arrives after its lease ended (expired, cancelled)
// is still recognised as its worker's, while a worker that takes and
// releases leases in a loop cannot grow the coordinator's memory.
type leaseRing struct {
	buf  []*lease
	next int
}

// push records l and returns the lease it pushed out, if any.
func (r *leaseRing) push(l *lease) *lease {
	if len(r.buf) < MaxEndedLeases {
		r.buf = append(r.buf, l)
		return nil
	}
	old := r.buf[r.next]
	r.buf[r.next] = l
	r.next = (r.next + 1) % MaxEndedLeases
	return old
}
