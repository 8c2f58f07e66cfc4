package wire

import (
	"testing"
	"unicode/utf8"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/nqueens/nqueens/coordinator/internal/sched"
	"github.com/nqueens/nqueens/listing"
	nqueenspb "github.com/nqueens/nqueens/proto/nqueens/v1"
	"github.com/nqueens/nqueens/solver"
)

// validateSeeds are requests for FuzzValidateRequest to start from: each
// kind of message, valid and just past a limit. join says whether the
// bytes are a JoinRequest or a WorkRequest.
func validateSeeds() []struct {
	join bool
	msg  proto.Message
} {
	id := &nqueenspb.TaskId{PlanFingerprint: 42, Index: 3}
	work := func(m *nqueenspb.WorkRequest) proto.Message { return m }
	return []struct {
		join bool
		msg  proto.Message
	}{
		{true, &nqueenspb.JoinRequest{Name: "w1", Slots: 2, SolverVersion: solver.Version}},
		{true, &nqueenspb.JoinRequest{Slots: MaxSlots + 1, SolverVersion: solver.Version}},
		{true, &nqueenspb.JoinRequest{Slots: 1, SolverVersion: solver.Version + 1}},
		{false, work(&nqueenspb.WorkRequest{Msg: &nqueenspb.WorkRequest_Ready{Ready: &nqueenspb.Ready{WorkerId: "w1", Credits: 3}}})},
		{false, work(&nqueenspb.WorkRequest{Msg: &nqueenspb.WorkRequest_Heartbeat{Heartbeat: &nqueenspb.Heartbeat{LeaseIds: []uint64{1, 2}}}})},
		{false, work(&nqueenspb.WorkRequest{Msg: &nqueenspb.WorkRequest_Release{Release: &nqueenspb.Release{LeaseIds: []uint64{7}}}})},
		{false, work(&nqueenspb.WorkRequest{Msg: &nqueenspb.WorkRequest_SolutionBatch{SolutionBatch: &nqueenspb.SolutionBatch{
			TaskId: id, LeaseId: 1, Count: 1, Packed: []byte{0, 4, 7, 5, 2, 6, 1, 3}}}})},
		{false, work(&nqueenspb.WorkRequest{Msg: &nqueenspb.WorkRequest_SolutionBatch{SolutionBatch: &nqueenspb.SolutionBatch{
			TaskId: id, LeaseId: 1, Count: 2, Packed: []byte{0, 4, 7, 5, 2, 6, 1, 3}}}})},
		{false, work(&nqueenspb.WorkRequest{Msg: &nqueenspb.WorkRequest_Result{Result: &nqueenspb.Result{TaskId: id, LeaseId: 1, Total: 4, Unique: 1}}})},
		{false, work(&nqueenspb.WorkRequest{Msg: &nqueenspb.WorkRequest_Result{Result: &nqueenspb.Result{LeaseId: 1, Failure: "no task id"}}})},
		{false, work(&nqueenspb.WorkRequest{})},
	}
}

// FuzzValidateRequest feeds arbitrary bytes, decoded as the server's codec
// would, to ValidateJoin and ValidateWork: they never panic, refuse with
// InvalidArgument or FailedPrecondition only, and whatever they accept is
// within every limit of this package (an accepted batch then goes through the
// batch checker, which must not panic either).
func FuzzValidateRequest(f *testing.F) {
	for _, s := range validateSeeds() {
		b, err := proto.Marshal(s.msg)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(s.join, 8, true, b)
		f.Add(s.join, 8, false, b)
	}
	f.Fuzz(func(t *testing.T, join bool, n int, want bool, data []byte) {
		if join {
			var req nqueenspb.JoinRequest
			if proto.Unmarshal(data, &req) != nil {
				return // the gRPC codec refuses it before any handler runs
			}
			err := ValidateJoin(&req)
			if err != nil {
				if c := status.Code(err); c != codes.InvalidArgument && c != codes.FailedPrecondition {
					t.Fatalf("ValidateJoin refused with %v, want InvalidArgument or FailedPrecondition", err)
				}
				return
			}
			if req.GetSolverVersion() != solver.Version || req.GetSlots() < 1 || req.GetSlots() > MaxSlots ||
				len(req.GetName()) > MaxNameBytes || !utf8.ValidString(req.GetName()) {
				t.Fatalf("ValidateJoin accepted %v", &req)
			}
			return
		}
		var m nqueenspb.WorkRequest
		if proto.Unmarshal(data, &m) != nil {
			return
		}
		w := Job{N: n, Want: want}
		err := ValidateWork(w, &m)
		if err != nil {
			if c := status.Code(err); c != codes.InvalidArgument {
				t.Fatalf("ValidateWork refused with %v, want InvalidArgument", err)
			}
			return
		}
		switch x := m.GetMsg().(type) {
		case *nqueenspb.WorkRequest_Ready:
			if len(x.Ready.GetWorkerId()) > MaxWorkerIDBytes {
				t.Fatalf("accepted a worker id of %d bytes", len(x.Ready.GetWorkerId()))
			}
		case *nqueenspb.WorkRequest_Heartbeat:
			if len(x.Heartbeat.GetLeaseIds()) > MaxLeaseIDs {
				t.Fatalf("accepted a heartbeat of %d ids", len(x.Heartbeat.GetLeaseIds()))
			}
		case *nqueenspb.WorkRequest_Release:
			if len(x.Release.GetLeaseIds()) > MaxLeaseIDs {
				t.Fatalf("accepted a release of %d ids", len(x.Release.GetLeaseIds()))
			}
		case *nqueenspb.WorkRequest_SolutionBatch:
			b := x.SolutionBatch
			if !want || b.GetTaskId() == nil || b.GetCount() == 0 || len(b.GetPacked()) > MaxBatchBytes ||
				n < 1 || len(b.GetPacked())%n != 0 || uint64(len(b.GetPacked())/n) != uint64(b.GetCount()) {
				t.Fatalf("accepted batch %v for n=%d want=%v", b, n, want)
			}
			if n <= solver.MaxN {
				listing.NewChecker(solver.Plan{N: n}, nil).Check(b.GetSeq(), b.GetCount(), b.GetPacked(), nil)
			}
		case *nqueenspb.WorkRequest_Result:
			if rc := len(x.Result.GetRunCounts()); x.Result.GetTaskId() == nil || len(x.Result.GetFailure()) > MaxFailureBytes || rc%3 != 0 || rc > 3*sched.MaxRun {
				t.Fatalf("accepted result %v", x.Result)
			}
		}
	})
}
