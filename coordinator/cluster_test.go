package coordinator

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	nqueenspb "github.com/nqueens/nqueens/proto/nqueens/v1"
	"github.com/nqueens/nqueens/render"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/worker"
)

// workerJoinTimeout is short so cut-off test workers give up quickly.
const workerJoinTimeout = time.Second

// startWorkers runs worker.Run for each address and returns a wait
// function that reports their errors.
func startWorkers(ctx context.Context, addrs ...string) func() []error {
	var wg sync.WaitGroup
	errs := make([]error, len(addrs))
	for i, a := range addrs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := worker.Run(ctx, worker.Config{Join: a, Slots: 1, Name: "test", JoinTimeout: workerJoinTimeout}, hclog.NewNullLogger())
			if errors.Is(err, worker.ErrJoin) && !errors.Is(err, worker.ErrRefused) {
				// It found no coordinator: the others finished the job
				// before it joined (the caller checks the total).
				err = nil
			}
			errs[i] = err
		}()
	}
	return func() []error { wg.Wait(); return errs }
}

func checkTotal(t *testing.T, s Summary, err error, n int) {
	t.Helper()
	if err != nil {
		t.Fatalf("Run(n=%d): %v", n, err)
	}
	if s.Solutions != known[n].total || s.Unique != known[n].unique || !s.Complete {
		t.Fatalf("Run(n=%d) = %d solutions, %d fundamental (complete %v); want %d, %d", n, s.Solutions, s.Unique, s.Complete, known[n].total, known[n].unique)
	}
}

// TestWorkersCutOff cuts two of three workers off mid-run (connections
// reset): their tasks go back to the queue and the total stays exact.
func TestWorkersCutOff(t *testing.T) {
	checkLeaks(t)
	ctx := context.Background()
	cfg := testConfig(14, 0)
	cfg.Depth = 4
	r := startJob(t, ctx, cfg)
	b1, b2 := newBridge(t, r.addr), newBridge(t, r.addr)
	wait := startWorkers(ctx, r.addr, b1.addr(), b2.addr())
	// Cut once all three workers hold leases: a progress count said
	// nothing of the bridged ones, which on a busy machine had sometimes
	// not joined yet, so nothing was taken back.
	waitFor(t, "leases on all three workers", func() bool {
		st := r.job.Status()
		held := 0
		for _, w := range st.Workers {
			if w.Leases > 0 {
				held++
			}
		}
		return held == 3 || st.Done
	})
	b1.cut()
	b2.cut()
	if d, n := r.committed(); d == n {
		t.Log("the job ended before the cut; nothing was tested")
	}
	s, err := r.wait(t)
	checkTotal(t, s, err, 14)
	errs := wait()
	if errs[0] != nil {
		t.Errorf("the worker that was not cut off: %v", errs[0])
	}
	for i, err := range errs[1:] {
		if err != nil && !errors.Is(err, worker.ErrJoin) {
			t.Errorf("cut-off worker %d: %v, want nil or ErrJoin", i+1, err)
		}
	}
	if s.Requeued == 0 {
		t.Errorf("no lease was taken back: the cut workers held none (cut-off workers returned %v)", errs[1:])
	}
}

// TestLeaseExpires: a worker takes tasks and stops answering; once its
// leases expire (on an injected clock) the tasks go to another worker.
func TestLeaseExpires(t *testing.T) {
	checkLeaks(t)
	ctx := context.Background()
	clock := newFakeClock()
	cfg := testConfig(10, 0)
	cfg.clock = clock
	cfg.SweepInterval = 5 * time.Millisecond
	r := startJob(t, ctx, cfg)
	hung := dialRaw(t, r.addr)
	hung.ready(2)
	a1 := hung.next("assign").GetAssign()
	a2 := hung.next("assign").GetAssign()
	clock.Advance(cfg.Lease + time.Second)
	for range 2 {
		c := hung.next("cancel").GetCancel()
		if id := c.GetLeaseId(); id != a1.GetLeaseId() && id != a2.GetLeaseId() {
			t.Errorf("cancel for lease %d, want %d or %d", id, a1.GetLeaseId(), a2.GetLeaseId())
		}
	}
	wait := startWorkers(ctx, r.addr)
	s, err := r.wait(t)
	checkTotal(t, s, err, 10)
	if s.Expired != 2 {
		t.Errorf("expired = %d, want 2", s.Expired)
	}
	for _, err := range wait() {
		if err != nil {
			t.Errorf("worker: %v", err)
		}
	}
}

// TestLateJoiner: a worker that joins mid-run gets work too.
func TestLateJoiner(t *testing.T) {
	checkLeaks(t)
	ctx := context.Background()
	cfg := testConfig(14, 1)
	cfg.Depth = 4
	r := startJob(t, ctx, cfg)
	waitFor(t, "some progress", func() bool { return func() bool { d, _ := r.committed(); return d > 0 }() })
	wait := startWorkers(ctx, r.addr)
	s, err := r.wait(t)
	checkTotal(t, s, err, 14)
	if s.Workers != 2 {
		t.Errorf("workers = %d, want 2 (the late joiner attached)", s.Workers)
	}
	if errs := wait(); errs[0] != nil {
		t.Errorf("late joiner: %v", errs[0])
	}
}

// TestDuplicateLateUnknownResults sends misbehaving results by hand: they
// are dropped, mismatches are counted as conflicts, the total stays exact.
func TestDuplicateLateUnknownResults(t *testing.T) {
	checkLeaks(t)
	ctx := context.Background()
	clock := newFakeClock()
	cfg := testConfig(9, 0)
	cfg.clock = clock
	cfg.SweepInterval = 5 * time.Millisecond
	r := startJob(t, ctx, cfg)

	outcome := func(c *rawClient) nqueenspb.Ack_Outcome {
		t.Helper()
		return c.next("ack").GetAck().GetOutcome()
	}
	slow, fast := dialRaw(t, r.addr), dialRaw(t, r.addr)

	// slow takes the first task and lets its lease expire.
	slow.ready(1)
	a := slow.next("assign").GetAssign()
	clock.Advance(cfg.Lease + time.Second)
	slow.next("cancel")
	// fast gets the same task (front of the queue) and commits it.
	fast.ready(1)
	b := fast.next("assign").GetAssign()
	if b.GetTaskId().GetIndex() != a.GetTaskId().GetIndex() {
		t.Fatalf("expired task %d was not re-leased first (got %d)", a.GetTaskId().GetIndex(), b.GetTaskId().GetIndex())
	}
	good := countResult(t, b)
	fast.result(good)
	if got := outcome(fast); got != nqueenspb.Ack_OUTCOME_COMMITTED {
		t.Fatalf("first result: %v, want COMMITTED", got)
	}
	// A duplicate of the committed result.
	fast.result(good)
	if got := outcome(fast); got != nqueenspb.Ack_OUTCOME_DUPLICATE {
		t.Errorf("duplicate: %v, want DUPLICATE", got)
	}
	// The slow worker's late result, equal and then wrong.
	late := countResult(t, a)
	slow.result(late)
	if got := outcome(slow); got != nqueenspb.Ack_OUTCOME_DUPLICATE {
		t.Errorf("late equal result: %v, want DUPLICATE", got)
	}
	late.Total++
	slow.result(late)
	if got := outcome(slow); got != nqueenspb.Ack_OUTCOME_CONFLICT {
		t.Errorf("late wrong result: %v, want CONFLICT", got)
	}
	// Unknown tasks: another plan, an index out of range, a task never leased.
	for _, id := range []*nqueenspb.TaskId{
		{PlanFingerprint: b.GetTaskId().GetPlanFingerprint() + 1, Index: 1},
		{PlanFingerprint: b.GetTaskId().GetPlanFingerprint(), Index: 1 << 30},
		{PlanFingerprint: b.GetTaskId().GetPlanFingerprint(), Index: b.GetTaskId().GetIndex() + 1},
	} {
		fast.result(&nqueenspb.Result{TaskId: id, LeaseId: b.GetLeaseId(), Total: 1})
		if got := outcome(fast); got != nqueenspb.Ack_OUTCOME_REJECTED {
			t.Errorf("result for task %v: %v, want REJECTED", id, got)
		}
	}
	wait := startWorkers(ctx, r.addr)
	s, err := r.wait(t)
	checkTotal(t, s, err, 9)
	if s.Conflicts != 1 || s.Duplicates != 2 || s.Rejected != 3 {
		t.Errorf("conflicts %d, duplicates %d, rejected %d; want 1, 2, 3", s.Conflicts, s.Duplicates, s.Rejected)
	}
	wait()
}

// TestRetryCap: a task whose solver fails on MaxAttempts distinct workers
// fails the job with a clear error instead of looping; failures on one
// worker alone do not (that worker may be what is broken).
func TestRetryCap(t *testing.T) {
	checkLeaks(t)
	cfg := testConfig(8, 0)
	cfg.MaxAttempts = 2
	r := startJob(t, context.Background(), cfg)
	one := dialRawNamed(t, r.addr, "one")
	one.ready(1)
	var task uint32
	for i := range 3 { // one worker failing again and again: the task comes back
		a := one.next("assign").GetAssign()
		if i > 0 && a.GetTaskId().GetIndex() != task {
			t.Fatalf("attempt %d got task %d, want task %d again (front of the queue)", i, a.GetTaskId().GetIndex(), task)
		}
		task = a.GetTaskId().GetIndex()
		one.result(&nqueenspb.Result{TaskId: a.GetTaskId(), LeaseId: a.GetLeaseId(), Failure: "disk on fire"})
		one.next("ack")
		if i < 2 {
			one.ready(1)
		}
	}
	two := dialRawNamed(t, r.addr, "two")
	two.ready(1)
	a := two.next("assign").GetAssign()
	two.result(&nqueenspb.Result{TaskId: a.GetTaskId(), LeaseId: a.GetLeaseId(), Failure: "disk on fire"})
	s, err := r.wait(t)
	if err == nil || !strings.Contains(err.Error(), "failed on 2 workers") || !strings.Contains(err.Error(), "disk on fire") {
		t.Fatalf("Run = %v, want a retry cap error naming the failure", err)
	}
	if s.Complete {
		t.Error("a failed job reports complete")
	}
}

// TestInterrupt: cancelling the context drains the workers and returns a
// partial summary.
func TestInterrupt(t *testing.T) {
	checkLeaks(t)
	ctx, cancel := context.WithCancel(context.Background())
	cfg := testConfig(14, 2)
	cfg.Depth = 5
	r := startJob(t, ctx, cfg)
	waitFor(t, "some progress", func() bool { return func() bool { d, _ := r.committed(); return d > 0 }() })
	cancel()
	s, err := r.wait(t)
	if !errors.Is(err, ErrInterrupted) {
		t.Fatalf("Run = %v, want ErrInterrupted", err)
	}
	if s.Complete || s.Committed == 0 || !strings.Contains(s.Human(), "PARTIAL") {
		t.Errorf("summary %+v / %q: want a partial summary", s, s.Human())
	}
}

// listTo makes cfg list its solutions into the file at path.
func listTo(t *testing.T, cfg *Config, path string, f render.Format) {
	t.Helper()
	sink, err := render.Open(render.Options{N: cfg.N, Format: f, SolutionsPath: path, Unique: cfg.Unique})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Sink = sink
}

// checkListing fails the test unless the file at path holds the
// single-threaded backtracker's listing of the n-board, byte for byte.
func checkListing(t *testing.T, path string, n int, unique bool, f render.Format) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := sequential(t, n, unique, f); !bytes.Equal(got, want) {
		t.Errorf("n=%d unique=%v %s: the cluster's listing (%d bytes) differs from the sequential one (%d bytes)", n, unique, f, len(got), len(want))
	}
}

// sequential renders the single-threaded backtracker's listing.
func sequential(t *testing.T, n int, unique bool, f render.Format) []byte {
	t.Helper()
	var buf bytes.Buffer
	seq := solver.Solutions(n, nil)
	if unique {
		seq = solver.UniqueSolutions(n, nil)
	}
	for cols := range seq {
		if err := render.WriteText(&buf, f, cols); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

// TestSolutionsOrder: the listing through three workers equals the
// sequential order byte for byte, whatever order tasks finish in.
func TestSolutionsOrder(t *testing.T) {
	checkLeaks(t)
	dir := t.TempDir()
	for _, tc := range []struct {
		n       int
		unique  bool
		format  render.Format
		records bool // the byte records of boards above 16
	}{
		{10, false, render.Cols, false},
		{10, false, render.Cols, true},
		{9, true, render.Board, false},
		{9, true, render.Cols, true},
		{6, false, render.Coords, false},
		{3, false, render.Cols, false},
	} {
		cfg := testConfig(tc.n, 3)
		cfg.testRecords = tc.records
		cfg.Unique = tc.unique
		out := filepath.Join(dir, "out.txt")
		listTo(t, &cfg, out, tc.format)
		cfg.SpillDir = dir
		s := runJob(t, cfg)
		if tc.records {
			t.Logf("n=%d unique=%v: the byte records of boards above 16", tc.n, tc.unique)
		}
		checkListing(t, out, tc.n, tc.unique, tc.format)
		if s.Solutions != known[tc.n].total || s.Unique != known[tc.n].unique {
			t.Errorf("n=%d: %d solutions %d fundamental, want %d %d", tc.n, s.Solutions, s.Unique, known[tc.n].total, known[tc.n].unique)
		}
		left, _ := filepath.Glob(filepath.Join(dir, "nqueens-spill-*"))
		if len(left) > 0 {
			t.Errorf("spill folders left behind: %v", left)
		}
	}
}

// TestSolutionsRetriedAttempt: an attempt cut off after streaming part of
// its solutions is never published; the listing stays exact.
func TestSolutionsRetriedAttempt(t *testing.T) {
	checkLeaks(t)
	dir := t.TempDir()
	cfg := testConfig(8, 0)
	out := filepath.Join(dir, "out.txt")
	listTo(t, &cfg, out, render.Cols)
	r := startJob(t, context.Background(), cfg)
	c := dialRaw(t, r.addr)
	c.ready(1)
	a := c.next("assign").GetAssign()
	if !a.GetWantSolutions() {
		t.Fatal("assign does not ask for solutions")
	}
	// Stream a valid first batch of the task, then vanish.
	var packed []byte
	var count uint32
	prefix := make([]int, len(a.GetPrefix()))
	for i, p := range a.GetPrefix() {
		prefix[i] = int(p)
	}
	for cols := range solver.Solutions(8, prefix) {
		for _, x := range cols {
			packed = append(packed, byte(x))
		}
		count++
		break
	}
	if count > 0 {
		c.send(&nqueenspb.WorkRequest{Msg: &nqueenspb.WorkRequest_SolutionBatch{SolutionBatch: &nqueenspb.SolutionBatch{
			TaskId: a.GetTaskId(), LeaseId: a.GetLeaseId(), Count: count, Packed: packed}}})
	}
	c.close()
	wait := startWorkers(context.Background(), r.addr, r.addr)
	s, err := r.wait(t)
	checkTotal(t, s, err, 8)
	wait()
	checkListing(t, out, 8, false, render.Cols)
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	lines := 0
	for sc := bufio.NewScanner(bytes.NewReader(got)); sc.Scan(); {
		lines++
	}
	if lines != 92 {
		t.Errorf("%d lines, want 92", lines)
	}
}

// TestBadConfig: bad requests are FieldErrors (usage errors) naming the
// field, before anything starts.
func TestBadConfig(t *testing.T) {
	for _, tc := range []struct {
		name       string
		edit       func(*Config)
		field, msg string
	}{
		{"n too large", func(c *Config) { c.N = 33 }, "N", "33 out of range 1..32"},
		{"n zero", func(c *Config) { c.N = 0 }, "N", "0 out of range 1..32"},
		{"depth", func(c *Config) { c.Depth = 9 }, "Depth", "9 out of range: for n=8 it must be 0..7"},
		{"listen", func(c *Config) { c.Listen = "8080" }, "Listen", `"8080": want HOST:PORT`},
		{"verify range", func(c *Config) { c.VerifyFraction = 1.5 }, "VerifyFraction", "1.5 out of range 0..1"},
		{"heartbeat", func(c *Config) { c.Heartbeat = c.Lease }, "Heartbeat", "30s must be shorter than the lease 30s"},
	} {
		cfg := testConfig(8, 1)
		tc.edit(&cfg)
		_, err := Run(context.Background(), cfg, nil)
		var fe *FieldError
		if !errors.Is(err, ErrUsage) || !errors.As(err, &fe) || fe.Field != tc.field || !strings.HasPrefix(fe.Msg, tc.msg) {
			t.Errorf("%s: Run = %v, want a FieldError %s %q", tc.name, err, tc.field, tc.msg)
		}
	}
}

// TestPortInUse: a taken port is a run error, not a panic.
func TestPortInUse(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer lis.Close()
	cfg := testConfig(8, 1)
	cfg.Listen = lis.Addr().String()
	_, err = Run(context.Background(), cfg, nil)
	if err == nil || errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), "address already in use") {
		t.Errorf("Run on a taken port = %v, want a run error", err)
	}
}
