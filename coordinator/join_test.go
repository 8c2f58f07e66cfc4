package coordinator

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/nqueens/nqueens/solver"
)

// TestJoinCountsThroughCluster: the join's units, counted by embedded
// workers over real gRPC, add up to the known totals, and the fundamental
// count comes out exact by Burnside's lemma.
func TestJoinCountsThroughCluster(t *testing.T) {
	for n := 12; n <= 16; n++ {
		cfg := testConfig(n, 2)
		cfg.Engine = EngineJoin
		s := runJob(t, cfg)
		checkTotal(t, s, nil, n)
		if s.Engine != "join" || s.Kind != "count" || s.Splits != 0 || s.Committed != s.Tasks {
			t.Errorf("n=%d: engine %q kind %q, %d splits, %d of %d tasks; want join, count, 0 splits, all", n, s.Engine, s.Kind, s.Splits, s.Committed, s.Tasks)
		}
	}
}

// TestEngineChoice: auto picks the join where PreferJoin says it is
// faster and its tables fit the memory budget, the backtracker otherwise;
// an explicit join where it cannot serve is refused with a FieldError.
func TestEngineChoice(t *testing.T) {
	for _, c := range []struct {
		n      int
		engine Engine
		memory int64
		unique bool
		want   solver.Kind
		field  string // the refused field, "" when accepted
	}{
		{n: 16, want: solver.KindJoin},
		{n: 16, engine: EngineAuto, memory: 1 << 20, want: solver.KindCount},
		{n: 11, want: solver.KindCount},
		{n: 11, engine: EngineJoin, want: solver.KindJoin},
		{n: 16, engine: EngineBacktrack, want: solver.KindCount},
		{n: 16, unique: true, want: solver.KindUnique},
		{n: 16, engine: EngineJoin, unique: true, field: "Engine"},
		{n: 16, engine: EngineJoin, memory: 1 << 20, field: "Engine"},
		{n: 12, engine: "fast", field: "Engine"},
	} {
		cfg := testConfig(c.n, 1)
		cfg.Engine, cfg.WorkerMemory, cfg.Unique = c.engine, c.memory, c.unique
		if c.unique {
			cfg.Sink = &discard{}
		}
		j, err := New(cfg, nil)
		var fe *FieldError
		switch {
		case c.field != "" && (!errors.As(err, &fe) || fe.Field != c.field):
			t.Errorf("n=%d engine %q memory %d unique %v: error %v, want a FieldError on %s", c.n, c.engine, c.memory, c.unique, err, c.field)
		case c.field == "" && err != nil:
			t.Errorf("n=%d engine %q memory %d unique %v: %v", c.n, c.engine, c.memory, c.unique, err)
		case err == nil:
			if got := j.Plan().Kind; got != c.want {
				t.Errorf("n=%d engine %q memory %d unique %v: plan kind %v, want %v", c.n, c.engine, c.memory, c.unique, got, c.want)
			}
			j.Close()
		}
	}
}

// discard is a Sink that keeps nothing.
type discard struct{}

func (discard) Write([]int) error  { return nil }
func (discard) Close(uint64) error { return nil }

// TestJoinResume: a join job resumed with half its units restored counts
// only the rest and ends exact; the join plan's fingerprint is not the
// backtracker's.
func TestJoinResume(t *testing.T) {
	const n = 15
	cfg := testConfig(n, 2)
	cfg.Engine = EngineJoin
	restored := 0
	cfg.OpenJournal = func(p solver.Plan) (Resumed, error) {
		back, err := solver.NewPlan(n, 0, solver.KindCount)
		if err != nil {
			return Resumed{}, err
		}
		if p.Kind != solver.KindJoin || p.Fingerprint() == back.Fingerprint() {
			t.Errorf("plan kind %v fingerprint %x; want a join plan, not the backtracker's %x", p.Kind, p.Fingerprint(), back.Fingerprint())
		}
		var rs []JournalResult
		for _, task := range p.Tasks[:len(p.Tasks)/2] {
			c, err := solver.CountJoinTask(n, task)
			if err != nil {
				return Resumed{}, err
			}
			rs = append(rs, JournalResult{Index: task.Index, Counts: c})
		}
		restored = len(rs)
		return Resumed{Results: slices.Values(rs)}, nil
	}
	s := runJob(t, cfg)
	checkTotal(t, s, nil, n)
	if s.Leased > uint64(s.Tasks-restored) {
		t.Errorf("leased %d tasks; only %d of %d were left after the resume", s.Leased, s.Tasks-restored, s.Tasks)
	}
}

// TestJoinVerify: with every task verified, each join unit is counted
// again by the other worker, and the job stays exact.
func TestJoinVerify(t *testing.T) {
	const n = 14
	cfg := testConfig(n, 2)
	cfg.Engine, cfg.VerifyFraction = EngineJoin, 1
	s := runJob(t, cfg)
	checkTotal(t, s, nil, n)
	if s.Verified != uint64(s.Tasks) || s.Conflicts != 0 || s.Quarantined != 0 {
		t.Errorf("verified %d of %d tasks, %d conflicts, %d quarantined; want all, 0, 0", s.Verified, s.Tasks, s.Conflicts, s.Quarantined)
	}
}

// TestJoinWorkerCutOff: one of two workers of a join job is cut off
// mid-run; its leases go back to the queue and the total stays exact.
// N=16 by default, N=18 with -long.
func TestJoinWorkerCutOff(t *testing.T) {
	checkLeaks(t)
	n := 16
	if *longTests {
		n = 18
	}
	want, _ := solver.Known(n)
	ctx := context.Background()
	cfg := testConfig(n, 0)
	cfg.Engine = EngineJoin
	r := startJob(t, ctx, cfg)
	b := newBridge(t, r.addr)
	wait := startWorkers(ctx, r.addr, b.addr())
	waitFor(t, "a tenth of the tasks", func() bool { d, all := r.committed(); return d*10 >= all })
	b.cut()
	s, err := r.wait(t)
	if err != nil || s.Solutions != want.Total || s.Unique != want.Unique || !s.Complete {
		t.Fatalf("n=%d: %d solutions, %d fundamental (complete %v, %v); want %d, %d", n, s.Solutions, s.Unique, s.Complete, err, want.Total, want.Unique)
	}
	if errs := wait(); errs[0] != nil {
		t.Errorf("the worker that was not cut off: %v", errs[0])
	}
	if s.Requeued == 0 {
		t.Log("the cut worker held no lease: nothing was requeued")
	}
}
