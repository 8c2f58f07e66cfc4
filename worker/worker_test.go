package worker_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/nqueens/nqueens/coordinator"
	"github.com/nqueens/nqueens/internal/leaktest"
	"github.com/nqueens/nqueens/internal/version"
	nqueenspb "github.com/nqueens/nqueens/proto/nqueens/v1"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/worker"
)

// Named timeouts.
const (
	jobTimeout   = 60 * time.Second // one small job
	eventTimeout = 20 * time.Second // one expected event
)

// TestUnreachable: a worker whose coordinator is down retries with
// back-off for --join-timeout, says at Info what it is waiting for (once
// within the first few seconds, however many attempts), and then fails
// naming the address.
func TestUnreachable(t *testing.T) {
	checkLeaks(t)
	logs := newLogWatch()
	start := time.Now()
	err := worker.Run(context.Background(), worker.Config{Join: "127.0.0.1:1", Slots: 1, JoinTimeout: 1500 * time.Millisecond}, logs.logger())
	if !errors.Is(err, worker.ErrJoin) || errors.Is(err, worker.ErrRefused) || !strings.Contains(err.Error(), "127.0.0.1:1 within 1.5s") {
		t.Errorf("Run against a closed port = %v, want ErrJoin naming the address and the timeout", err)
	}
	if d := time.Since(start); d < time.Second || d > eventTimeout {
		t.Errorf("gave up after %v; --join-timeout was 1.5s", d)
	}
	waits := grepLines(logs.String(), "[INFO]  worker: waiting for coordinator: addr=127.0.0.1:1 attempt=1 error=")
	if tries := len(grepLines(logs.String(), "join failed; retrying")); len(waits) != 1 || tries < 3 {
		t.Errorf("%d info lines \"waiting for coordinator\" for attempt 1 and %d retries in 1.5s; want 1 (at most one per %v) and at least 3 (100 ms back-off, doubling). The log:\n%s",
			len(waits), tries, 5*time.Second, logs)
	}
}

// jobResult is what a coordinator job ended with.
type jobResult struct {
	s   coordinator.Summary
	err error
}

// runCoordinator runs cfg's job in the background until ctx ends, and
// returns the address workers join and where its result arrives.
func runCoordinator(t *testing.T, ctx context.Context, cfg coordinator.Config) (string, <-chan jobResult) {
	t.Helper()
	job, err := coordinator.New(cfg, hclog.NewNullLogger())
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan jobResult, 1)
	go func() {
		s, err := job.Run(ctx)
		done <- jobResult{s, err}
	}()
	return job.Addr(), done
}

// TestVersionRefused: a real coordinator refuses a worker of another
// solver version with FailedPrecondition naming both versions and both
// builds; the worker logs the refusal at Error and stops at once with
// ErrRefused (no retries until --join-timeout), and gets no lease.
func TestVersionRefused(t *testing.T) {
	cfg := coordinator.NewConfig(8)
	cfg.Workers = 0
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	addr, done := runCoordinator(t, ctx, cfg)

	build := version.Get().String()
	want := fmt.Sprintf("worker solver version %d (build %s) != coordinator solver version %d (build %s)", solver.Version+1, build, solver.Version, build)
	restore := worker.SetSolverVersion(solver.Version + 1)
	logs := newLogWatch()
	start := time.Now()
	err := worker.Run(context.Background(), worker.Config{Join: addr, Slots: 1, JoinTimeout: eventTimeout}, logs.logger())
	restore()
	if !errors.Is(err, worker.ErrJoin) || !errors.Is(err, worker.ErrRefused) || !strings.HasSuffix(err.Error(), want) {
		t.Errorf("Run with solver version %d = %v\nwant ErrJoin and ErrRefused ending in %q", solver.Version+1, err, want)
	}
	if d := time.Since(start); d > eventTimeout/2 {
		t.Errorf("refused after %v: FailedPrecondition must not be retried", d)
	}
	if got := grepLines(logs.String(), "[ERROR] worker: join refused: addr="+addr+" code=FailedPrecondition error=\""+want+"\""); len(got) != 1 {
		t.Errorf("want one error line naming both versions; the log:\n%s", logs)
	}

	// The coordinator names the build the worker said it runs, and refuses
	// one too long to quote.
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	client := nqueenspb.NewCoordinatorServiceClient(conn)
	rctx, rcancel := context.WithTimeout(context.Background(), eventTimeout)
	defer rcancel()
	for _, tc := range []struct {
		build string
		code  codes.Code
		want  string
	}{
		{"v9.9.9 (rev abc) solver 2 go1.1", codes.FailedPrecondition, "worker solver version 2 (build v9.9.9 (rev abc) solver 2 go1.1) != coordinator solver version"},
		{"", codes.FailedPrecondition, "worker solver version 2 (build unknown) != coordinator solver version"},
		{strings.Repeat("v", 257), codes.InvalidArgument, "build version of 257 bytes, at most 256"},
	} {
		_, err := client.Join(rctx, &nqueenspb.JoinRequest{Slots: 1, SolverVersion: 2, BuildVersion: tc.build})
		if status.Code(err) != tc.code || !strings.Contains(status.Convert(err).Message(), tc.want) {
			t.Errorf("Join(build %.20q) = %v, want %v %q", tc.build, err, tc.code, tc.want)
		}
	}
	cancel()
	if s := (<-done).s; s.Workers != 0 || s.Leased != 0 {
		t.Errorf("refused workers got work: %+v", s)
	}
}

func TestBadConfig(t *testing.T) {
	for _, c := range []worker.Config{{}, {Join: "x:1", Slots: -1}, {Join: "x:1", JoinTimeout: -time.Second}} {
		if err := worker.Run(context.Background(), c, nil); err == nil || errors.Is(err, worker.ErrJoin) {
			t.Errorf("Run(%+v) = %v, want a config error", c, err)
		}
	}
}

// TestStopHandsLeasesBack stops a worker mid-run: it returns promptly,
// hands its leases back, and another worker finishes the exact count.
func TestStopHandsLeasesBack(t *testing.T) {
	// N=16 keeps one worker busy for over a second even without -race, so
	// the job is surely still running when the first worker stops.
	cfg := coordinator.NewConfig(16)
	cfg.Workers, cfg.Depth = 0, 4
	addr, done := runCoordinator(t, context.Background(), cfg)

	ctx, stop := context.WithCancel(context.Background())
	stopped := make(chan error, 1)
	logs := newLogWatch()
	go func() {
		stopped <- worker.Run(ctx, worker.Config{Join: addr, Slots: 2, Name: "stopped"}, logs.logger())
	}()
	logs.wait(t, "task leased") // it holds a lease now: stop it
	stop()
	select {
	case err := <-stopped:
		if err != nil {
			t.Errorf("stopped worker: %v", err)
		}
	case <-time.After(eventTimeout):
		t.Fatal("worker did not stop")
	}
	finisher := make(chan error, 1)
	go func() {
		finisher <- worker.Run(context.Background(), worker.Config{Join: addr, Slots: 2, Name: "finisher"}, hclog.NewNullLogger())
	}()
	var r jobResult
	select {
	case r = <-done:
	case <-time.After(jobTimeout):
		t.Fatal("job did not end")
	}
	if r.err != nil || r.s.Solutions != 14772512 || r.s.Unique != 1846955 {
		t.Fatalf("job = %+v, %v; want 14772512 solutions, 1846955 fundamental", r.s, r.err)
	}
	// The stopped worker held leases: it handed them back (Requeued), none
	// expired, and each went out once more.
	if r.s.Requeued == 0 || r.s.Expired != 0 || r.s.Leased != uint64(r.s.Tasks)+r.s.Requeued {
		t.Errorf("requeued %d, expired %d, leased %d of %d tasks; want requeued >= 1 (the stopped worker's leases handed back), expired 0 and leased = tasks + requeued",
			r.s.Requeued, r.s.Expired, r.s.Leased, r.s.Tasks)
	}
	if err := <-finisher; err != nil {
		t.Errorf("finishing worker: %v", err)
	}
}

func TestServeHealth(t *testing.T) {
	h, err := worker.ServeHealth("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	conn, err := grpc.NewClient(h.Addr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), eventTimeout)
	defer cancel()
	resp, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{})
	if err != nil || resp.GetStatus() != healthpb.HealthCheckResponse_SERVING {
		t.Errorf("health Check = %v, %v; want SERVING", resp.GetStatus(), err)
	}
}

// TestWorkerStartsFirst: a worker started before its coordinator keeps
// retrying within --join-timeout and joins once the coordinator listens.
func TestWorkerStartsFirst(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // free again: nothing listens there yet
	errc := make(chan error, 1)
	logs := newLogWatch()
	go func() {
		errc <- worker.Run(context.Background(), worker.Config{Join: addr, Slots: 1, JoinTimeout: eventTimeout}, logs.logger())
	}()
	logs.wait(t, "waiting for coordinator: addr="+addr) // it tried before the coordinator listens
	cfg := coordinator.NewConfig(9)
	cfg.Workers, cfg.Listen = 0, addr
	ctx, cancel := context.WithTimeout(context.Background(), jobTimeout)
	defer cancel()
	s, err := coordinator.Run(ctx, cfg, hclog.NewNullLogger())
	if err != nil || s.Solutions != 352 {
		t.Fatalf("job = %d solutions, %v; want 352", s.Solutions, err)
	}
	if err := <-errc; err != nil {
		t.Errorf("early worker: %v", err)
	}
}

// cuttingCoordinator accepts every Join and ends every Work stream with
// one status, as the coordinator does to a worker that breaks a limit.
type cuttingCoordinator struct {
	nqueenspb.UnimplementedCoordinatorServiceServer
	code     codes.Code
	joins    atomic.Int32
	rejoined chan struct{} // closed at the second Join
}

func (c *cuttingCoordinator) Join(context.Context, *nqueenspb.JoinRequest) (*nqueenspb.JoinResponse, error) {
	if c.joins.Add(1) == 2 {
		close(c.rejoined)
	}
	return &nqueenspb.JoinResponse{WorkerId: "w1", Job: &nqueenspb.Job{N: 8, Tasks: 1},
		Lease: durationpb.New(time.Minute), HeartbeatInterval: durationpb.New(time.Second)}, nil
}

func (c *cuttingCoordinator) Work(stream nqueenspb.CoordinatorService_WorkServer) error {
	if _, err := stream.Recv(); err != nil {
		return err
	}
	return status.Error(c.code, "too many messages")
}

// TestRefusedStreamStops: a worker whose Work stream the coordinator ends
// with ResourceExhausted stops with ErrRefused after one Join, while one
// cut off by Unavailable joins again.
func TestRefusedStreamStops(t *testing.T) {
	checkLeaks(t) // Run ends every goroutine of its sessions
	for _, tc := range []struct {
		code    codes.Code
		refused bool
	}{
		{codes.ResourceExhausted, true},
		{codes.InvalidArgument, true},
		{codes.Unavailable, false},
	} {
		lis, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		srv := grpc.NewServer()
		fake := &cuttingCoordinator{code: tc.code, rejoined: make(chan struct{})}
		nqueenspb.RegisterCoordinatorServiceServer(srv, fake)
		go srv.Serve(lis)
		// A worker that joins again is stopped by its context once it
		// has; one that stops by itself must do so before the timeout.
		ctx, cancel := context.WithTimeout(context.Background(), eventTimeout)
		go func() {
			select {
			case <-fake.rejoined:
				cancel()
			case <-ctx.Done():
			}
		}()
		err = worker.Run(ctx, worker.Config{Join: lis.Addr().String(), Slots: 1, JoinTimeout: eventTimeout}, hclog.NewNullLogger())
		timedOut := errors.Is(ctx.Err(), context.DeadlineExceeded)
		cancel()
		srv.Stop()
		if timedOut {
			t.Errorf("stream ended with %v: Run still running after %v (%d joins)", tc.code, eventTimeout, fake.joins.Load())
			continue
		}
		switch {
		case tc.refused && (!errors.Is(err, worker.ErrRefused) || fake.joins.Load() != 1):
			t.Errorf("stream ended with %v: Run = %v after %d joins, want ErrRefused after 1", tc.code, err, fake.joins.Load())
		case !tc.refused && (err != nil || fake.joins.Load() < 2):
			t.Errorf("stream ended with %v: Run = %v after %d joins, want nil (stopped by its context) after joining again", tc.code, err, fake.joins.Load())
		}
	}
}

// idleJoins makes n Joins that never open a Work stream, in parallel so
// that the first do not expire before the last.
func idleJoins(t *testing.T, ctx context.Context, client nqueenspb.CoordinatorServiceClient, n int) {
	t.Helper()
	const parallel = 32
	var wg sync.WaitGroup
	var failed atomic.Int32
	for g := range parallel {
		wg.Go(func() {
			for range n / parallel {
				if _, err := client.Join(ctx, &nqueenspb.JoinRequest{Name: fmt.Sprint("idle", g), Slots: 1, SolverVersion: solver.Version}); err != nil {
					failed.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if f := failed.Load(); f > 0 {
		t.Fatalf("%d of %d idle Joins failed", f, n)
	}
}

// checkLeaks fails the test if goroutines it started outlive it
// (leaktest.Check).
func checkLeaks(t *testing.T) {
	t.Helper()
	leaktest.Check(t)
}

// grepLines returns the lines of text that contain s.
func grepLines(text, s string) []string {
	var out []string
	for line := range strings.Lines(text) {
		if strings.Contains(line, s) {
			out = append(out, line)
		}
	}
	return out
}

// logWatch is a logger's output that a test can wait on: it keeps every
// line and tells when one containing a given text has been written.
type logWatch struct {
	mu    sync.Mutex
	text  strings.Builder
	waits []logWait
}

type logWait struct {
	text string
	seen chan struct{}
}

func newLogWatch() *logWatch { return &logWatch{} }

// logger is a Debug-level logger that writes to w.
func (w *logWatch) logger() hclog.Logger {
	return hclog.New(&hclog.LoggerOptions{Name: "worker", Level: hclog.Debug, Output: w})
}

func (w *logWatch) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.text.Write(p)
	kept := w.waits[:0]
	for _, lw := range w.waits {
		if strings.Contains(string(p), lw.text) {
			close(lw.seen)
		} else {
			kept = append(kept, lw)
		}
	}
	w.waits = kept
	return len(p), nil
}

// seen returns a channel closed once a line containing text is written
// (at once if one was).
func (w *logWatch) seen(text string) <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	c := make(chan struct{})
	if strings.Contains(w.text.String(), text) {
		close(c)
	} else {
		w.waits = append(w.waits, logWait{text, c})
	}
	return c
}

// wait fails the test unless a line containing text is written within
// eventTimeout.
func (w *logWatch) wait(t *testing.T, text string) {
	t.Helper()
	select {
	case <-w.seen(text):
	case <-time.After(eventTimeout):
		t.Fatalf("no log line with %q within %v; the log:\n%s", text, eventTimeout, w.String())
	}
}

// String is everything logged so far.
func (w *logWatch) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.text.String()
}

// TestFullCoordinator: a coordinator full of Joins that
// never open a Work stream refuses a real worker for capacity, with
// ResourceExhausted; the worker retries with back-off instead of exiting,
// the unattached Joins expire within seconds (the coordinator's
// attachTimeout, 5 s, well under the 30 s lease), and the worker then
// joins and finishes the exact count alone.
func TestFullCoordinator(t *testing.T) {
	const maxSessions = 1024 // the coordinator's bound on joined workers, lowered to fill it fast
	cfg := coordinator.NewConfig(9)
	cfg.MaxWorkers = maxSessions
	cfg.Workers = 0
	addr, done := runCoordinator(t, context.Background(), cfg)

	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	client := nqueenspb.NewCoordinatorServiceClient(conn)
	ctx, cancel := context.WithTimeout(context.Background(), eventTimeout)
	defer cancel()
	filled := time.Now()
	idleJoins(t, ctx, client, maxSessions)
	fill := time.Since(filled)
	_, err = client.Join(ctx, &nqueenspb.JoinRequest{Slots: 1, SolverVersion: solver.Version})
	if status.Code(err) != codes.ResourceExhausted || !strings.Contains(err.Error(), "coordinator full") {
		t.Fatalf("Join %d = %v (after filling in %v), want ResourceExhausted \"coordinator full\"", maxSessions+1, err, fill)
	}

	logs := newLogWatch()
	werr := make(chan error, 1)
	go func() {
		werr <- worker.Run(context.Background(), worker.Config{Join: addr, Slots: 2, Name: "late", JoinTimeout: 30 * time.Second}, logs.logger())
	}()
	logs.wait(t, "waiting for coordinator: addr="+addr+" attempt=1 error=\"coordinator full")
	logs.wait(t, "joined coordinator")
	joined := time.Since(filled)
	var r jobResult
	select {
	case r = <-done:
	case <-time.After(jobTimeout):
		t.Fatal("job did not end")
	}
	if r.err != nil || r.s.Solutions != 352 || r.s.Unique != 46 {
		t.Fatalf("job = %+v, %v; want 352 solutions, 46 fundamental", r.s, r.err)
	}
	if r.s.Workers != 1 || r.s.Leased != uint64(r.s.Tasks) || r.s.Requeued != 0 || r.s.Committed != r.s.Tasks {
		t.Errorf("workers %d, leased %d, committed %d of %d tasks, requeued %d; want 1 worker that leased and committed each task once",
			r.s.Workers, r.s.Leased, r.s.Committed, r.s.Tasks, r.s.Requeued)
	}
	if err := <-werr; err != nil {
		t.Errorf("worker refused for capacity: %v, want nil (it retries, then joins)", err)
	}
	// Expiry after 5 s, found by a sweep within 1 s, joined at the next
	// attempt within 3 s (2 s back-off, +50%): 9 s, with room for a slow
	// machine; a lease (30 s) would be far later.
	if joined > fill+15*time.Second {
		t.Errorf("worker joined %v after the coordinator was full (filled in %v); idle Joins must expire within seconds", joined, fill)
	}
	t.Logf("filled %d sessions in %v; the worker joined %v after the fill began", maxSessions, fill, joined)
}
