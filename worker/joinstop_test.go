package worker_test

import (
	"context"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"

	nqueenspb "github.com/nqueens/nqueens/proto/nqueens/v1"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/worker"
)

// vanishingCoordinator hands a worker one N=20 join unit (seconds to
// minutes of counting), then ends the stream while the
// worker counts it, as a coordinator that dies does; it notes when the
// worker joins again.
type vanishingCoordinator struct {
	nqueenspb.UnimplementedCoordinatorServiceServer
	plan     solver.Plan
	joins    atomic.Int32
	results  atomic.Int32
	cut      chan time.Time // when the stream ended
	rejoined chan time.Time // when the worker joined again
}

func (c *vanishingCoordinator) Join(context.Context, *nqueenspb.JoinRequest) (*nqueenspb.JoinResponse, error) {
	if c.joins.Add(1) == 2 {
		c.rejoined <- time.Now()
	}
	job := &nqueenspb.Job{N: 20, Kind: nqueenspb.TaskKind_TASK_KIND_JOIN, PlanFingerprint: c.plan.Fingerprint(), Tasks: uint32(c.plan.Len())}
	return &nqueenspb.JoinResponse{WorkerId: "w1", Job: job,
		Lease: durationpb.New(time.Minute), HeartbeatInterval: durationpb.New(time.Second)}, nil
}

func (c *vanishingCoordinator) Work(stream nqueenspb.CoordinatorService_WorkServer) error {
	if _, err := stream.Recv(); err != nil {
		return err
	}
	if c.joins.Load() > 1 {
		<-stream.Context().Done() // the test stops the worker
		return nil
	}
	a := &nqueenspb.Assign{TaskId: &nqueenspb.TaskId{PlanFingerprint: c.plan.Fingerprint(), Index: 3}, N: 20,
		Kind: nqueenspb.TaskKind_TASK_KIND_JOIN, Prefix: []uint32{3}, LeaseId: 1}
	if err := stream.Send(&nqueenspb.WorkResponse{Msg: &nqueenspb.WorkResponse_AssignBatch{AssignBatch: &nqueenspb.AssignBatch{Assigns: []*nqueenspb.Assign{a}}}}); err != nil {
		return err
	}
	go func() { // count the Results that still come, until the stream ends
		for {
			m, err := stream.Recv()
			if err != nil {
				return
			}
			if m.GetResult() != nil {
				c.results.Add(1)
			}
		}
	}()
	time.Sleep(500 * time.Millisecond) // the worker is counting now
	c.cut <- time.Now()
	return status.Error(codes.Unavailable, "coordinator gone")
}

// TestJoinUnitStopsWithSession checks that a worker whose coordinator
// goes away while it counts a long join unit (N=20: seconds to minutes)
// joins again within 2 s (on a loaded machine, within half the unit's
// own time), its count stopped and its Result never sent, rather than
// when the unit ends.
func TestJoinUnitStopsWithSession(t *testing.T) {
	plan, err := solver.NewJoinTaskPlan(20)
	if err != nil {
		t.Fatal(err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	fake := &vanishingCoordinator{plan: plan, cut: make(chan time.Time, 1), rejoined: make(chan time.Time, 1)}
	nqueenspb.RegisterCoordinatorServiceServer(srv, fake)
	go srv.Serve(lis)
	defer srv.Stop()
	ctx, cancel := context.WithTimeout(context.Background(), jobTimeout)
	defer cancel()
	ran := make(chan error, 1)
	go func() {
		ran <- worker.Run(ctx, worker.Config{Join: lis.Addr().String(), Slots: 1, JoinTimeout: eventTimeout}, hclog.NewNullLogger())
	}()
	cut := <-fake.cut
	select {
	case at := <-fake.rejoined:
		// Quick on a quiet machine; on a loaded one the rejoin itself
		// is slow, and the check is against the unit's own time there.
		if took := at.Sub(cut); took > 2*time.Second {
			if unit := unitTime(t, plan, 3); took > unit/2 {
				t.Errorf("the worker joined again %v after its coordinator went away; the unit takes %v to count: it was not stopped", took, unit)
			}
		}
	case <-ctx.Done():
		t.Fatal("the worker never joined again")
	}
	cancel()
	if err := <-ran; err != nil {
		t.Errorf("Run = %v, want nil (stopped by its context)", err)
	}
	if n := fake.results.Load(); n != 0 {
		t.Errorf("%d Results of the stopped count were sent, want none", n)
	}
}

// unitTime is how long counting unit i of plan takes here, now.
func unitTime(t *testing.T, plan solver.Plan, i int) time.Duration {
	t.Helper()
	jp, err := solver.NewJoinPlan(plan.N, 0)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := jp.NewCounter().Count(i); err != nil {
		t.Fatal(err)
	}
	return time.Since(start)
}
