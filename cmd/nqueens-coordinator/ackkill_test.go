package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/nqueens/nqueens/journal"
	nqueenspb "github.com/nqueens/nqueens/proto/nqueens/v1"
	"github.com/nqueens/nqueens/solver"
)

// wireWorker is a worker written by hand against the wire protocol, so a
// test controls exactly when each message goes out.
type wireWorker struct {
	t      *testing.T
	conn   *grpc.ClientConn
	job    *nqueenspb.JoinResponse
	stream nqueenspb.CoordinatorService_WorkClient
	cancel context.CancelFunc
}

// joinWire joins the coordinator at addr and opens its Work stream with
// the given credits.
func joinWire(t *testing.T, addr string, credits uint32) *wireWorker {
	t.Helper()
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	client := nqueenspb.NewCoordinatorServiceClient(conn)
	ctx, cancel := context.WithTimeout(context.Background(), e2eTimeout)
	jr, err := client.Join(ctx, &nqueenspb.JoinRequest{Name: "wire", Slots: 1, SolverVersion: solver.Version})
	if err != nil {
		cancel()
		t.Fatalf("Join: %v", err)
	}
	stream, err := client.Work(ctx)
	if err != nil {
		cancel()
		t.Fatalf("Work: %v", err)
	}
	w := &wireWorker{t: t, conn: conn, job: jr, stream: stream, cancel: cancel}
	t.Cleanup(func() { cancel(); conn.Close() })
	w.send(&nqueenspb.WorkRequest{Msg: &nqueenspb.WorkRequest_Ready{Ready: &nqueenspb.Ready{WorkerId: jr.GetWorkerId(), Credits: credits}}})
	return w
}

func (w *wireWorker) send(m *nqueenspb.WorkRequest) {
	w.t.Helper()
	if err := w.stream.Send(m); err != nil {
		w.t.Fatalf("send: %v", err)
	}
}

func (w *wireWorker) recv() *nqueenspb.WorkResponse {
	w.t.Helper()
	m, err := w.stream.Recv()
	if err != nil {
		w.t.Fatalf("recv: %v", err)
	}
	return m
}

// answer computes an assigned count task honestly and sends its Result.
func (w *wireWorker) answer(a *nqueenspb.Assign) solver.Counts {
	w.t.Helper()
	prefix := make([]int, len(a.GetPrefix()))
	for i, c := range a.GetPrefix() {
		prefix[i] = int(c)
	}
	c, err := solver.CountTask(int(a.GetN()), solver.Task{Index: int(a.GetTaskId().GetIndex()), Prefix: prefix})
	if err != nil {
		w.t.Fatal(err)
	}
	w.send(&nqueenspb.WorkRequest{Msg: &nqueenspb.WorkRequest_Result{Result: &nqueenspb.Result{
		TaskId: a.GetTaskId(), LeaseId: a.GetLeaseId(), Total: c.Total, Unique: c.Unique, Nodes: c.Nodes,
	}}})
	return c
}

// TestKillAfterAck: the coordinator acknowledges a result as COMMITTED and
// is SIGKILLed at once. The journal holds that result; the resumed
// coordinator keeps it, never leases that task again, and finishes exact.
func TestKillAfterAck(t *testing.T) {
	coordBin, _ := binaries(t)
	state := filepath.Join(t.TempDir(), "ack.state")
	args := []string{"--n", "8", "--workers", "0", "--listen", "127.0.0.1:0", "--depth", "2", "--state", state, "--json", "--progress", "off"}

	first, _, _, addr := startCoordinator(t, coordBin, nil, args...)
	w := joinWire(t, addr, 1)
	a := w.recv().GetAssign()
	if a == nil {
		t.Fatal("the first message is not an Assign")
	}
	sent := w.answer(a)
	ack := w.recv().GetAck()
	if ack.GetOutcome() != nqueenspb.Ack_OUTCOME_COMMITTED {
		t.Fatalf("ack %v, want COMMITTED", ack)
	}
	first.Process.Signal(syscall.SIGKILL) // right after the Ack: nothing else may have run
	first.Wait()

	idx := int(a.GetTaskId().GetIndex())
	rp, err := journal.Read(state)
	if err != nil {
		t.Fatalf("journal after the kill: %v", err)
	}
	if len(rp.Records) != 1 || rp.Records[0].Index != idx || rp.Records[0].Total != sent.Total || rp.Records[0].Unique != sent.Unique {
		t.Fatalf("journal after the kill holds %+v; want the acknowledged task %d with total %d unique %d", rp.Records, idx, sent.Total, sent.Unique)
	}

	second, logs, stdout, addr := startCoordinator(t, coordBin, nil, append(args, "--resume")...)
	w = joinWire(t, addr, 4096)
	tasks := int(w.job.GetJob().GetTasks())
	for answered := 0; answered < tasks-1; {
		m := w.recv()
		switch {
		case m.GetAssign() != nil:
			if got := int(m.GetAssign().GetTaskId().GetIndex()); got == idx {
				t.Fatalf("the resumed coordinator leased task %d again, which it had acknowledged", idx)
			}
			w.answer(m.GetAssign())
			answered++
		case m.GetAck() != nil:
		default:
			t.Fatalf("unexpected message %v before every task was answered", m)
		}
	}
	for w.recv().GetDrain() == nil { // acks, then the Drain of a finished job
	}
	w.stream.CloseSend()
	if err := waitProc(second); err != nil {
		t.Fatalf("resumed coordinator: %v\n%s", err, logs)
	}
	var got struct {
		Solutions, Unique uint64
		Complete          bool
	}
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil || got.Solutions != 92 || got.Unique != 12 || !got.Complete {
		t.Errorf("resumed run said %q (%v); want 92 solutions, 12 fundamental, complete", stdout.String(), err)
	}
	if !strings.Contains(logs.String(), "committed_tasks=1 ") {
		t.Errorf("the resumed run did not restore exactly one task:\n%s", logs)
	}
}
