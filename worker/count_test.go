package worker_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/nqueens/nqueens/coordinator"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/worker"
)

// TestCountInjected: a worker whose Config.Count answers every task of
// N=10 with total 2, fundamental 1 (a load generator's table) runs the
// whole job through its session, alone or in runs, batched or not: the
// coordinator (told the counts are made up) sums 2 and 1 per task, and
// Count was called exactly once per task, the solver never.
func TestCountInjected(t *testing.T) {
	checkLeaks(t)
	for _, tc := range []struct {
		name              string
		noRuns, noBatches bool
	}{{"runs", false, false}, {"single tasks", true, false}, {"unbatched", true, true}} {
		ctx, cancel := context.WithCancel(context.Background())
		cfg := coordinator.NewConfig(10)
		cfg.Workers, cfg.NoSplit, cfg.SyntheticLoad, cfg.Depth = 0, true, true, 4
		addr, done := runCoordinator(t, ctx, cfg)
		var calls atomic.Int64
		count := func(n int, task solver.Task) (solver.Counts, error) {
			calls.Add(1)
			return solver.Counts{Total: 2, Unique: 1, Nodes: 1}, nil
		}
		wcfg := worker.Config{Join: addr, Slots: 2, Count: count, NoRuns: tc.noRuns, NoBatches: tc.noBatches}
		if err := worker.Run(ctx, wcfg, hclog.NewNullLogger()); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		r := <-done
		cancel()
		tasks := uint64(r.s.Tasks)
		if r.err != nil || tasks == 0 || r.s.Solutions != 2*tasks || r.s.Unique != tasks || uint64(calls.Load()) != tasks {
			t.Errorf("%s: the job %+v, %v, Count called %d times; want 2 and 1 per task, one call per task", tc.name, r.s, r.err, calls.Load())
		}
	}
}
