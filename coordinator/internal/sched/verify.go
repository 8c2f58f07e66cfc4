package sched

import (
	"fmt"

	"github.com/nqueens/nqueens/solver"
)

// Verification (--verify-fraction F). After a task commits, a
// random fraction F of the committed tasks is computed again on a
// different worker. A disagreement is settled by the coordinator itself:
// it recomputes the task (recount: the backtracker, the truth), keeps the true
// counts, and quarantines every worker that reported otherwise: the worker
// is drained and refused further results, and all the other tasks it
// committed go back to the queue to be computed elsewhere. When no other
// worker is attached to verify a task, the coordinator verifies it itself.
// The job is done when every task is committed and every sampled task
// verified. In a listing the truth is ListTask's counts, and a task whose
// committer lied is computed again by a worker (its spilled solutions came
// with the lie); the publisher sorts nothing in before the job is done, so
// a quarantine can take back every task it published.

// verifyState is where a task stands in verification.
type verifyState uint8

const (
	verifyNone verifyState = iota // not sampled, or verified
	// verifyWaiting: sampled, its verdict not in. It waits in verifyQ, or
	// a worker verifies it on a lease with the verify flag: the lease
	// table (holder) says which, as for any other lease.
	verifyWaiting
	verifyLocal // the coordinator is recomputing it
)

// sampleLocked decides whether a freshly committed task is verified; a
// sampled task's counts c are kept until it is.
func (s *Scheduler) sampleLocked(idx int, c solver.Counts) {
	f := s.opt.VerifyFraction
	if sess := s.committers[s.store.at(idx).committer()]; sess != nil {
		f = max(f, sess.verify)
	}
	if f <= 0 || s.store.at(idx).committer() == 0 {
		return
	}
	if f < 1 && s.rng.Float64() >= f {
		return
	}
	s.store.at(idx).verify = verifyWaiting
	s.known.pin(idx, c)
	s.verifyQ = append(s.verifyQ, idx)
	s.pendingVerify++
}

// popVerifyLocked returns a queued verification that sess may run (a task
// committed by another session).
//
// A worker that joined after the sampling verifies like any other; one
// that is alone leaves its own tasks to verifyLocallyLocked.
func (s *Scheduler) popVerifyLocked(sess *Session) (int, bool) {
	for i, idx := range s.verifyQ {
		t := s.store.at(idx)
		if t.verify != verifyWaiting || !t.is(taskCommitted) || s.holder[idx] != nil {
			continue // stale, or a run that lost the task to another commit still holds it
		}
		if t.committer() == sess.serial {
			continue
		}
		s.verifyQ = append(s.verifyQ[:i], s.verifyQ[i+1:]...)
		return idx, true
	}
	return 0, false
}

// verifyLocallyLocked starts the coordinator's own recomputation of queued
// verifications that no attached worker can take (every attached worker is
// the task's committer), once no ordinary task waits to be leased: until
// then another worker may still join.
func (s *Scheduler) verifyLocallyLocked() {
	if len(s.verifyQ) == 0 || s.err != nil || s.waitingLocked() {
		return
	}
	keep := s.verifyQ[:0]
	for _, idx := range s.verifyQ {
		t := s.store.at(idx)
		if t.verify != verifyWaiting || !t.is(taskCommitted) {
			continue
		}
		other := false
		for _, sess := range s.sessions {
			if sess.live() && !sess.quarantined && sess.serial != t.committer() {
				other = true
				break
			}
		}
		if other {
			keep = append(keep, idx)
			continue
		}
		t.verify = verifyLocal
		s.startTruthLocked(idx, nil, solver.Counts{})
	}
	s.verifyQ = keep
}

// startTruthLocked recomputes task idx on the coordinator, then settles it:
// verifier (nil for a local verification) reported got.
func (s *Scheduler) startTruthLocked(idx int, verifier *Session, got solver.Counts) {
	task := solver.Task{Index: idx, Prefix: s.prefixLocked(idx)}
	s.truths.Add(1)
	go func() {
		defer s.truths.Done()
		truth, _, err := recount(s.plan, s.opt.Want, task)
		s.mu.Lock()
		defer s.mu.Unlock()
		if err != nil {
			s.failLocked(fmt.Errorf("verify task %d: %w", idx, err))
			return
		}
		s.settleLocked(idx, truth, verifier, got)
	}()
}

// recount computes task's counts on the coordinator, the truth that
// settles a disagreement, and names the algorithm. A join unit is counted
// by the backtracker where that is affordable (solver.JoinVerifyMaxN): the
// workers counted it with the join, and two algorithms that agree are
// better evidence than one run twice. Its node count is dropped, as the
// join's units report none.
func recount(plan solver.Plan, want bool, task solver.Task) (solver.Counts, string, error) {
	n := plan.N
	switch {
	case plan.Kind == solver.KindJoin && n <= solver.JoinVerifyMaxN: // seconds a unit at most
		c, err := solver.JoinTaskBacktrack(n, task)
		c.Nodes = 0
		return c, "backtrack", err
	case plan.Kind == solver.KindJoin:
		c, err := solver.CountJoinTask(n, task)
		return c, "join", err
	case plan.Kind == solver.KindPinned: // listed or not: the completions' count
		c, err := solver.CountPinnedTask(n, plan.Pins, task)
		return c, "pinned", err
	case want:
		c, err := solver.ListTask(n, task, func([]int) bool { return true })
		return c, "list", err
	default:
		c, err := solver.CountTask(n, task)
		return c, "backtrack", err
	}
}

// verifyResultLocked handles the Result of a verification lease.
func (s *Scheduler) verifyResultLocked(sess *Session, idx int, got solver.Counts) Verdict {
	t := s.store.at(idx)
	c, _ := s.known.get(idx) // pinned while it is sampled
	if got.Total == c.Total && got.Unique == c.Unique {
		s.stats.Verified++
		s.stats.VerifiedSolutions += c.Total
		s.doneVerifyLocked(idx)
		return Verdict{Outcome: OutcomeVerified}
	}
	s.stats.Conflicts++
	s.log.Error("verification disagrees; recomputing on the coordinator", "task", idx, "worker_id", sess.id,
		"committed_total", c.Total, "got_total", got.Total)
	t.verify = verifyLocal
	s.startTruthLocked(idx, sess, got)
	return Verdict{Outcome: OutcomeConflict, Reason: "verification disagrees with the committed result"}
}

// settleLocked applies the truth about task idx: every session that
// reported otherwise is quarantined.
func (s *Scheduler) settleLocked(idx int, truth solver.Counts, verifier *Session, got solver.Counts) {
	t := s.store.at(idx)
	if !t.is(taskCommitted) || t.verify != verifyLocal {
		return // uncommitted meanwhile (its committer was quarantined)
	}
	same := func(c solver.Counts) bool { return c.Total == truth.Total && c.Unique == truth.Unique }
	committer := s.committers[t.committer()] // nil for the coordinator's own
	if reported, _ := s.known.get(idx); !same(reported) && s.opt.Want && committer != nil {
		// The listing needs the task's solutions: the quarantine sends it
		// back to the queue with the committer's other tasks.
		s.quarantineLocked(committer, fmt.Sprintf("task %d: reported total %d unique %d, the truth is %d and %d", idx, reported.Total, reported.Unique, truth.Total, truth.Unique))
	} else if !same(reported) {
		s.addLocked(reported, -1)
		s.addLocked(truth, 1)
		s.known.pin(idx, truth)
		t.c = truth
		t.setCommitter(0) // the coordinator's own result now
		if committer != nil {
			s.quarantineLocked(committer, fmt.Sprintf("task %d: reported total %d unique %d, the truth is %d and %d", idx, reported.Total, reported.Unique, truth.Total, truth.Unique))
		}
	}
	if verifier != nil && !same(got) {
		s.quarantineLocked(verifier, fmt.Sprintf("task %d: verification reported total %d unique %d, the truth is %d and %d", idx, got.Total, got.Unique, truth.Total, truth.Unique))
	}
	s.stats.Verified++
	s.stats.VerifiedSolutions += truth.Total
	s.doneVerifyLocked(idx)
}

// doneVerifyLocked marks a sampled task verified.
func (s *Scheduler) doneVerifyLocked(idx int) {
	if s.store.at(idx).verify != verifyNone {
		s.store.at(idx).verify = verifyNone
		s.pendingVerify--
		s.known.unpin(idx)
		s.collapseUpLocked(idx) // its parent waited for it
	}
	s.finishIfDoneLocked()
	s.dispatchLocked()
}

// quarantineLocked disconnects a worker caught reporting wrong counts and
// sends every other task it committed back to the queue.
func (s *Scheduler) quarantineLocked(sess *Session, reason string) {
	if sess.quarantined {
		return
	}
	sess.quarantined = true
	s.stats.Quarantined++
	s.log.Error("worker quarantined", "worker_id", sess.id, "worker_name", sess.name, "reason", reason)
	s.events.add(EventQuarantine, sess.name, reason)
	if s.opt.Journal != nil {
		// Durable before anything else: a crash from here on must not
		// resume with the liar's commits.
		if err := s.opt.Journal.Distrust(sess.key); err != nil {
			s.failLocked(fmt.Errorf("journal distrust of worker %s: %w", sess.id, err))
		}
	}
	for _, l := range sess.held {
		s.takeBackLocked(l, causeQuarantine, "worker quarantined")
	}
	s.uncommitAllLocked(sess)

	sess.out.Drain("quarantined: " + reason)
	s.dispatchLocked()
}

// uncommitAllLocked sends every task sess committed back to the queue
// and takes its counts out of the sums: a leaf it committed is queued
// again, a collapsed record that may hold one of its commits is reopened
// whole (collapse.go).
func (s *Scheduler) uncommitAllLocked(sess *Session) {
	if sess.serial == 0 || s.committers[sess.serial] != sess {
		return // it committed nothing
	}
	delete(s.committers, sess.serial)
	var reopen, requeue []int
	s.store.each(func(i int, t *taskRec) {
		switch {
		case t.is(taskCollapsed) && s.collapsed[i].by.has(sess.serial):
			reopen = append(reopen, i)
		case t.is(taskCommitted) && !t.is(taskCollapsed) && t.committer() == sess.serial:
			requeue = append(requeue, i)
		}
	})
	for _, i := range requeue {
		t := s.store.at(i)
		s.uncommitLeafLocked(i, t)
		s.childReopenedLocked(i)
		if !t.is(taskQueued) && s.holder[i] == nil {
			s.requeueLocked(i)
		}
	}
	for _, i := range reopen {
		s.reopenLocked(i, "a quarantined worker may have committed in its subtree")
	}
}
