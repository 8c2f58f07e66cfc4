package sched

import (
	"fmt"
	"sync"
)

// guard is the scheduler's lock. When check is set (the scheduler's own
// tests), every unlock first runs it: the invariants hold after every
// step, not only where a test looks.
type guard struct {
	sync.Mutex
	check func()
}

// Unlock runs check, if set, and unlocks.
func (g *guard) Unlock() {
	if g.check != nil {
		g.check()
	}
	g.Mutex.Unlock()
}

// invariantsLocked checks what every step must leave true: each task not
// split is committed, leased or reachable from the queue, never leased
// twice, and a split task is leased by no one; the counts kept beside the
// task records (committed, splits, live leases) agree with them.
func (s *Scheduler) invariantsLocked() error {
	holder := make(map[int]uint64) // task -> the live lease that covers it, a verification's too
	live := 0
	for id, l := range s.leases {
		if !l.live {
			continue
		}
		live++
		if l.id != id || l.sess.held[id] != l {
			return fmt.Errorf("live lease %d is not its session's", id)
		}
		if l.verify {
			if t := s.store.at(l.task); l.run != 1 || !t.is(taskCommitted) || t.is(taskGone) || t.verify != verifyWaiting {
				return fmt.Errorf("verification lease %d of task %d: run %d, committed %v, gone %v, verify state %d", id, l.task, l.run, t.is(taskCommitted), t.is(taskGone), t.verify)
			}
		}
		if l.run < 1 {
			return fmt.Errorf("lease %d of task %d covers %d tasks", id, l.task, l.run)
		}
		for idx := l.task; idx < l.task+l.run; idx++ {
			if other, ok := holder[idx]; ok {
				return fmt.Errorf("task %d is leased twice: leases %d and %d", idx, other, id)
			}
			if s.holder[idx] != l {
				return fmt.Errorf("task %d of lease %d is not held by it", idx, id)
			}
			holder[idx] = id
			if t := s.store.at(idx); t.is(taskSplit) || t.is(taskGone) {
				return fmt.Errorf("split or gone task %d is leased (lease %d)", idx, id)
			}
		}
	}
	held := 0
	for _, sess := range s.sessions {
		held += len(sess.held)
	}
	if held != live {
		return fmt.Errorf("%d live leases, %d held by sessions", live, held)
	}
	if len(s.holder) != len(holder) {
		return fmt.Errorf("%d tasks held, %d covered by live leases", len(s.holder), len(holder))
	}
	if err := s.verifyInvariantsLocked(); err != nil {
		return err
	}
	return s.taskInvariantsLocked(holder)
}

// verifyInvariantsLocked checks that every sampled task waiting for its
// verdict is somewhere: in verifyQ or out on a verification lease, never
// both, and that pendingVerify counts them (with the local ones).
func (s *Scheduler) verifyInvariantsLocked() error {
	inQ := make(map[int]bool, len(s.verifyQ))
	for _, idx := range s.verifyQ {
		inQ[idx] = true
	}
	pending := 0
	var err error
	s.store.each(func(idx int, t *taskRec) {
		if err != nil || t.verify == verifyNone {
			return
		}
		pending++
		l := s.holder[idx]
		out := l != nil && l.verify
		switch {
		case t.verify == verifyWaiting && out && inQ[idx]:
			err = fmt.Errorf("task %d is both queued for verification and verified on lease %d", idx, l.id)
		case t.verify == verifyWaiting && !out && !inQ[idx] && s.err == nil:
			err = fmt.Errorf("sampled task %d is lost: neither queued for verification nor on a verification lease", idx)
		}
	})
	if err == nil && pending != s.pendingVerify {
		err = fmt.Errorf("%d tasks waiting for a verdict, counted %d", pending, s.pendingVerify)
	}
	return err
}

// taskInvariantsLocked checks each live task record against the leases
// (holder), the queue, the open splits, the collapsed records and the
// counts: a task not split is committed, leased or queued; a split is
// open and its pending children are the ones not committed; a collapsed
// record stands for at least one leaf; the committed leaves and the
// leaves of the tree add up to the counters; no task's chunk is released
// while the task lives.
func (s *Scheduler) taskInvariantsLocked(holder map[int]uint64) error {
	committed, leaves, splits, restored := 0, 0, 0, 0
	var err error
	s.store.each(func(idx int, t *taskRec) {
		if err != nil {
			return
		}
		err = s.taskInvariantLocked(idx, t, holder)
		switch {
		case t.is(taskSplit):
			splits++
		case t.is(taskCommitted):
			n := s.leavesOf(idx, t)
			committed += n
			leaves += n
			if t.is(taskCollapsed) {
				restored += s.collapsed[idx].restored
			} else if t.is(taskRestored) {
				restored++
			}
		default:
			leaves++
		}
	})
	switch {
	case err != nil:
		return err
	case committed != s.committed || leaves != s.leaves:
		return fmt.Errorf("%d committed of %d leaf tasks, counted %d of %d", committed, leaves, s.committed, s.leaves)
	case splits != len(s.open):
		return fmt.Errorf("%d split tasks, %d open splits", splits, len(s.open))
	case restored != s.restored:
		return fmt.Errorf("%d restored tasks, counted %d", restored, s.restored)
	case s.restored > s.committed:
		return fmt.Errorf("%d restored of %d committed", s.restored, s.committed)
	}
	for idx := range holder {
		if s.store.at(idx).is(taskGone) {
			return fmt.Errorf("gone task %d is leased", idx)
		}
	}
	return nil
}

// taskInvariantLocked checks live task idx (record t).
func (s *Scheduler) taskInvariantLocked(idx int, t *taskRec, holder map[int]uint64) error {
	_, leased := holder[idx]
	queued := t.is(taskQueued) || idx >= s.next && idx < s.sp.planTasks
	if idx >= s.sp.planTasks {
		p := int(t.parent)
		if _, ok := s.open[p]; !ok || s.store.at(p).is(taskGone) {
			return fmt.Errorf("task %d lives, its parent %d is not an open split", idx, p)
		}
	}
	switch {
	case t.is(taskSplit):
		o, ok := s.open[idx]
		if !ok {
			return fmt.Errorf("split task %d has no open split", idx)
		}
		pending := 0
		for i := o.first; i < o.first+int(o.count); i++ {
			c := s.store.at(i)
			if c.is(taskGone) {
				return fmt.Errorf("child %d of open split %d is gone", i, idx)
			}
			if !c.is(taskCommitted) {
				pending++
			}
		}
		if pending != int(o.pending) {
			return fmt.Errorf("split %d: %d children not committed, counted %d (%+v, made %d)", idx, pending, o.pending, o, s.store.len())
		}
		if pending == 0 && !s.opt.Want && s.err == nil && !s.verifyingChildLocked(o) {
			return fmt.Errorf("split %d: every child committed and none verified, not collapsed", idx)
		}
	case t.is(taskCollapsed):
		if c, ok := s.collapsed[idx]; !ok || c.leaves < 1 || !t.is(taskCommitted) {
			return fmt.Errorf("collapsed task %d: record %+v (kept %v), committed %v", idx, c, ok, t.is(taskCommitted))
		}
	case t.is(taskCommitted):
	case !leased && !queued && s.err == nil:
		return fmt.Errorf("task %d is lost: not committed, split, leased or queued", idx)
	}
	return nil
}

// verifyingChildLocked reports whether a child of o is being verified,
// which holds its collapse.
func (s *Scheduler) verifyingChildLocked(o openSplit) bool {
	for i := o.first; i < o.first+int(o.count); i++ {
		if s.store.at(i).verify != verifyNone || s.holder[i] != nil {
			return true
		}
	}
	return false
}
