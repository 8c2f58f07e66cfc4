package worker_test

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/durationpb"

	nqueenspb "github.com/nqueens/nqueens/proto/nqueens/v1"
	"github.com/nqueens/nqueens/worker"
)

// assigningCoordinator answers a worker's first Ready with one batch of
// its credits plus extra Assigns, each the whole N=8 board (92
// solutions), then drains the worker once every Result is in.
type assigningCoordinator struct {
	nqueenspb.UnimplementedCoordinatorServiceServer
	extra   int
	joins   atomic.Int32
	results atomic.Int32 // Results with the right count
	wrong   atomic.Int32 // Results with another count or a failure
}

func (c *assigningCoordinator) Join(context.Context, *nqueenspb.JoinRequest) (*nqueenspb.JoinResponse, error) {
	c.joins.Add(1)
	return &nqueenspb.JoinResponse{WorkerId: "w1", Job: &nqueenspb.Job{N: 8, Tasks: 1},
		Lease: durationpb.New(time.Minute), HeartbeatInterval: durationpb.New(time.Second)}, nil
}

func (c *assigningCoordinator) Work(stream nqueenspb.CoordinatorService_WorkServer) error {
	first, err := stream.Recv()
	if err != nil {
		return err
	}
	n := int(first.GetReady().GetCredits()) + c.extra
	batch := &nqueenspb.AssignBatch{}
	for i := range n {
		batch.Assigns = append(batch.Assigns, &nqueenspb.Assign{TaskId: &nqueenspb.TaskId{Index: uint32(i)}, N: 8,
			Kind: nqueenspb.TaskKind_TASK_KIND_COUNT, LeaseId: uint64(i + 1)})
	}
	if err := stream.Send(&nqueenspb.WorkResponse{Msg: &nqueenspb.WorkResponse_AssignBatch{AssignBatch: batch}}); err != nil {
		return err
	}
	for int(c.results.Load()+c.wrong.Load()) < n {
		m, err := stream.Recv()
		if err != nil {
			return err
		}
		if r := m.GetResult(); r != nil {
			if r.GetTotal() == 92 && r.GetFailure() == "" {
				c.results.Add(1)
			} else {
				c.wrong.Add(1)
			}
		}
	}
	return stream.Send(&nqueenspb.WorkResponse{Msg: &nqueenspb.WorkResponse_Drain{Drain: &nqueenspb.Drain{Reason: "done"}}})
}

// TestAssignsBeyondCredits: a worker runs the Assigns its
// credits cover, but one Assign more ends its session at once with one
// line naming the broken protocol, no task started and no Join again;
// before, it started a task for every Assign and grew without bound.
func TestAssignsBeyondCredits(t *testing.T) {
	checkLeaks(t)
	for _, extra := range []int{0, 1, 100000} {
		lis, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		srv := grpc.NewServer()
		fake := &assigningCoordinator{extra: extra}
		nqueenspb.RegisterCoordinatorServiceServer(srv, fake)
		go srv.Serve(lis)
		ctx, cancel := context.WithTimeout(context.Background(), jobTimeout)
		err = worker.Run(ctx, worker.Config{Join: lis.Addr().String(), Slots: 2, JoinTimeout: eventTimeout}, hclog.NewNullLogger())
		cancel()
		srv.Stop()
		switch {
		case extra == 0 && (err != nil || fake.results.Load() != 3 || fake.wrong.Load() != 0):
			t.Errorf("3 Assigns for 3 credits: Run = %v, %d right Results, %d wrong; want nil, 3 of 92 solutions", err, fake.results.Load(), fake.wrong.Load())
		case extra > 0 && (!errors.Is(err, worker.ErrProtocol) || fake.joins.Load() != 1):
			t.Errorf("%d Assigns for 3 credits: Run = %v after %d joins, want ErrProtocol after 1", 3+extra, err, fake.joins.Load())
		case extra > 0 && (strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "credits")):
			t.Errorf("%d Assigns for 3 credits: error %q, want one line naming the credits", 3+extra, err)
		case extra > 0 && fake.results.Load()+fake.wrong.Load() != 0:
			t.Errorf("%d Assigns for 3 credits: %d Results came back, want none started", 3+extra, fake.results.Load()+fake.wrong.Load())
		}
		if err != nil {
			t.Logf("%d extra: %v", extra, err)
		}
	}
}
