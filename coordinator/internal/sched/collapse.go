package sched

import (
	"fmt"

	"github.com/nqueens/nqueens/solver"
)

// Collapse: memory that follows the live work. When every child of a
// split task is committed (a child that was split itself having collapsed
// first) and none is being verified, the split collapses: the parent
// becomes one committed record holding its subtree's counts and the
// children's records are gone. The scheduler so holds the plan's tasks
// and the tasks that are queued, leased, or under a split that has not
// collapsed yet, not every task ever made.
//
// Task indices stay monotone: a task is never renumbered, and the records
// live in chunks of chunkSize indices (store.go), a chunk released once
// every task in it is gone. A result for a task that is gone is answered
// as a duplicate (its ancestor's record counts it), never counted twice.
//
// A verification pending on a child holds its parent's collapse until it
// ends, so that the verified counts and a quarantine they cause land on
// live records. Listings (Want) never collapse: a listing task's spill
// must stay revocable task by task, and listings are small.
//
// Quarantine. A collapsed record keeps the serials of its subtree's
// committers, up to maxCollapsedBy, or "many". A quarantine reopens every
// collapsed record that may hold one of its worker's commits: the
// record's counts leave the sums and the task is queued again as one
// fresh task (split again when too big), its old subtree forgotten. It
// recounts more than the liar did, which is conservative and simple; the
// journal records the reopening (a Split with Reopen set) before the new
// split, so a resume numbers every task as the run did.

// maxCollapsedBy is how many distinct committers a collapsed record
// names before it says "many": four serials fill 16 bytes, and a subtree
// committed by more workers than that is reopened by any quarantine.
const maxCollapsedBy = 4

// committerSet names the sessions whose commits a collapsed subtree holds.
type committerSet struct {
	by   [maxCollapsedBy]uint32 // 0: unused (restored and coordinator commits name no session)
	many bool                   // more than maxCollapsedBy: any session may be among them
}

// add adds session serial (0 names none).
func (cs *committerSet) add(serial uint32) {
	if serial == 0 || cs.many {
		return
	}
	for i, b := range cs.by {
		switch b {
		case serial:
			return
		case 0:
			cs.by[i] = serial
			return
		}
	}
	cs.many = true
}

// merge adds every committer of o.
func (cs *committerSet) merge(o committerSet) {
	cs.many = cs.many || o.many
	for _, b := range o.by {
		cs.add(b)
	}
}

// has reports whether session serial may be among the committers.
func (cs committerSet) has(serial uint32) bool {
	if cs.many {
		return true
	}
	for _, b := range cs.by {
		if b == serial && b != 0 {
			return true
		}
	}
	return false
}

// openSplit is a split whose children have not all been committed.
type openSplit struct {
	first   int   // its first child's index
	count   uint8 // its children
	pending uint8 // children not committed
}

// collapsed is what a collapsed record keeps beside its counts.
type collapsed struct {
	leaves   int // the committed leaf tasks it stands for
	restored int // those of them restored from the journal
	by       committerSet
}

// leavesOf is how many committed leaf tasks live record idx stands for.
func (s *Scheduler) leavesOf(idx int, r *taskRec) int {
	if r.is(taskCollapsed) {
		return s.collapsed[idx].leaves
	}
	return 1
}

// childCommittedLocked tells task idx's open parent, if any, that idx was
// committed, and collapses what that completes, up the tree.
func (s *Scheduler) childCommittedLocked(idx int) {
	for idx >= s.sp.planTasks {
		p := int(s.store.at(idx).parent)
		o := s.open[p]
		o.pending--
		s.open[p] = o
		if o.pending > 0 || s.opt.Want || !s.collapseLocked(p, o) {
			return
		}
		idx = p // committed now: its own parent learns it
	}
}

// childReopenedLocked tells task idx's open parent, if any, that idx is
// no longer committed.
func (s *Scheduler) childReopenedLocked(idx int) {
	if idx < s.sp.planTasks {
		return
	}
	p := int(s.store.at(idx).parent)
	o := s.open[p]
	o.pending++
	s.open[p] = o
}

// collapseUpLocked collapses task idx's parent if nothing but idx's
// verification held it, and on up the tree.
func (s *Scheduler) collapseUpLocked(idx int) {
	if idx < s.sp.planTasks || s.opt.Want {
		return
	}
	p := int(s.store.at(idx).parent)
	if o, ok := s.open[p]; ok && o.pending == 0 && s.collapseLocked(p, o) {
		s.childCommittedLocked(p)
	}
}

// collapseLocked collapses split p into one committed record, unless a
// child is still being verified or held by a lease.
func (s *Scheduler) collapseLocked(p int, o openSplit) bool {
	end := o.first + int(o.count)
	for i := o.first; i < end; i++ {
		if r := s.store.at(i); !r.is(taskCommitted) || r.verify != verifyNone || s.holder[i] != nil {
			return false
		}
	}
	var sum solver.Counts
	var rec collapsed
	for i := o.first; i < end; i++ {
		r := s.store.at(i)
		sum = addCounts(sum, r.c, 1)
		if r.is(taskCollapsed) {
			c := s.collapsed[i]
			rec.leaves += c.leaves
			rec.restored += c.restored
			rec.by.merge(c.by)
			delete(s.collapsed, i)
		} else {
			rec.leaves++
			rec.by.add(r.committer())
			if r.is(taskRestored) {
				rec.restored++
			}
		}
		s.known.forget(i)
		s.store.drop(i)
	}
	delete(s.open, p)
	pr := s.store.at(p)
	pr.set(taskSplit, false)
	pr.set(taskCommitted|taskCollapsed, true)
	pr.setCommitter(0)
	pr.c = sum
	s.collapsed[p] = rec
	s.collapses++
	return true
}

// reopenLocked takes collapsed or split task p back to one fresh queued
// task: its subtree's commits leave the sums, its subtree's records are
// gone, and the journal records it so that p may be split again.
func (s *Scheduler) reopenLocked(p int, why string) {
	if s.opt.Journal != nil {
		if err := s.opt.Journal.Split(Split{Parent: p, Reopen: true}); err != nil {
			s.failLocked(fmt.Errorf("journal reopen of task %d: %w", p, err))
			return
		}
	}
	if s.store.at(p).is(taskCommitted) {
		s.childReopenedLocked(p)
	}
	s.dropSubtreeLocked(p)
	s.requeueLocked(p)
	s.reopened++
	s.log.Debug("task reopened", "task", p, "why", why)
}

// dropSubtreeLocked makes task p a leaf not committed: a collapsed
// record's counts leave the sums; a split's descendants are gone, their
// commits leaving the sums and their leases taken back.
func (s *Scheduler) dropSubtreeLocked(p int) {
	r := s.store.at(p)
	switch {
	case r.is(taskCollapsed):
		c := s.collapsed[p]
		delete(s.collapsed, p)
		s.committed -= c.leaves
		s.restored -= c.restored
		s.leaves -= c.leaves - 1
		s.addLocked(r.c, -1)
		s.work.uncommit(p, r.c.Nodes)
		r.set(taskCommitted|taskCollapsed, false)
		r.c = solver.Counts{}
	case r.is(taskSplit):
		o := s.open[p]
		for i := o.first; i < o.first+int(o.count); i++ {
			s.dropSubtreeLocked(i)
			if l := s.holder[i]; l != nil && !l.verify { // a verification ends with the commit below
				l.sess.out.Cancel(l.id, s.taskID(i), "task superseded")
				s.takeBackLocked(l, causeSplit, "task superseded")
			}
			if s.store.at(i).is(taskCommitted) {
				s.uncommitLeafLocked(i, s.store.at(i))
			}
			s.leaves--
			s.store.drop(i)
		}
		delete(s.open, p)
		r.set(taskSplit, false)
		s.leaves++
	}
}

// uncommitLeafLocked takes back the commit of leaf task i (record r): its
// counts leave the sums and the work estimate, a pending verification of
// it is dropped.
func (s *Scheduler) uncommitLeafLocked(i int, r *taskRec) {
	if r.is(taskRestored) {
		s.restored--
	}
	r.set(taskCommitted|taskRestored, false)
	r.setCommitter(0)
	s.committed--
	s.addLocked(r.c, -1)
	if s.opt.Listing != nil {
		s.opt.Listing.Revoke(i)
	}
	s.known.forget(i)
	s.work.uncommit(i, r.c.Nodes)
	r.c = solver.Counts{}
	if l := s.holder[i]; l != nil && l.verify { // nothing left to verify: the verifier stops
		l.sess.out.Cancel(l.id, s.taskID(i), "verified task taken back")
		s.endLeaseLocked(l)
	}
	if r.verify != verifyNone {
		r.verify = verifyNone
		s.pendingVerify--
	}
}

// restoreReopenLocked replays a journal's reopening of task p (a
// quarantine of the run that wrote it) before any worker joins.
func (s *Scheduler) restoreReopenLocked(p int) error {
	if p < 0 || p >= s.store.len() {
		return fmt.Errorf("journal reopen of task %d: %d tasks made", p, s.store.len())
	}
	r := s.store.at(p)
	if r.is(taskGone) || !r.is(taskSplit) && !r.is(taskCollapsed) {
		return fmt.Errorf("journal reopen of task %d, which is neither split nor collapsed", p)
	}
	if r.is(taskCommitted) {
		s.childReopenedLocked(p)
	}
	s.dropSubtreeLocked(p)
	if !r.is(taskQueued) {
		s.requeueLocked(p)
	}
	return nil
}
