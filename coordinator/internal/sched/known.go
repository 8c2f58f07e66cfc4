package sched

import "github.com/nqueens/nqueens/solver"

// maxRecentCounts is how many of the latest commits knownCounts keeps the
// counts of, to tell a late duplicate from a conflict: 65,536 records of
// about 40 bytes, whatever the job's size. A result for an older commit
// is dropped as a duplicate unchecked (--verify-fraction is what checks
// committed counts).
const maxRecentCounts = 1 << 16

// knownCounts holds the counts of the commits that need them: the latest
// maxRecentCounts, and the tasks sampled for verification until they are
// verified (pinned).
type knownCounts struct {
	m    map[int]knownEntry
	ring []int // the latest commits, oldest at next once full
	next int
}

// knownEntry is one task's kept counts and why they are kept.
type knownEntry struct {
	c              solver.Counts
	recent, pinned bool
}

func newKnownCounts() knownCounts { return knownCounts{m: make(map[int]knownEntry)} }

// recent records the counts of a fresh commit, forgetting the oldest
// unpinned one beyond maxRecentCounts.
func (k *knownCounts) recent(idx int, c solver.Counts) {
	e := k.m[idx]
	e.c, e.recent = c, true
	k.m[idx] = e
	if len(k.ring) < maxRecentCounts {
		k.ring = append(k.ring, idx)
		return
	}
	old := k.ring[k.next]
	k.ring[k.next] = idx
	k.next = (k.next + 1) % maxRecentCounts
	if e, ok := k.m[old]; ok && old != idx {
		e.recent = false
		k.keep(old, e)
	}
}

// keep stores e for task idx while it has a reason to be kept.
func (k *knownCounts) keep(idx int, e knownEntry) {
	if e.recent || e.pinned {
		k.m[idx] = e
	} else {
		delete(k.m, idx)
	}
}

// get returns task idx's committed counts, if they are kept.
func (k *knownCounts) get(idx int) (solver.Counts, bool) {
	e, ok := k.m[idx]
	return e.c, ok
}

// pin keeps task idx's counts (set to c) until unpin.
func (k *knownCounts) pin(idx int, c solver.Counts) {
	e := k.m[idx]
	e.c, e.pinned = c, true
	k.m[idx] = e
}

// unpin lets task idx's counts go (a verified task) unless it is among
// the latest commits still.
func (k *knownCounts) unpin(idx int) {
	if e, ok := k.m[idx]; ok {
		e.pinned = false
		k.keep(idx, e)
	}
}

// forget drops task idx's counts (it is no longer committed).
func (k *knownCounts) forget(idx int) { delete(k.m, idx) }
