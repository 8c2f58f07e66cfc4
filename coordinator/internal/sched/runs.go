package sched

import (
	"container/heap"
	"fmt"
	"time"

	"github.com/nqueens/nqueens/solver"
)

// Runs: leases of several tasks. A task of a few microseconds
// cannot carry the messages of a lease (an Assign, a Result, an Ack, a
// credit: about 10 µs of CPU on both sides), so a worker that says it can
// (Ready.runs) is leased runs of consecutive plan tasks: it works their
// prefixes out from the plan itself and answers with one Result that
// holds every task's counts. Each task of a run is still judged and
// committed on its own, exactly once, as if it had had its own lease;
// only the messages are shared. A run is never made of a split's children
// (their prefixes are the coordinator's) and never for a listing.

// MaxRun bounds a run: its Result holds three numbers per task.
const MaxRun = 256

// runTarget is the estimated duration a run is cut at: a hundred times
// what a lease costs in messages.
const runTarget = 10 * time.Millisecond

// runsPerSlot is how many runs a session may hold, per slot it declared,
// for its next lease to be a run: one for each slot and the reserve a
// worker keeps (package worker's prefetch, which its single tasks of
// microseconds at the start of a job make large); beyond, its leases are
// single tasks. With the queue rule of runLocked (a run takes at most a
// splitPerSlot-th of the queue per attached slot) no session holds more
// than a quarter of the queue in runs, whatever slots and credits it
// claims. 4 instead of 8 cost N=16 at --depth 5 5% (1.07x --depth 2).
const runsPerSlot = 8

// runLocked extends a lease of task first, just taken off the queue, over
// the plan tasks queued right after it, and returns the run's length: as
// many as fit in runTarget by the work estimate, at most maxRun, and at
// most one splitPerSlot-th of the queue per attached slot, so that the
// last tasks of a job go out one by one to whoever is idle.
func (s *Scheduler) runLocked(first int) int {
	if !s.runsOK || first >= s.sp.planTasks {
		return 1
	}
	limit := min(MaxRun, 1+s.queuedLocked()/(splitPerSlot*max(s.liveSlots, 1)))
	left := runTarget.Seconds() - s.work.seconds(first, s.sp.board)
	n := 1
	for ; n < limit && first+n < s.sp.planTasks; n++ {
		cost := s.work.seconds(first+n, s.sp.board)
		if cost > left || !s.takeQueuedLocked(first+n) {
			break
		}
		left -= cost
	}
	return n
}

// takeQueuedLocked takes plan task idx off the queue when it is one the
// queue would serve next: the plan's next fresh task or the ready heap's
// top. It reports false, and leaves the queue alone, for any other task
// and for one committed, split, leased or too big (the size rule splits
// it when it is popped).
func (s *Scheduler) takeQueuedLocked(idx int) bool {
	t := s.store.at(idx)
	if t.is(taskCommitted) || t.is(taskSplit) || t.is(taskGone) || s.holder[idx] != nil || s.tooBigLocked(idx) {
		return false
	}
	switch {
	case idx == s.next:
		s.next++
	case s.requeued.Len() > 0 && s.requeued[0].idx == idx:
		heap.Pop(&s.requeued)
		t.set(taskQueued, false)
	default:
		return false
	}
	return true
}

// requeueRunLocked queues again the tasks of an ended run that are not
// committed. A run that the solver failed on is not held against its
// tasks; its worker is leased single tasks from then on, so that the task
// at fault fails on its own and counts toward its retry cap.
func (s *Scheduler) requeueRunLocked(l *lease, why cause) {
	s.stats.Requeued += uint64(l.run)
	if why == causeSolver {
		l.sess.runs = false
	}
	for idx := l.task; idx < l.task+l.run; idx++ {
		if t := s.store.at(idx); !t.is(taskCommitted) && !t.is(taskQueued) && !t.is(taskSplit) && !t.is(taskGone) {
			s.requeueLocked(idx)
		}
	}
}

// runResultLocked judges the Result of a run (or a Result with run counts
// for a lease of one task, which no correct worker sends): each of its
// tasks is committed, or compared with its commit, as a Result of its
// own would be, and the verdict counts the commits.
func (s *Scheduler) runResultLocked(sess *Session, l *lease, own bool, r Report) Verdict {
	switch {
	case sess.quarantined:
		if own {
			s.endLeaseLocked(l)
		}
		s.stats.Rejected++
		return Verdict{Outcome: OutcomeRejected, Reason: "worker quarantined"}
	case !own:
		s.stats.Rejected++
		sess.warns.warn("result for a run this worker never held dropped", "task", r.Task.Index)
		return Verdict{Outcome: OutcomeRejected, Reason: "run not leased to this worker"}
	}
	if reason := s.invalidRunLocked(l, r); reason != "" {
		return s.refuseLocked(sess, l, r.Failure, reason, "task", l.task, "run", l.run)
	}
	if reason := s.pastBoardLocked(r.Counts); reason != "" {
		return s.refuseLocked(sess, l, reason, reason, "task", l.task, "run", l.run)
	}
	s.endLeaseLocked(l) // a no-op for a late result
	v := Verdict{Outcome: OutcomeDuplicate, Reason: "already committed"}
	seconds := s.runSecondsLocked(l, r)
	open := -1 // the first task of the stretch of commits not yet journaled
	self := -1 // the first task whose commit by this worker it contradicts
	for i, c := range r.Run {
		idx := l.task + i
		switch t := s.store.at(idx); {
		case t.is(taskSplit): // its children count it now
			s.stats.Superseded++
		case t.is(taskGone): // a collapsed ancestor counts it
			s.stats.Duplicates++
		case t.is(taskCommitted):
			again := s.againLocked(sess, idx, c)
			if again.Outcome == OutcomeConflict && v.Outcome != OutcomeCommitted {
				v = again
			}
			if again.Outcome == OutcomeConflict && t.committer() == sess.serial && self < 0 {
				self = idx
			}
		default:
			if sec := seconds(c); sec > 0 {
				s.work.measure(idx, sec)
			}
			if open < 0 {
				open = i
			}
			s.commitTaskLocked(sess, idx, c, "")
			if v.Outcome != OutcomeCommitted {
				v = Verdict{Outcome: OutcomeCommitted}
			}
			continue
		}
		if open >= 0 { // a task not committed ends the stretch
			v.Ticket = v.Ticket.add(s.journalLocked(l.task+open, r.Run[open:i], sess))
			open = -1
		}
	}
	if open >= 0 {
		v.Ticket = v.Ticket.add(s.journalLocked(l.task+open, r.Run[open:], sess))
	}
	if self >= 0 { // one strike per message, after its commits are in place
		s.strikeLocked(sess, fmt.Sprintf("contradicts its own commit of task %d", self))
	}
	s.finishIfDoneLocked()
	s.dispatchLocked()
	return v
}

// invalidRunLocked says why the Result of run l cannot be right, as
// invalidLocked does for a task, or "" when it may be.
func (s *Scheduler) invalidRunLocked(l *lease, r Report) string {
	if r.Failure != "" {
		return r.Failure
	}
	if len(r.Run) != l.run {
		return fmt.Sprintf("result holds the counts of %d tasks for a lease of %d", len(r.Run), l.run)
	}
	var sum solver.Counts
	for i, c := range r.Run {
		if reason := s.implausible(c, solver.Counts{}); reason != "" {
			return fmt.Sprintf("task %d: %s", l.task+i, reason)
		}
		sum = addCounts(sum, c, 1)
		if sum.Total < c.Total || sum.Unique < c.Unique {
			return "the run's counts overflow 64 bits"
		}
	}
	if sum != r.Counts {
		return fmt.Sprintf("the run's counts add up to total %d unique %d nodes %d, the result says %d, %d and %d",
			sum.Total, sum.Unique, sum.Nodes, r.Counts.Total, r.Counts.Unique, r.Counts.Nodes)
	}
	return s.implausible(sum, solver.Counts{})
}

// runSecondsLocked returns how a run's time is shared among its tasks for
// the size rule: by their nodes (evenly without any), the run's time being
// the worker's figure, never more than the coordinator saw since it leased
// the run.
func (s *Scheduler) runSecondsLocked(l *lease, r Report) func(solver.Counts) float64 {
	elapsed := min(r.Elapsed, s.opt.Clock.Now().Sub(l.start)).Seconds()
	if elapsed <= 0 {
		return func(solver.Counts) float64 { return 0 }
	}
	if r.Counts.Nodes == 0 {
		return func(solver.Counts) float64 { return elapsed / float64(len(r.Run)) }
	}
	return func(c solver.Counts) float64 { return elapsed * float64(c.Nodes) / float64(r.Counts.Nodes) }
}
