package main

import (
	"testing"
	"time"

	"github.com/nqueens/nqueens/coordinator"
)

func TestBars(t *testing.T) {
	half := coordinator.Status{Summary: coordinator.Summary{Committed: 5, Tasks: 10, Solutions: 92},
		Busy: 2 * time.Second, WorkDone: 50, WorkTotal: 100,
		Workers: []coordinator.WorkerStatus{{}, {}}}
	for _, tc := range []struct {
		got, want string
	}{
		{statusBar(half), "[###############...............] 5/10 tasks  92 solutions  46/s  ETA 2s  2 workers"},
		{statusBar(coordinator.Status{}), "[..............................] 0/0 tasks  0 solutions  0/s  ETA ?  0 workers"},
		{writeBar(7386256, 14772512), "[###############...............] writing 7386256/14772512 solutions"},
		{writeBar(0, 0), "[..............................] writing 0/0 solutions"},
		{writeBar(9, 3), "[##############################] writing 9/3 solutions"},
	} {
		if tc.got != tc.want {
			t.Errorf("bar = %q, want %q", tc.got, tc.want)
		}
	}
}

// TestETAAfterResume: the ETA divides this run's remaining work by this
// run's rate; work restored from a journal is in neither, and time without
// workers does not slow the rate.
func TestETAAfterResume(t *testing.T) {
	// A resumed run: the plan less its restored tasks is 1000 nodes of
	// work; 250 are done in 5 s of busy time (the job is older: it waited
	// for workers). 750 left at 50 nodes/s: 15 s.
	st := coordinator.Status{Started: time.Now().Add(-time.Hour), Busy: 5 * time.Second,
		WorkDone: 250, WorkTotal: 1000, Restored: 900}
	if got := eta(st); got != "15s" {
		t.Errorf("eta = %s, want 15s", got)
	}
	if got := eta(coordinator.Status{WorkTotal: 1000, Busy: time.Second}); got != "?" {
		t.Errorf("eta before any work = %s, want ?", got)
	}
}
