package coordinator

import (
	"bytes"
	"context"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/nqueens/nqueens/coordinator/internal/sched"
	"github.com/nqueens/nqueens/coordinator/internal/wire"
	"github.com/nqueens/nqueens/internal/connguard"
	nqueenspb "github.com/nqueens/nqueens/proto/nqueens/v1"
	"github.com/nqueens/nqueens/render"
	"github.com/nqueens/nqueens/solver"
)

// syncBuffer is a log destination that tests may read while the job
// writes.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// bufLogger logs at Debug into a syncBuffer.
func bufLogger() (hclog.Logger, *syncBuffer) {
	b := &syncBuffer{}
	return hclog.New(&hclog.LoggerOptions{Output: b, Level: hclog.Debug}), b
}

// ended waits for a raw client's stream to end and returns its error.
func (r *rawClient) ended() error {
	r.t.Helper()
	for range r.msgs { // drain what came before the end
	}
	<-r.done
	return r.err
}

// TestFloodCutOff: a worker that sends messages faster than
// Config.MessageRate is cut off with ResourceExhausted and a log line; the
// task it held goes back to the queue and the total stays exact.
func TestFloodCutOff(t *testing.T) {
	checkLeaks(t)
	cfg := testConfig(9, 0)
	cfg.MessageRate = 20
	log, logs := bufLogger()
	r := startJobLog(t, context.Background(), cfg, log)
	flood := dialRaw(t, r.addr)
	flood.ready(1)
	a := flood.next("assign").GetAssign()
	for range 1000 {
		// Sends fail once the coordinator has reset the stream.
		if flood.stream.Send(&nqueenspb.WorkRequest{Msg: &nqueenspb.WorkRequest_Heartbeat{Heartbeat: &nqueenspb.Heartbeat{LeaseIds: []uint64{a.GetLeaseId()}}}}) != nil {
			break
		}
	}
	if err := flood.ended(); status.Code(err) != codes.ResourceExhausted || !strings.Contains(err.Error(), "messages per second") {
		t.Errorf("flooding worker's stream ended with %v, want ResourceExhausted naming the rate", err)
	}
	wait := startWorkers(context.Background(), r.addr)
	s, err := r.wait(t)
	checkTotal(t, s, err, 9)
	wait()
	if s.Requeued == 0 {
		t.Errorf("requeued %d: the flooder's lease did not go back", s.Requeued)
	}
	if !strings.Contains(logs.String(), "worker sends too many messages") {
		t.Errorf("no log line for the flood:\n%s", logs)
	}
}

// TestMalformedWork: each message no correct worker sends ends its session
// with InvalidArgument (or ResourceExhausted for a message beyond
// wire.MaxRecvMsgSize) and a log line; the session's task goes back and the job
// still finishes exact.
func TestMalformedWork(t *testing.T) {
	checkLeaks(t)
	cfg := testConfig(8, 0)
	cfg.MaxAttempts = 10 // each refused session counts as a failed attempt of the first task
	log, logs := bufLogger()
	r := startJobLog(t, context.Background(), cfg, log)
	tooMany := make([]uint64, wire.MaxLeaseIDs+1)
	huge := make([]uint64, wire.MaxRecvMsgSize/8+1) // > 4 MiB once encoded
	for i := range huge {
		huge[i] = 1 << 62
	}
	for _, tc := range []struct {
		name string
		msg  func(a *nqueenspb.Assign) *nqueenspb.WorkRequest
		code codes.Code
		want string // in the status message
	}{
		{"result without task id", func(a *nqueenspb.Assign) *nqueenspb.WorkRequest {
			return &nqueenspb.WorkRequest{Msg: &nqueenspb.WorkRequest_Result{Result: &nqueenspb.Result{LeaseId: a.GetLeaseId(), Total: 1}}}
		}, codes.InvalidArgument, "without a task id"},
		{"failure text too long", func(a *nqueenspb.Assign) *nqueenspb.WorkRequest {
			return &nqueenspb.WorkRequest{Msg: &nqueenspb.WorkRequest_Result{Result: &nqueenspb.Result{TaskId: a.GetTaskId(), LeaseId: a.GetLeaseId(), Failure: strings.Repeat("x", wire.MaxFailureBytes+1)}}}
		}, codes.InvalidArgument, "failure text"},
		{"run counts for more than a run", func(a *nqueenspb.Assign) *nqueenspb.WorkRequest {
			return &nqueenspb.WorkRequest{Msg: &nqueenspb.WorkRequest_Result{Result: &nqueenspb.Result{TaskId: a.GetTaskId(), LeaseId: a.GetLeaseId(), RunCounts: make([]uint64, 3*(sched.MaxRun+1))}}}
		}, codes.InvalidArgument, "run counts"},
		{"heartbeat with too many ids", func(a *nqueenspb.Assign) *nqueenspb.WorkRequest {
			return &nqueenspb.WorkRequest{Msg: &nqueenspb.WorkRequest_Heartbeat{Heartbeat: &nqueenspb.Heartbeat{LeaseIds: tooMany}}}
		}, codes.InvalidArgument, "lease ids"},
		{"release with too many ids", func(a *nqueenspb.Assign) *nqueenspb.WorkRequest {
			return &nqueenspb.WorkRequest{Msg: &nqueenspb.WorkRequest_Release{Release: &nqueenspb.Release{LeaseIds: tooMany}}}
		}, codes.InvalidArgument, "lease ids"},
		{"batch in a count job", func(a *nqueenspb.Assign) *nqueenspb.WorkRequest {
			return &nqueenspb.WorkRequest{Msg: &nqueenspb.WorkRequest_SolutionBatch{SolutionBatch: &nqueenspb.SolutionBatch{TaskId: a.GetTaskId(), LeaseId: a.GetLeaseId(), Count: 1, Packed: []byte{0, 4, 7, 5, 2, 6, 1, 3}}}}
		}, codes.InvalidArgument, "asked for no solutions"},
		{"message over the size limit", func(a *nqueenspb.Assign) *nqueenspb.WorkRequest {
			return &nqueenspb.WorkRequest{Msg: &nqueenspb.WorkRequest_Heartbeat{Heartbeat: &nqueenspb.Heartbeat{LeaseIds: huge}}}
		}, codes.ResourceExhausted, "larger than max"},
	} {
		c := dialRaw(t, r.addr)
		c.ready(1)
		a := c.next("assign").GetAssign()
		c.stream.Send(tc.msg(a)) // may fail when the server resets the stream first
		if err := c.ended(); status.Code(err) != tc.code || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: stream ended with %v, want %v and %q", tc.name, err, tc.code, tc.want)
		}
		c.close()
	}
	wait := startWorkers(context.Background(), r.addr)
	s, err := r.wait(t)
	checkTotal(t, s, err, 8)
	wait()
	if got := strings.Count(logs.String(), "malformed work message"); got != 6 {
		t.Errorf("%d log lines for malformed messages, want 6:\n%s", got, logs)
	}
	if s.Committed != s.Tasks || s.Leased < uint64(s.Tasks)+7 {
		t.Errorf("committed %d of %d, leased %d: the refused sessions' tasks were not leased again", s.Committed, s.Tasks, s.Leased)
	}
}

// TestSilentStream: a Work stream that never sends Ready is ended with
// DeadlineExceeded after a lease, and logged.
func TestSilentStream(t *testing.T) {
	checkLeaks(t)
	cfg := testConfig(8, 0)
	cfg.Lease = 300 * time.Millisecond
	log, logs := bufLogger()
	r := startJobLog(t, context.Background(), cfg, log)
	conn, err := grpc.NewClient(r.addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), eventTimeout)
	defer cancel()
	ws, err := nqueenspb.NewCoordinatorServiceClient(conn).Work(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ws.Recv(); status.Code(err) != codes.DeadlineExceeded || !strings.Contains(err.Error(), "no Ready within") {
		t.Errorf("silent Work stream ended with %v, want DeadlineExceeded", err)
	}
	wait := startWorkers(context.Background(), r.addr)
	s, err := r.wait(t)
	checkTotal(t, s, err, 8)
	wait()
	if !strings.Contains(logs.String(), "work stream refused") {
		t.Errorf("no log line for the silent stream:\n%s", logs)
	}
}

// TestJoinLimits: Join refuses a bad slot count, an overlong name, another
// solver version and more workers than the bound, each with its status
// and a log line; a batch listing job refuses a batch whose size does not
// match its count.
func TestJoinLimits(t *testing.T) {
	checkLeaks(t)
	cfg := testConfig(8, 0)
	listTo(t, &cfg, filepath.Join(t.TempDir(), "out.txt"), render.Cols)
	cfg.MaxWorkers = 2
	log, logs := bufLogger()
	r := startJobLog(t, context.Background(), cfg, log)
	conn, err := grpc.NewClient(r.addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	client := nqueenspb.NewCoordinatorServiceClient(conn)
	ctx, cancel := context.WithTimeout(context.Background(), eventTimeout)
	defer cancel()
	for _, tc := range []struct {
		req  *nqueenspb.JoinRequest
		code codes.Code
	}{
		{&nqueenspb.JoinRequest{Slots: wire.MaxSlots + 1, SolverVersion: solver.Version}, codes.InvalidArgument},
		{&nqueenspb.JoinRequest{Slots: 1, SolverVersion: solver.Version, Name: strings.Repeat("n", wire.MaxNameBytes+1)}, codes.InvalidArgument},
		{&nqueenspb.JoinRequest{Slots: 1, SolverVersion: solver.Version + 1}, codes.FailedPrecondition},
	} {
		if _, err := client.Join(ctx, tc.req); status.Code(err) != tc.code {
			t.Errorf("Join(slots %d, name of %d bytes, version %d) = %v, want %v", tc.req.GetSlots(), len(tc.req.GetName()), tc.req.GetSolverVersion(), err, tc.code)
		}
	}
	// Two sessions fit; the third Join is refused while they are joined.
	c := dialRaw(t, r.addr)
	if _, err := client.Join(ctx, &nqueenspb.JoinRequest{Slots: 1, SolverVersion: solver.Version}); err != nil {
		t.Fatalf("second Join: %v", err)
	}
	if _, err := client.Join(ctx, &nqueenspb.JoinRequest{Slots: 1, SolverVersion: solver.Version}); status.Code(err) != codes.ResourceExhausted {
		t.Errorf("third Join with a bound of 2 = %v, want ResourceExhausted", err)
	}
	if got := strings.Count(logs.String(), "join refused"); got != 4 {
		t.Errorf("%d join refusals logged, want 4:\n%s", got, logs)
	}
	// A batch of 9 bytes cannot hold whole solutions of n=8.
	c.ready(1)
	a := c.next("assign").GetAssign()
	c.stream.Send(&nqueenspb.WorkRequest{Msg: &nqueenspb.WorkRequest_SolutionBatch{SolutionBatch: &nqueenspb.SolutionBatch{
		TaskId: a.GetTaskId(), LeaseId: a.GetLeaseId(), Count: 1, Packed: make([]byte, 9)}}})
	if err := c.ended(); status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), "9 bytes for 1 solutions") {
		t.Errorf("mis-sized batch: stream ended with %v, want InvalidArgument", err)
	}
	c.close()
	// The job still finishes once a real worker joins: the refused
	// session's slot freed.
	wait := startWorkers(context.Background(), r.addr)
	s, err := r.wait(t)
	checkTotal(t, s, err, 8)
	wait()
}

// TestConnectionLimit: with every connection taken by idle ones that
// never joined, a Join pushes the oldest out and succeeds at once.
func TestConnectionLimit(t *testing.T) {
	checkLeaks(t)
	cfg := testConfig(6, 0)
	lim := cfg.connLimits()
	lim.Total = 2
	var g *connguard.Guard
	lim.Made = func(made *connguard.Guard) { g = made }
	cfg.testConns = &lim
	r := startJob(t, context.Background(), cfg)
	var idle []net.Conn
	for range 2 {
		c, err := net.Dial("tcp", r.addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		idle = append(idle, c)
	}
	waitFor(t, "both idle connections admitted", func() bool { open, _ := g.Counts(); return open == 2 })
	conn, err := grpc.NewClient(r.addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	client := nqueenspb.NewCoordinatorServiceClient(conn)
	ctx, cancel := context.WithTimeout(context.Background(), eventTimeout)
	defer cancel()
	if _, err := client.Join(ctx, &nqueenspb.JoinRequest{Slots: 1, SolverVersion: solver.Version}); err != nil {
		t.Fatalf("Join with 2 of 2 connections taken by idle ones: %v", err)
	}
	if c0, c1 := closedByPeer(idle[0]), closedByPeer(idle[1]); !c0 || c1 {
		t.Errorf("oldest idle connection closed: %v, the other: %v; want the oldest pushed out, the other kept", c0, c1)
	}
	conn.Close()
	wait := startWorkers(context.Background(), r.addr)
	s, err := r.wait(t)
	checkTotal(t, s, err, 6)
	wait()
}
