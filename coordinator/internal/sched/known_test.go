package sched

import (
	"testing"

	"github.com/nqueens/nqueens/solver"
)

// TestKnownCountsBound: the counts kept for conflict checks stay at
// maxRecentCounts however many tasks commit, the latest ones are kept,
// and a pinned (sampled) task keeps its counts past the window until it
// is unpinned.
func TestKnownCountsBound(t *testing.T) {
	k := newKnownCounts()
	k.pin(3, solver.Counts{Total: 6})
	k.recent(3, solver.Counts{Total: 6})
	const commits = 3 * maxRecentCounts
	for i := 10; i < 10+commits; i++ {
		k.recent(i, solver.Counts{Total: uint64(2 * i)})
	}
	if len(k.m) != maxRecentCounts+1 {
		t.Errorf("%d counts kept after %d commits, want %d (the window and one pinned)", len(k.m), commits, maxRecentCounts+1)
	}
	if c, ok := k.get(9 + commits); !ok || c.Total != 2*(9+commits) {
		t.Errorf("latest commit: %v %v, want total %d", c, ok, 2*(9+commits))
	}
	if _, ok := k.get(10); ok {
		t.Errorf("the oldest commit is still kept")
	}
	if c, ok := k.get(3); !ok || c.Total != 6 {
		t.Errorf("pinned task: %v %v, want total 6", c, ok)
	}
	k.unpin(3)
	if _, ok := k.get(3); ok || len(k.m) != maxRecentCounts {
		t.Errorf("after unpin: task 3 kept %v, %d counts; want gone, %d", ok, len(k.m), maxRecentCounts)
	}
	k.unpin(9 + commits) // recent, never pinned: stays
	if _, ok := k.get(9 + commits); !ok {
		t.Errorf("unpin dropped a recent commit")
	}
}

// TestCountsOverflowFails: a sum that would pass 2^64 fails the job
// instead of wrapping (the running sums are the result).
func TestCountsOverflowFails(t *testing.T) {
	s := NewScheduler(Options{Plan: solver.Plan{N: 28, Tasks: []solver.Task{{}, {Index: 1}}}})
	s.mu.Lock()
	defer s.mu.Unlock()
	s.addLocked(solver.Counts{Total: 1 << 63, Unique: 1}, 1)
	s.addLocked(solver.Counts{Total: 1 << 63, Unique: 1}, 1)
	if s.err == nil || s.solutions != 1<<63 {
		t.Errorf("after two halves of 2^64: err %v, total %d; want an error, total 2^63", s.err, s.solutions)
	}
}
