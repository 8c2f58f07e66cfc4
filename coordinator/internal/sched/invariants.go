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
	holder := make(map[int]uint64) // task -> the live lease (not a verification) that covers it
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
			if !s.tasks[l.task].is(taskCommitted) || s.tasks[l.task].verify != verifyLeased {
				return fmt.Errorf("verification lease %d of task %d: committed %v, verify state %d", id, l.task, s.tasks[l.task].is(taskCommitted), s.tasks[l.task].verify)
			}
			continue
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
			if s.tasks[idx].is(taskSplit) {
				return fmt.Errorf("split task %d is leased (lease %d)", idx, id)
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
	return s.taskInvariantsLocked(holder)
}

// taskInvariantsLocked checks each task record against the leases
// (holder), the queue and the counts.
func (s *Scheduler) taskInvariantsLocked(holder map[int]uint64) error {
	committed, splits := 0, 0
	for idx := range s.tasks {
		t := &s.tasks[idx]
		_, leased := holder[idx]
		queued := t.is(taskQueued) || idx >= s.next && idx < s.sp.base
		switch {
		case t.is(taskSplit):
			splits++
		case t.is(taskCommitted):
			committed++
		case !leased && !queued && s.err == nil:
			return fmt.Errorf("task %d is lost: not committed, split, leased or queued", idx)
		}
	}
	if committed != s.committed || uint64(splits) != s.stats.Splits {
		return fmt.Errorf("%d committed and %d split tasks, counted %d and %d", committed, splits, s.committed, s.stats.Splits)
	}
	if s.restored > s.committed {
		return fmt.Errorf("%d restored of %d committed", s.restored, s.committed)
	}
	return nil
}
