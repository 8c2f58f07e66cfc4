package main

import (
	"path/filepath"
	"testing"

	"github.com/nqueens/nqueens/journal"
	"github.com/nqueens/nqueens/solver"
)

// TestDurableTasks: commits count as durable only once a
// Sync has put them on disk; restored ones are durable from the start.
func TestDurableTasks(t *testing.T) {
	p, err := solver.NewPlan(8, 2, solver.KindCount)
	if err != nil {
		t.Fatal(err)
	}
	j, err := journal.Create(filepath.Join(t.TempDir(), "j"), journal.Settings{N: 8, Depth: 2, Kind: uint8(p.Kind), Fingerprint: p.Fingerprint(), SolverVersion: solver.Version, Tasks: p.Len()})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	c := newDurableJournal(journalCommits{j}, 2)
	if got := c.DurableTasks(); got != 2 {
		t.Errorf("restored 2: %d durable, want 2", got)
	}
	if err := c.Commit(2, solver.Counts{Total: 4, Unique: 1, Nodes: 9}, 1); err != nil {
		t.Fatal(err)
	}
	if err := c.CommitRun(3, []solver.Counts{{Total: 1, Nodes: 3}, {Total: 2, Nodes: 5}}, 1); err != nil {
		t.Fatal(err)
	}
	if got := c.DurableTasks(); got != 2 {
		t.Errorf("3 commits queued, not synced: %d durable, want 2", got)
	}
	if err := c.Sync(); err != nil {
		t.Fatal(err)
	}
	if got := c.DurableTasks(); got != 5 {
		t.Errorf("after the Sync: %d durable, want 5", got)
	}
	if rp, err := journal.Read(j.Path()); err != nil || len(rp.Records) != 3 {
		t.Errorf("the journal holds %d records (%v), want the 3 synced", len(rp.Records), err)
	}
}
