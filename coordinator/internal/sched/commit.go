package sched

import (
	"fmt"
	"iter"
	"math"
	"slices"
	"time"

	"github.com/nqueens/nqueens/solver"
)

// Report is a worker's Result for one lease, in the scheduler's terms.
type Report struct {
	Task     TaskID
	Lease    uint64
	Counts   solver.Counts
	Failure  string          // the solver's own error ("" if none)
	Streamed solver.Counts   // listing: the classes and solutions its batches delivered
	Spill    string          // listing: the file they were spilled to ("" if none)
	Elapsed  time.Duration   // the worker's time for the task (split.go's size rule)
	Run      []solver.Counts // a run's (runs.go): each task's counts, in order; counts is their sum
}

// Verdict is the scheduler's judgement of a report.
type Verdict struct {
	Outcome Outcome
	Reason  string
	// Ticket is what its commits owe the journal: the caller settles it
	// (Settle) before the worker's Ack. Zero when nothing was journaled.
	Ticket Ticket
}

// Result judges a report. The scheduler takes ownership of r.spill only
// when it commits; the caller removes it otherwise.
func (s *Scheduler) Result(sess *Session, r Report) Verdict {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r.Task.Plan != s.fingerprint || r.Task.Index < 0 || r.Task.Index >= s.store.len() {
		s.stats.Rejected++
		sess.warns.warn("result for unknown task dropped", "plan", r.Task.Plan, "task", r.Task.Index)
		return Verdict{Outcome: OutcomeRejected, Reason: "unknown task or other plan"}
	}
	idx := r.Task.Index
	t := s.store.at(idx)
	l := s.leases[r.Lease]
	own := l != nil && l.sess == sess && l.task == idx
	if len(r.Run) > 0 || own && l.run > 1 {
		return s.runResultLocked(sess, l, own, r)
	}
	endOwn := func() {
		if own {
			s.endLeaseLocked(l) // a no-op for a late result
		}
	}
	switch {
	case sess.quarantined:
		endOwn()
		s.stats.Rejected++
		return Verdict{Outcome: OutcomeRejected, Reason: "worker quarantined"}
	case t.is(taskSplit): // its children count it now
		endOwn()
		s.stats.Superseded++
		return Verdict{Outcome: OutcomeDuplicate, Reason: "task was split"}
	case t.is(taskGone): // a collapsed ancestor counts it
		endOwn()
		s.stats.Duplicates++
		return Verdict{Outcome: OutcomeDuplicate, Reason: "already committed (collapsed)"}
	case t.is(taskCommitted) && own && l.verify && t.verify != verifyNone:
		endOwn()
		return s.verifyResultLocked(sess, idx, r.Counts)
	case own && l.verify && !t.is(taskCommitted): // its task was taken back from its committer meanwhile
		endOwn()
		s.stats.Duplicates++
		return Verdict{Outcome: OutcomeDuplicate, Reason: "verified task was taken back"}
	case t.is(taskCommitted):
		endOwn()
		v := s.againLocked(sess, idx, r.Counts)
		if v.Outcome == OutcomeConflict && t.committer() == sess.serial {
			s.strikeLocked(sess, fmt.Sprintf("contradicts its own commit of task %d", idx))
		}
		return v
	case !own:
		s.stats.Rejected++
		sess.warns.warn("result for a task this worker never held dropped", "task", idx)
		return Verdict{Outcome: OutcomeRejected, Reason: "task not leased to this worker"}
	}
	if reason := s.invalidLocked(r); reason != "" {
		return s.refuseLocked(sess, l, r.Failure, reason, "task", idx)
	}
	if reason := s.pastBoardLocked(r.Counts); reason != "" {
		return s.refuseLocked(sess, l, reason, reason, "task", idx)
	}
	s.measureLocked(idx, l, r.Elapsed)
	endOwn()
	return s.commitLocked(sess, idx, r)
}

// refuseLocked drops a result of lease l that cannot be right (reason,
// logged with where): the solver's own failure counts toward the task's
// retry cap, anything else is a strike against the worker; the lease's
// tasks go back to the queue (a no-op for a late result).
func (s *Scheduler) refuseLocked(sess *Session, l *lease, failure, reason string, where ...any) Verdict {
	s.stats.Rejected++
	sess.warns.warn("invalid result dropped", append(where, "reason", reason)...)
	why := causeSolver
	if failure == "" {
		why = causeRejected
		s.strikeLocked(sess, reason)
	}
	s.takeBackLocked(l, why, reason)
	s.dispatchLocked()
	return Verdict{Outcome: OutcomeRejected, Reason: reason}
}

// pastBoardLocked says why counts c cannot be added to the running sums,
// which they would bring past the board's published count,
// or "". The result is refused and its task counts an attempt, but its
// worker earns no strike: an earlier liar's commit may be what fills the
// sum, and striking would quarantine the honest worker that comes last.
// A task refused MaxAttempts times fails the job, as a wrong total must.
func (s *Scheduler) pastBoardLocked(c solver.Counts) string {
	if reason := s.implausible(c, s.committedLocked()); reason != "" {
		return "the running sums: " + reason
	}
	return ""
}

// againLocked handles a result for a task committed already: equal counts
// are a duplicate, others a conflict.
func (s *Scheduler) againLocked(sess *Session, idx int, got solver.Counts) Verdict {
	c, ok := s.known.get(idx)
	if !ok || got.Total == c.Total && got.Unique == c.Unique {
		s.stats.Duplicates++
		s.log.Debug("duplicate result dropped", "worker_id", sess.id, "task", idx)
		return Verdict{Outcome: OutcomeDuplicate, Reason: "already committed"}
	}
	s.stats.Conflicts++
	// Through the session's limiter: a run's Result held up to 256
	// conflicts, each an ERROR line.
	sess.warns.warn("conflicting result dropped", "worker_id", sess.id, "task", idx,
		"committed_total", c.Total, "committed_unique", c.Unique,
		"got_total", got.Total, "got_unique", got.Unique)
	s.events.add(EventConflict, sess.name, fmt.Sprintf("task %d: total %d, committed %d", idx, got.Total, c.Total))
	return Verdict{Outcome: OutcomeConflict, Reason: fmt.Sprintf("task %d was committed with total %d unique %d", idx, c.Total, c.Unique)}
}

// commitLocked commits the first valid result of task idx.
func (s *Scheduler) commitLocked(sess *Session, idx int, r Report) Verdict {
	ticket := s.journalLocked(idx, []solver.Counts{r.Counts}, sess)
	s.commitTaskLocked(sess, idx, r.Counts, r.Spill)
	s.finishIfDoneLocked()
	s.dispatchLocked()
	return Verdict{Outcome: OutcomeCommitted, Ticket: ticket}
}

// journalLocked queues the commits of tasks first, first+1, ... with
// counts cs by sess in the journal, if any: one task's as a result, a
// run's as one run record. It reports whether the journal refused them
// (the job failed).
func (s *Scheduler) journalLocked(first int, cs []solver.Counts, sess *Session) Ticket {
	if s.opt.Journal == nil {
		return Ticket{}
	}
	s.journaling.Add(len(cs)) // before done can close: wait waits for their Sync
	t := Ticket{queued: len(cs)}
	var err error
	if len(cs) == 1 {
		err = s.opt.Journal.Commit(first, cs[0], sess.key)
	} else {
		err = s.opt.Journal.CommitRun(first, cs, sess.key)
	}
	switch {
	case err == nil:
		return t
	case len(cs) == 1:
		s.failLocked(fmt.Errorf("journal commit of task %d: %w", first, err))
	default:
		s.failLocked(fmt.Errorf("journal commit of tasks %d..%d: %w", first, first+len(cs)-1, err))
	}
	t.lost = true
	return t
}

// Ticket is what commits owe the journal: how many were queued (each
// counted in journaling when it was) and whether the journal refused one.
// It is made where the commits are journaled and settled once, so the
// count that Wait waits for is never worked out twice.
type Ticket struct {
	queued int
	lost   bool // the journal refused a commit: the job failed, no Ack
}

// add is the ticket for the commits of both t and u.
func (t Ticket) add(u Ticket) Ticket {
	return Ticket{queued: t.queued + u.queued, lost: t.lost || u.lost}
}

// commitTaskLocked commits counts c (and a listing's spill) as task idx's
// result, which the caller has journaled.
func (s *Scheduler) commitTaskLocked(sess *Session, idx int, c solver.Counts, spill string) {
	t := s.store.at(idx)
	t.set(taskCommitted, true)
	t.setCommitter(sess.serial)
	t.c = c
	s.committers[sess.serial] = sess
	s.known.recent(idx, c)
	delete(s.failedOn, idx) // its failures no longer count
	s.committed++
	s.addLocked(c, 1)
	sess.tasks++
	sess.nodes = solver.SaturatingAdd(sess.nodes, c.Nodes)
	s.work.commit(idx, c.Nodes, false)
	// Another attempt still runs: stop it. A run goes on with its other
	// tasks; its Result counts this one as a duplicate.
	if other := s.holder[idx]; other != nil && other.run == 1 {
		other.sess.out.Cancel(other.id, s.taskID(idx), "committed by another worker")
		s.takeBackLocked(other, causeElsewhere, "committed elsewhere")
	}
	if s.opt.Want && s.opt.Listing != nil {
		s.opt.Listing.Add(idx, spill)
	}
	s.sampleLocked(idx, c)
	s.childCommittedLocked(idx)
}

// Settle waits, outside the lock, until the journal holds the commits of
// tickets; the caller acknowledges them only after it returns true. It
// syncs once for all of them, and not at all when they owe nothing.
func (s *Scheduler) Settle(tickets []Ticket) bool {
	var all Ticket
	for _, t := range tickets {
		all = all.add(t)
	}
	if all.queued == 0 {
		return !all.lost
	}
	err := s.opt.Journal.Sync()
	for range all.queued {
		s.journaling.Done()
	}
	if err != nil {
		s.Fail(fmt.Errorf("journal sync: %w", err))
	}
	return err == nil && !all.lost
}

// invalidLocked says why a result cannot be right without recomputing it,
// or "" when it may be.
func (s *Scheduler) invalidLocked(r Report) string {
	if r.Failure != "" {
		return r.Failure
	}
	if reason := s.implausible(r.Counts, solver.Counts{}); reason != "" {
		return reason
	}
	if !s.opt.Want {
		return ""
	}
	c := r.Counts
	if r.Spill == "" && c.Unique > 0 {
		return "solutions were not streamed"
	}
	if c.Unique != r.Streamed.Unique || c.Total != r.Streamed.Total {
		return fmt.Sprintf("result says %d classes of %d solutions, %d classes of %d were streamed",
			c.Unique, c.Total, r.Streamed.Unique, r.Streamed.Total)
	}
	return ""
}

// implausible says why the counts of one task of plan p cannot be right,
// or "" when they may be. A task counts each of its
// solutions 8, 4 or 2 times (once per distinct image, n > 1), so its total
// is even (a pinned plan's counts each once: any total); it has at least
// as many solutions as fundamental ones; and with
// committed (the counts it would be added to: none for a fresh result, the
// records restored so far for a journal's) it cannot exceed the whole
// board's published counts (solver.Known). A count that passes is only
// plausible: --verify-fraction checks the truth.
func implausible(p solver.Plan, c, committed solver.Counts) string {
	return implausibleAgainst(p, c, committed, true)
}

// implausible is the package's implausible for this job's plan: a
// synthetic load's made-up counts are not held against the board's.
func (s *Scheduler) implausible(c, committed solver.Counts) string {
	return implausibleAgainst(s.plan, c, committed, !s.opt.Synthetic)
}

// implausibleAgainst is implausible, comparing with the published counts
// only when published is set.
func implausibleAgainst(p solver.Plan, c, committed solver.Counts, published bool) string {
	n := p.N
	if c.Unique > c.Total {
		return fmt.Sprintf("unique %d exceeds total %d", c.Unique, c.Total)
	}
	if n > 1 && c.Total%2 != 0 && p.Kind != solver.KindPinned {
		return fmt.Sprintf("total %d is odd: every solution of a task counts 2, 4 or 8 times", c.Total)
	}
	k, ok := solver.Known(n)
	if !ok || !published {
		return ""
	}
	sum, err := committed.Add(c)
	if err != nil || sum.Total > k.Total || sum.Unique > k.Unique {
		return fmt.Sprintf("total %d unique %d would bring the job past the whole board's %d and %d", c.Total, c.Unique, k.Total, k.Unique)
	}
	return ""
}

// JournalResult is a committed result read back from a journal, for
// Restorable.
type JournalResult struct {
	Index  int
	Counts solver.Counts
	Worker uint64 // the committer's session key; 0: the coordinator's own
}

// Restorable picks, from a journal's results in commit order, what a
// resumed n-board job may restore (Config.Restored), and returns the
// workers that committed an impossible count: the caller
// must distrust them in the journal (journal.Journal.Distrust) before the
// run, so that the tasks they committed, left out of restored, may be
// committed again. A worker that wrote one impossible count is trusted
// for none. An impossible record of the coordinator's own (worker 0)
// cannot be taken back: Restorable fails, naming the task. It reads
// results once per worker found out (once, as a rule) and keeps none of
// them: restored reads them again, in commit order, leaving out the
// workers found out (a resume of 10^7 tasks holds no copy).
func Restorable(n int, results iter.Seq[JournalResult]) (restored iter.Seq[JournalResult], bad []uint64, err error) {
	isBad := func(w uint64) bool { return slices.Contains(bad, w) }
	// Until no worker is found out: a bad worker's earlier records must
	// not count toward the bound the later ones are checked against.
	for found := true; found; {
		found = false
		var sum solver.Counts
		for r := range results {
			if isBad(r.Worker) {
				continue
			}
			reason := implausible(solver.Plan{N: n}, r.Counts, sum) // resumed jobs are never pinned
			if reason == "" {
				sum, _ = sum.Add(r.Counts) // cannot overflow: implausible bounds it
				continue
			}
			if r.Worker == 0 {
				return nil, nil, fmt.Errorf("journal record of task %d: %s; it was written by the coordinator itself and cannot be taken back", r.Index, reason)
			}
			bad, found = append(bad, r.Worker), true
			break
		}
	}
	restored = func(yield func(JournalResult) bool) {
		for r := range results {
			if !isBad(r.Worker) && !yield(r) {
				return
			}
		}
	}
	return restored, bad, nil
}

// Restore marks a task committed before any worker joins (a resumed job).
// A record whose counts are implausible is dropped, not restored: the task
// is computed again and the journal's next record for it wins.
func (s *Scheduler) Restore(index int, c solver.Counts) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if index < 0 || index >= s.store.len() {
		return fmt.Errorf("restore task %d: plan has %d tasks", index, s.store.len())
	}
	if reason := s.implausible(c, s.committedLocked()); reason != "" {
		s.log.Warn("journal record dropped; the task is computed again", "task", index, "reason", reason)
		return nil
	}
	t := s.store.at(index)
	if t.is(taskGone) { // a reopened subtree's: superseded
		return nil
	}
	if t.is(taskSplit) { // its children cover it (a record of a distrusted worker's time)
		s.log.Warn("journal record of a task split since dropped", "task", index)
		return nil
	}
	if !t.is(taskCommitted) {
		t.set(taskCommitted|taskRestored, true)
		t.c = c
		s.committed++
		s.restored++
		s.addLocked(c, 1)
		s.work.commit(index, c.Nodes, true)
		s.childCommittedLocked(index)
	}
	return nil
}

// addLocked adds (sign 1) or takes away (sign -1) a task's counts from
// the running sums, which are the job's result: no task's counts are kept
// to add up again. A sum that would overflow fails the job (implausible
// keeps them under the published counts where there are some); the node
// counter saturates instead.
func (s *Scheduler) addLocked(c solver.Counts, sign int) {
	if sign > 0 && (s.solutions+c.Total < s.solutions || s.unique+c.Unique < s.unique) {
		s.failLocked(fmt.Errorf("the job's counts overflow 64 bits (adding total %d unique %d to %d and %d)", c.Total, c.Unique, s.solutions, s.unique))
		return
	}
	sum := addCounts(solver.Counts{Total: s.solutions, Unique: s.unique, Nodes: s.nodes}, c, sign)
	s.solutions, s.unique, s.nodes = sum.Total, sum.Unique, sum.Nodes
}

// addCounts returns a plus (sign 1) or minus (sign -1) c, nodes
// saturating: a node count at math.MaxUint64 stays there (the true sum is
// not known any more, so nothing is taken from it).
func addCounts(a, c solver.Counts, sign int) solver.Counts {
	if sign < 0 {
		nodes := a.Nodes
		if nodes != math.MaxUint64 {
			nodes -= min(a.Nodes, c.Nodes)
		}
		return solver.Counts{Total: a.Total - c.Total, Unique: a.Unique - c.Unique, Nodes: nodes}
	}
	return solver.Counts{Total: a.Total + c.Total, Unique: a.Unique + c.Unique, Nodes: solver.SaturatingAdd(a.Nodes, c.Nodes)}
}

// committedLocked is the sum of the committed counts so far (nodes aside).
func (s *Scheduler) committedLocked() solver.Counts {
	return solver.Counts{Total: s.solutions, Unique: s.unique}
}

// CheckDone finishes a job that has nothing left to do (an empty plan, or
// every task restored).
func (s *Scheduler) CheckDone() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.finishIfDoneLocked()
}

// Shape returns the number of tasks to commit (every task not split) and
// the longest prefix of any task.
func (s *Scheduler) Shape() (tasks, deepest int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.leavesLocked(), s.sp.deepest
}

// Totals returns the job's counts (the running sums of the committed
// results) and how many tasks are committed.
func (s *Scheduler) Totals() (solver.Counts, int, Stats, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return solver.Counts{Total: s.solutions, Unique: s.unique, Nodes: s.nodes}, s.committed, s.stats, s.err
}
