package coordinator

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/nqueens/nqueens/render"
	"github.com/nqueens/nqueens/worker"
)

// TestRemoteSlotsSplit, on a small board: a
// coordinator with no embedded workers and a plan of depth 1 (a dozen
// tasks), and three remote workers of two slots each that join after the
// start. Splitting must give every slot work: at least 64 tasks per slot
// in the end, every worker committing some, the count exact; and while
// tasks are queued, the workers hold a lease for every slot in most
// samples of the job's status.
func TestRemoteSlotsSplit(t *testing.T) {
	checkLeaks(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cfg := testConfig(16, 0)
	cfg.Depth = 1
	cfg.TaskTarget = 2 * time.Millisecond
	r := startJob(t, ctx, cfg)
	errs := make(chan error, 3)
	for i := range 3 {
		go func() {
			errs <- worker.Run(ctx, worker.Config{Join: r.addr, Slots: 2, Name: fmt.Sprintf("remote-%d", i), JoinTimeout: workerJoinTimeout}, hclog.NewNullLogger())
		}()
	}
	samples, busy := 0, 0
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Millisecond):
			}
			st := r.job.Status()
			if len(st.Workers) < 3 || st.Queued == 0 {
				continue
			}
			samples++
			full := true
			for _, w := range st.Workers {
				full = full && w.Leases >= w.Slots
			}
			if full {
				busy++
			}
		}
	}()
	s, err := r.wait(t)
	close(stop)
	<-sampled
	checkTotal(t, s, err, 16)
	for range 3 {
		if err := <-errs; err != nil {
			t.Errorf("remote worker: %v", err)
		}
	}
	if s.Tasks < 64*6 || s.Splits == 0 {
		t.Errorf("%d tasks after %d splits for 6 slots, want at least %d", s.Tasks, s.Splits, 64*6)
	}
	if s.Workers != 3 {
		t.Errorf("%d workers attached at most, want 3", s.Workers)
	}
	t.Logf("%d tasks, %d splits, deepest %d; every slot held a lease in %d of %d samples with tasks queued", s.Tasks, s.Splits, s.DeepestSplit, busy, samples)
	if samples > 20 && busy*10 < samples*8 {
		t.Errorf("every slot held a lease in only %d of %d samples with tasks queued, want 80%%", busy, samples)
	}
}

// TestSplitListingOrder: a listing whose tasks are all split as deep as
// the board allows (a task target of a nanosecond) still equals the
// sequential backtracker's, byte for byte: the listing waits for every
// child and sorts them in.
func TestSplitListingOrder(t *testing.T) {
	checkLeaks(t)
	dir := t.TempDir()
	for _, unique := range []bool{false, true} {
		cfg := testConfig(10, 3)
		cfg.Depth = 1
		cfg.TaskTarget = time.Nanosecond
		cfg.Unique = unique
		out := filepath.Join(dir, "out.txt")
		listTo(t, &cfg, out, render.Cols)
		cfg.SpillDir = dir
		s := runJob(t, cfg)
		checkListing(t, out, 10, unique, render.Cols)
		if s.Splits == 0 || s.DeepestSplit <= 5 {
			t.Errorf("unique=%v: %d splits, deepest %d; want the tasks split past depth 5", unique, s.Splits, s.DeepestSplit)
		}
		if s.Solutions != known[10].total || s.Unique != known[10].unique {
			t.Errorf("unique=%v: %d solutions %d fundamental, want %d %d", unique, s.Solutions, s.Unique, known[10].total, known[10].unique)
		}
	}
}

// TestSplitVerified: with every task verified (--verify-fraction 1) and
// every task split, the children are verified as any task is.
func TestSplitVerified(t *testing.T) {
	checkLeaks(t)
	cfg := testConfig(9, 2)
	cfg.Depth = 1
	cfg.TaskTarget = time.Nanosecond
	cfg.VerifyFraction = 1
	s := runJob(t, cfg)
	checkTotal(t, s, nil, 9)
	if s.Splits == 0 || s.Verified != uint64(s.Tasks) {
		t.Errorf("%d splits, %d of %d tasks verified; want splits and every task verified", s.Splits, s.Verified, s.Tasks)
	}
}
