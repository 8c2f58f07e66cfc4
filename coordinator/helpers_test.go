package coordinator

import (
	"context"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/nqueens/nqueens/internal/leaktest"
	nqueenspb "github.com/nqueens/nqueens/proto/nqueens/v1"
	"github.com/nqueens/nqueens/solver"
)

// checkLeaks fails the test if goroutines started during it outlive it.
func checkLeaks(t *testing.T) {
	t.Helper()
	leaktest.Check(t)
}

// fakeClock is a Clock that moves only when told.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{now: time.Unix(1_000_000, 0)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// runningJob is a coordinator job started in the background.
type runningJob struct {
	addr string
	job  *Job
	done chan struct{}
	sum  Summary
	err  error
}

// startJob runs cfg in the background and returns once it listens.
func startJob(t *testing.T, ctx context.Context, cfg Config) *runningJob {
	t.Helper()
	return startJobLog(t, ctx, cfg, hclog.NewNullLogger())
}

// startJobLog is startJob with a logger.
func startJobLog(t *testing.T, ctx context.Context, cfg Config, log hclog.Logger) *runningJob {
	t.Helper()
	j, err := New(cfg, log)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	r := &runningJob{done: make(chan struct{}), job: j, addr: j.Addr()}
	go func() {
		defer close(r.done)
		r.sum, r.err = j.Run(ctx)
	}()
	return r
}

// committed is how many tasks the job has committed so far, of how many.
func (r *runningJob) committed() (done, total int) {
	st := r.job.Status()
	return st.Summary.Committed, st.Summary.Tasks
}

// wait waits for the job to end.
func (r *runningJob) wait(t *testing.T) (Summary, error) {
	t.Helper()
	select {
	case <-r.done:
	case <-time.After(runTimeout):
		t.Fatal("job did not end")
	}
	return r.sum, r.err
}

// waitFor polls cond until it holds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(eventTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// bridge is a TCP proxy between a worker and the coordinator that a test
// can cut abruptly, like a network failure (after etcd's integration
// bridge).
type bridge struct {
	lis    net.Listener
	target string
	mu     sync.Mutex
	conns  []net.Conn
	wg     sync.WaitGroup
}

func newBridge(t *testing.T, target string) *bridge {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	b := &bridge{lis: lis, target: target}
	b.wg.Add(1)
	go b.accept()
	t.Cleanup(b.cut)
	return b
}

func (b *bridge) addr() string { return b.lis.Addr().String() }

func (b *bridge) accept() {
	defer b.wg.Done()
	for {
		in, err := b.lis.Accept()
		if err != nil {
			return
		}
		out, err := net.Dial("tcp", b.target)
		if err != nil {
			in.Close()
			continue
		}
		b.mu.Lock()
		b.conns = append(b.conns, in, out)
		b.mu.Unlock()
		b.wg.Add(2)
		go func() { defer b.wg.Done(); io.Copy(out, in); out.Close() }()
		go func() { defer b.wg.Done(); io.Copy(in, out); in.Close() }()
	}
}

// cut closes the listener and resets every connection.
func (b *bridge) cut() {
	b.lis.Close()
	b.mu.Lock()
	for _, c := range b.conns {
		if tc, ok := c.(*net.TCPConn); ok {
			tc.SetLinger(0)
		}
		c.Close()
	}
	b.conns = nil
	b.mu.Unlock()
	b.wg.Wait()
}

// rawClient speaks the wire protocol by hand, to misbehave on purpose.
type rawClient struct {
	t      *testing.T
	conn   *grpc.ClientConn
	join   *nqueenspb.JoinResponse
	stream nqueenspb.CoordinatorService_WorkClient
	msgs   chan *nqueenspb.WorkResponse
	cancel context.CancelFunc
	done   chan struct{}
	err    error // why the stream ended; read after done closed
}

// dialRaw joins addr and opens a Work stream with no credits.
func dialRaw(t *testing.T, addr string) *rawClient {
	t.Helper()
	return dialRawNamed(t, addr, "raw")
}

// dialRawNamed is dialRaw for a worker of the given name.
func dialRawNamed(t *testing.T, addr, name string) *rawClient {
	t.Helper()
	return dialRawWith(t, addr, name, false)
}

// dialRawWith is dialRawNamed for a worker that says, with runs, that it
// takes runs of tasks.
func dialRawWith(t *testing.T, addr, name string, runs bool) *rawClient {
	t.Helper()
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	c := nqueenspb.NewCoordinatorServiceClient(conn)
	ctx, cancel := context.WithTimeout(context.Background(), eventTimeout)
	defer cancel()
	jr, err := c.Join(ctx, &nqueenspb.JoinRequest{Name: name, Slots: 1, SolverVersion: solver.Version})
	if err != nil {
		t.Fatalf("Join: %v", err)
	}
	sctx, scancel := context.WithCancel(context.Background())
	stream, err := c.Work(sctx)
	if err != nil {
		t.Fatalf("Work: %v", err)
	}
	r := &rawClient{t: t, conn: conn, join: jr, stream: stream, msgs: make(chan *nqueenspb.WorkResponse, 1024), cancel: scancel, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		defer close(r.msgs)
		for {
			m, err := stream.Recv()
			if err != nil {
				r.err = err
				return
			}
			r.msgs <- m
			if m.GetDrain() != nil {
				stream.CloseSend()
			}
		}
	}()
	r.send(&nqueenspb.WorkRequest{Msg: &nqueenspb.WorkRequest_Ready{Ready: &nqueenspb.Ready{WorkerId: jr.GetWorkerId(), Runs: runs}}})
	t.Cleanup(r.close)
	return r
}

func (r *rawClient) send(m *nqueenspb.WorkRequest) {
	r.t.Helper()
	if err := r.stream.Send(m); err != nil {
		r.t.Fatalf("send: %v", err)
	}
}

func (r *rawClient) ready(credits uint32) {
	r.send(&nqueenspb.WorkRequest{Msg: &nqueenspb.WorkRequest_Ready{Ready: &nqueenspb.Ready{Credits: credits}}})
}

func (r *rawClient) result(res *nqueenspb.Result) {
	r.send(&nqueenspb.WorkRequest{Msg: &nqueenspb.WorkRequest_Result{Result: res}})
}

// next returns the next message of the wanted kind ("assign", "cancel",
// "ack", "drain"), skipping others.
func (r *rawClient) next(kind string) *nqueenspb.WorkResponse {
	r.t.Helper()
	return r.nextOf(kind)
}

// nextOf returns the next message of any of the wanted kinds, skipping
// others.
func (r *rawClient) nextOf(kinds ...string) *nqueenspb.WorkResponse {
	r.t.Helper()
	timeout := time.After(eventTimeout)
	for {
		select {
		case m, ok := <-r.msgs:
			if !ok {
				r.t.Fatalf("stream ended while waiting for %s", strings.Join(kinds, " or "))
			}
			for _, kind := range kinds {
				if strings.Contains(strings.ToLower(typeName(m)), kind) {
					return m
				}
			}
		case <-timeout:
			r.t.Fatalf("timed out waiting for %s", strings.Join(kinds, " or "))
		}
	}
}

func typeName(m *nqueenspb.WorkResponse) string {
	switch m.GetMsg().(type) {
	case *nqueenspb.WorkResponse_Assign:
		return "assign"
	case *nqueenspb.WorkResponse_Cancel:
		return "cancel"
	case *nqueenspb.WorkResponse_Ack:
		return "ack"
	case *nqueenspb.WorkResponse_Drain:
		return "drain"
	}
	return "unknown"
}

func (r *rawClient) close() {
	r.cancel()
	<-r.done
	r.conn.Close()
}

// countResult computes an assigned count task honestly.
func countResult(t *testing.T, a *nqueenspb.Assign) *nqueenspb.Result {
	t.Helper()
	prefix := make([]int, len(a.GetPrefix()))
	for i, c := range a.GetPrefix() {
		prefix[i] = int(c)
	}
	c, err := solver.CountTask(int(a.GetN()), solver.Task{Index: int(a.GetTaskId().GetIndex()), Prefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	return &nqueenspb.Result{TaskId: a.GetTaskId(), LeaseId: a.GetLeaseId(), Total: c.Total, Unique: c.Unique, Nodes: c.Nodes}
}
