package coordinator

import (
	"context"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	reflectionpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
	"google.golang.org/grpc/status"

	nqueenspb "github.com/nqueens/nqueens/proto/nqueens/v1"
	"github.com/nqueens/nqueens/solver"
)

// TestHealthAndReflection: grpc.health.v1 says SERVING while the job runs,
// and reflection lists the service (so grpcurl works).
func TestHealthAndReflection(t *testing.T) {
	checkLeaks(t)
	r := startJob(t, context.Background(), testConfig(8, 0)) // no workers: the job waits
	conn, err := grpc.NewClient(r.addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), eventTimeout)
	defer cancel()
	for _, svc := range []string{"", nqueenspb.CoordinatorService_ServiceDesc.ServiceName} {
		resp, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{Service: svc})
		if err != nil || resp.GetStatus() != healthpb.HealthCheckResponse_SERVING {
			t.Errorf("health Check(%q) = %v, %v; want SERVING", svc, resp.GetStatus(), err)
		}
	}
	stream, err := reflectionpb.NewServerReflectionClient(conn).ServerReflectionInfo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := stream.Send(&reflectionpb.ServerReflectionRequest{MessageRequest: &reflectionpb.ServerReflectionRequest_ListServices{}}); err != nil {
		t.Fatal(err)
	}
	resp, err := stream.Recv()
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, s := range resp.GetListServicesResponse().GetService() {
		found = found || s.GetName() == nqueenspb.CoordinatorService_ServiceDesc.ServiceName
	}
	if !found {
		t.Errorf("reflection lists %v, want %s among them", resp.GetListServicesResponse().GetService(), nqueenspb.CoordinatorService_ServiceDesc.ServiceName)
	}
	stream.CloseSend()

	// Join refuses another solver version and zero slots.
	client := nqueenspb.NewCoordinatorServiceClient(conn)
	for _, tc := range []struct {
		req  *nqueenspb.JoinRequest
		code codes.Code
	}{
		{&nqueenspb.JoinRequest{Slots: 1, SolverVersion: solver.Version + 1}, codes.FailedPrecondition},
		{&nqueenspb.JoinRequest{Slots: 0, SolverVersion: solver.Version}, codes.InvalidArgument},
	} {
		if _, err := client.Join(ctx, tc.req); status.Code(err) != tc.code {
			t.Errorf("Join(%v) = %v, want %v", tc.req, err, tc.code)
		}
	}
	// A Work stream that does not start with Ready from a joined worker is refused.
	ws, err := client.Work(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ws.Send(&nqueenspb.WorkRequest{Msg: &nqueenspb.WorkRequest_Ready{Ready: &nqueenspb.Ready{WorkerId: "nobody", Credits: 1}}})
	if _, err := ws.Recv(); status.Code(err) != codes.FailedPrecondition {
		t.Errorf("Work with an unknown worker id: %v, want FailedPrecondition", err)
	}

	// Finish the job so it shuts down.
	wait := startWorkers(context.Background(), r.addr)
	s, err := r.wait(t)
	checkTotal(t, s, err, 8)
	wait()
}
