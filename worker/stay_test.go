package worker_test

import (
	"context"
	"net"
	"testing"

	"github.com/nqueens/nqueens/coordinator"
	"github.com/nqueens/nqueens/worker"
)

// TestStayBetweenJobs: a worker with Stay outlives its job. It counts
// N=10 (724) for a first coordinator, is drained, and does not return; a
// second coordinator on the same address, with no worker of its own,
// gets N=8 counted (92) by the same worker, which joins it by itself.
// Then ctx ends the worker with nil.
func TestStayBetweenJobs(t *testing.T) {
	checkLeaks(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stats worker.Stats
	logs := newLogWatch()
	ran := make(chan error, 1)
	go func() {
		ran <- worker.Run(ctx, worker.Config{Join: addr, Slots: 2, Stay: true, Stats: &stats}, logs.logger())
	}()
	for i, tc := range []struct {
		n    int
		want uint64
	}{{10, 724}, {8, 92}} {
		cfg := coordinator.NewConfig(tc.n)
		cfg.Workers, cfg.Listen = 0, addr
		_, done := runCoordinator(t, ctx, cfg)
		r := <-done
		if r.err != nil || r.s.Solutions != tc.want || r.s.Workers != 1 {
			t.Fatalf("job %d: %d solutions on %d workers, %v; want %d from the staying worker", i+1, r.s.Solutions, r.s.Workers, r.err, tc.want)
		}
		select {
		case err := <-ran:
			t.Fatalf("the worker returned %v after job %d; with Stay it waits for the next", err, i+1)
		default:
		}
	}
	logs.wait(t, "job over; staying for the next one")
	cancel()
	if err := <-ran; err != nil {
		t.Errorf("Run ended by its context = %v, want nil", err)
	}
	if s := stats.Snapshot(); s.Joins != 2 {
		t.Errorf("%d joins, want 2 (one per job)", s.Joins)
	}
}
