package worker_test

import (
	"context"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/nqueens/nqueens/coordinator"
	"github.com/nqueens/nqueens/worker"
)

// TestStats: a lone worker that counts N=10 (724 solutions, 92
// fundamental) for a real coordinator reports in its Stats every task of
// the plan and the nodes the coordinator summed, one join, and nothing
// running or joined once it is drained.
func TestStats(t *testing.T) {
	checkLeaks(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cfg := coordinator.NewConfig(10)
	cfg.Workers, cfg.NoSplit = 0, true
	addr, done := runCoordinator(t, ctx, cfg)
	var stats worker.Stats
	if err := worker.Run(ctx, worker.Config{Join: addr, Slots: 2, Stats: &stats}, hclog.NewNullLogger()); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.err != nil || r.s.Solutions != 724 || r.s.Unique != 92 {
		t.Fatalf("the job: %+v, %v; want 724 and 92", r.s, r.err)
	}
	s := stats.Snapshot()
	if s.Tasks != uint64(r.s.Tasks) || s.Nodes != r.s.Nodes || s.Joins != 1 || s.Joined || s.Running != 0 {
		t.Errorf("stats %+v; want %d tasks, %d nodes (the summary's), 1 join, not joined, none running", s, r.s.Tasks, r.s.Nodes)
	}
	if s.Busy <= 0 || s.NodesPerSecond() <= 0 {
		t.Errorf("busy %v, %v nodes/s: want both positive", s.Busy, s.NodesPerSecond())
	}
}
