package worker_test

import (
	"bytes"
	"context"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/nqueens/nqueens/internal/loglimit"
	nqueenspb "github.com/nqueens/nqueens/proto/nqueens/v1"
	"github.com/nqueens/nqueens/worker"
)

// chattyCoordinator sends a joined worker 100,000 Acks that refuse
// results, each with a reason, then a Drain whose reason is 1 MiB.
type chattyCoordinator struct {
	nqueenspb.UnimplementedCoordinatorServiceServer
}

func (chattyCoordinator) Join(context.Context, *nqueenspb.JoinRequest) (*nqueenspb.JoinResponse, error) {
	return &nqueenspb.JoinResponse{WorkerId: "w1", Job: &nqueenspb.Job{N: 8, Tasks: 1},
		Lease: durationpb.New(time.Minute), HeartbeatInterval: durationpb.New(time.Second)}, nil
}

func (chattyCoordinator) Work(stream nqueenspb.CoordinatorService_WorkServer) error {
	if _, err := stream.Recv(); err != nil {
		return err
	}
	acks := &nqueenspb.AckBatch{}
	for i := range 100000 {
		acks.Acks = append(acks.Acks, &nqueenspb.Ack{TaskId: &nqueenspb.TaskId{Index: uint32(i)},
			Outcome: nqueenspb.Ack_OUTCOME_REJECTED, Reason: "no"})
	}
	if err := stream.Send(&nqueenspb.WorkResponse{Msg: &nqueenspb.WorkResponse_AckBatch{AckBatch: acks}}); err != nil {
		return err
	}
	return stream.Send(&nqueenspb.WorkResponse{Msg: &nqueenspb.WorkResponse_Drain{Drain: &nqueenspb.Drain{Reason: strings.Repeat("x", 1<<20)}}})
}

// syncBuffer is a log output written by several goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestCoordinatorTextBounded: what the coordinator says is
// logged cut and rate-limited: 100,000 refusing Acks give a burst of
// lines and a count, a 1 MiB drain reason a line of a few hundred bytes.
func TestCoordinatorTextBounded(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	nqueenspb.RegisterCoordinatorServiceServer(srv, chattyCoordinator{})
	go srv.Serve(lis)
	defer srv.Stop()
	var out syncBuffer
	log := hclog.New(&hclog.LoggerOptions{Output: &out, Level: hclog.Debug})
	ctx, cancel := context.WithTimeout(context.Background(), jobTimeout)
	defer cancel()
	start := time.Now()
	if err := worker.Run(ctx, worker.Config{Join: lis.Addr().String(), Slots: 1, JoinTimeout: eventTimeout}, log); err != nil {
		t.Fatalf("Run = %v, want nil (drained)", err)
	}
	// The limiter's bound: a burst, then one line per Every of the run (a
	// loaded machine makes the run last seconds).
	most := loglimit.Burst + 1 + int(time.Since(start)/loglimit.Every)
	text := out.String()
	refused := strings.Count(text, "result not committed")
	if refused < 1 || refused > most {
		t.Errorf("100,000 refusing Acks logged %d lines in %v, want 1..%d", refused, time.Since(start).Round(time.Millisecond), most)
	}
	if !strings.Contains(text, "log lines dropped") {
		t.Errorf("the dropped lines were not counted:\n%.2000s", text)
	}
	for _, line := range strings.Split(text, "\n") {
		if len(line) > 2*loglimit.MaxText+200 {
			t.Errorf("a log line of %d bytes: %.200s…", len(line), line)
		}
	}
	if !strings.Contains(text, "drained by coordinator") || !strings.Contains(text, "bytes more)") {
		t.Errorf("the drain was not logged cut:\n%.2000s", text)
	}
	t.Logf("%d bytes of log, %d lines", len(text), strings.Count(text, "\n"))
}
