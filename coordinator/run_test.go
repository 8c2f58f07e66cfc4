package coordinator

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/nqueens/nqueens/solver"
)

// Named timeouts: each bounds one kind of wait, so a hang fails the test
// with a message instead of eating the whole test budget.
const (
	// runTimeout is one small job through the cluster. Generous: N=16
	// under -race on a 2-core machine that other jobs keep busy took over
	// 60 s (TestRemoteSlotsSplit); a job that hangs still fails the test.
	runTimeout   = 5 * time.Minute
	eventTimeout = 20 * time.Second // waiting for one expected event
)

// known is DESIGN.md §5: solutions and fundamental solutions.
var known = []struct{ total, unique uint64 }{
	{}, {1, 1}, {0, 0}, {0, 0}, {2, 1}, {10, 2}, {4, 1}, {40, 6}, {92, 12}, {352, 46},
	{724, 92}, {2680, 341}, {14200, 1787}, {73712, 9233}, {365596, 45752}, {2279184, 285053}, {14772512, 1846955},
}

// testConfig is a quiet loopback config for board n.
func testConfig(n, workers int) Config {
	c := NewConfig(n)
	c.Workers = workers
	c.Listen = "127.0.0.1:0"
	c.DrainTimeout = 5 * time.Second
	return c
}

func runJob(t *testing.T, cfg Config) Summary {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	s, err := Run(ctx, cfg, hclog.NewNullLogger())
	if err != nil {
		t.Fatalf("Run(n=%d): %v", cfg.N, err)
	}
	return s
}

func TestCountsThroughCluster(t *testing.T) {
	for n := 1; n <= 12; n++ {
		s := runJob(t, testConfig(n, 3))
		if s.Solutions != known[n].total || s.Unique != known[n].unique {
			t.Errorf("Run(n=%d) = %d solutions, %d fundamental; want %d, %d", n, s.Solutions, s.Unique, known[n].total, known[n].unique)
		}
		if !s.Complete || s.Committed != s.Tasks || s.Conflicts != 0 {
			t.Errorf("Run(n=%d): complete %v, %d of %d tasks, %d conflicts", n, s.Complete, s.Committed, s.Tasks, s.Conflicts)
		}
	}
}

// TestResumeKeepsOneCopy: once the scheduler holds a resume's restored
// results, the job drops the copy it was given (a million-task resume
// would keep 70 MB twice), and the job still counts them as restored.
func TestResumeKeepsOneCopy(t *testing.T) {
	cfg := testConfig(8, 1)
	cfg.Depth = 2
	cfg.OpenJournal = func(p solver.Plan) (Resumed, error) {
		var restored []JournalResult
		for _, task := range p.Tasks[:2] {
			c, err := solver.CountTask(p.N, task)
			if err != nil {
				return Resumed{}, err
			}
			restored = append(restored, JournalResult{Index: task.Index, Counts: c})
		}
		return Resumed{Results: slices.Values(restored)}, nil
	}
	j, err := New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if j.cfg.Restored != nil || j.Status().Restored != 2 {
		t.Errorf("after New: results still held by the job (%v), %d restored; want none held, 2 restored", j.cfg.Restored != nil, j.Status().Restored)
	}
}
