package coordinator

import (
	"fmt"
	"math"
	"sync"
	"time"
	"unicode/utf8"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/nqueens/nqueens/coordinator/internal/sched"
	"github.com/nqueens/nqueens/internal/version"
	nqueenspb "github.com/nqueens/nqueens/proto/nqueens/v1"
	"github.com/nqueens/nqueens/solver"
)

// Limits on what the coordinator accepts from the network. Each
// refusal is a gRPC status that says which limit was hit, and a log line;
// none of them can panic, and together they bound the memory and CPU one
// worker can make the coordinator spend. The board size and the plan are
// bounded by Config.Validate and solver.NewLazyPlan (N 1..solver.MaxN,
// depth 0..solver.MaxDepth, at most solver.MaxLazyTasks tasks).
const (
	// MaxRecvMsgSize is the largest message the server reads
	// (grpc.MaxRecvMsgSize): gRPC's 4 MiB default, made explicit so no
	// server option loosens it by accident. Workers cut solution batches at
	// 64 KiB (worker.BatchBytes), far under it.
	MaxRecvMsgSize = 4 << 20
	// maxBatchBytes caps a SolutionBatch's packed solutions: 16 times what a
	// worker sends, a quarter of MaxRecvMsgSize.
	maxBatchBytes = 1 << 20
	// maxConcurrentStreams caps the RPCs open on one connection
	// (grpc.MaxConcurrentStreams): a worker needs one Work stream and the
	// odd Join or health check.
	maxConcurrentStreams = 64
	// maxSessions bounds the joined workers (sched.DefaultMaxSessions):
	// a Join beyond it is refused with ResourceExhausted, which workers
	// retry with back-off.
	maxSessions = sched.DefaultMaxSessions
	// maxConnections bounds the open TCP connections: every joined worker
	// (maxSessions) with room for health probes and Joins in flight, so a
	// flood of connections cannot use up the coordinator's file
	// descriptors and memory. A connection beyond it pushes out the oldest
	// one that has not joined (listener.go), so idle connections cannot
	// lock workers out either.
	maxConnections = maxSessions + 256
	// maxSlots bounds JoinRequest.slots and --workers: more than any
	// machine has cores.
	maxSlots = 4096
	// maxCredits caps the credits one worker may hold (sched.MaxCredits).
	maxCredits = sched.MaxCredits
	// maxLeaseIDs caps the lease ids of one Heartbeat or Release: a worker
	// holds at most maxCredits leases.
	maxLeaseIDs = maxCredits
	// maxNameBytes caps JoinRequest.name, which goes into log lines.
	maxNameBytes = 256
	// maxBuildBytes caps JoinRequest.build_version, which goes into the
	// refusal of another solver version (a --version line is ~80 bytes).
	maxBuildBytes = 256
	// maxWorkerIDBytes caps Ready.worker_id (the coordinator's ids are
	// "w" and a number).
	maxWorkerIDBytes = 64
	// maxFailureBytes caps Result.failure, which goes into log lines and
	// the job's error.
	maxFailureBytes = 4096

	// DefaultMessageRate is the sustained rate of Work messages (solution
	// batches, heartbeats, credits, results) one worker may send per
	// second, beyond messagesPerLease for every lease it was given. A
	// worker that streams 64 KiB batches of a fast enumeration sends a few
	// thousand a second; the coordinator's one goroutine per stream could
	// not check much more than this many full batches anyway. A worker that
	// floods is cut off with ResourceExhausted and its leases go back.
	DefaultMessageRate = 20000

	// messagesPerLease is what one task needs beyond the rate: its Result,
	// the Ready that frees its slot and its last, partial, batch.
	messagesPerLease = 3
)

// validateJoin checks a JoinRequest's fields. Its errors are gRPC
// statuses: FailedPrecondition for another solver version (naming both
// versions and both builds, so an operator knows which binaries to line
// up), InvalidArgument for the rest.
func validateJoin(req *nqueenspb.JoinRequest) error {
	build := req.GetBuildVersion()
	if len(build) > maxBuildBytes {
		return status.Errorf(codes.InvalidArgument, "build version of %d bytes, at most %d", len(build), maxBuildBytes)
	}
	if !utf8.ValidString(build) {
		return status.Error(codes.InvalidArgument, "build version is not valid UTF-8")
	}
	if req.GetSolverVersion() != solver.Version {
		if build == "" {
			build = "unknown"
		}
		return status.Errorf(codes.FailedPrecondition, "worker solver version %d (build %s) != coordinator solver version %d (build %s)",
			req.GetSolverVersion(), build, solver.Version, version.Get())
	}
	if req.GetSlots() == 0 || req.GetSlots() > maxSlots {
		return status.Errorf(codes.InvalidArgument, "slots = %d, want 1..%d", req.GetSlots(), maxSlots)
	}
	if len(req.GetName()) > maxNameBytes {
		return status.Errorf(codes.InvalidArgument, "name of %d bytes, at most %d", len(req.GetName()), maxNameBytes)
	}
	if !utf8.ValidString(req.GetName()) {
		return status.Error(codes.InvalidArgument, "name is not valid UTF-8")
	}
	return nil
}

// wire is what validateWork needs to know about the job.
type wire struct {
	n    int  // board size: a packed solution is n bytes
	want bool // tasks stream solutions; otherwise a SolutionBatch is never asked for
}

// validateWork checks the shape of one WorkRequest: what no correct worker
// sends (a missing task id, lists or texts beyond their limits, a batch
// whose size does not match its count, a batch the job never asked for).
// Its errors are InvalidArgument statuses; the Work handler ends the
// session with them. Whether the content is right (the solutions, the
// counts, the lease) is judged later, by the batch checker and the
// scheduler. A message of a kind this coordinator does not know passes:
// it is ignored.
func validateWork(w wire, m *nqueenspb.WorkRequest) error {
	bad := func(format string, args ...any) error {
		return status.Errorf(codes.InvalidArgument, format, args...)
	}
	switch m := m.GetMsg().(type) {
	case *nqueenspb.WorkRequest_Ready:
		if len(m.Ready.GetWorkerId()) > maxWorkerIDBytes {
			return bad("ready: worker id of %d bytes, at most %d", len(m.Ready.GetWorkerId()), maxWorkerIDBytes)
		}
	case *nqueenspb.WorkRequest_Heartbeat:
		if len(m.Heartbeat.GetLeaseIds()) > maxLeaseIDs {
			return bad("heartbeat: %d lease ids, at most %d", len(m.Heartbeat.GetLeaseIds()), maxLeaseIDs)
		}
	case *nqueenspb.WorkRequest_Release:
		if len(m.Release.GetLeaseIds()) > maxLeaseIDs {
			return bad("release: %d lease ids, at most %d", len(m.Release.GetLeaseIds()), maxLeaseIDs)
		}
	case *nqueenspb.WorkRequest_SolutionBatch:
		b := m.SolutionBatch
		switch {
		case !w.want:
			return bad("solution batch: this job counts and asked for no solutions")
		case b.GetTaskId() == nil:
			return bad("solution batch without a task id")
		case b.GetCount() == 0:
			return bad("solution batch %d is empty", b.GetSeq())
		case len(b.GetPacked()) > maxBatchBytes:
			return bad("solution batch of %d bytes, at most %d", len(b.GetPacked()), maxBatchBytes)
		case w.n < 1 || len(b.GetPacked())%w.n != 0 || uint64(len(b.GetPacked())/w.n) != uint64(b.GetCount()):
			return bad("solution batch of %d bytes for %d solutions of n=%d", len(b.GetPacked()), b.GetCount(), w.n)
		}
	case *nqueenspb.WorkRequest_Result:
		return validateResult(m.Result)
	case *nqueenspb.WorkRequest_ResultBatch:
		if len(m.ResultBatch.GetResults()) > maxCredits {
			return bad("result batch of %d results, at most %d", len(m.ResultBatch.GetResults()), maxCredits)
		}
		for _, r := range m.ResultBatch.GetResults() {
			if err := validateResult(r); err != nil {
				return err
			}
		}
	}
	return nil
}

// validateResult checks the shape of one Result.
func validateResult(r *nqueenspb.Result) error {
	if r.GetTaskId() == nil {
		return status.Error(codes.InvalidArgument, "result without a task id")
	}
	if len(r.GetFailure()) > maxFailureBytes {
		return status.Errorf(codes.InvalidArgument, "result: failure text of %d bytes, at most %d", len(r.GetFailure()), maxFailureBytes)
	}
	if n := len(r.GetRunCounts()); n%3 != 0 || n > 3*sched.MaxRun {
		return status.Errorf(codes.InvalidArgument, "result: %d run counts, want three per task of at most %d", n, sched.MaxRun)
	}
	return nil
}

// limiter is a token bucket on one worker's Work messages: it holds at
// most burst tokens (plus those granted per lease), refills at rate per
// second, and each message takes one. Its methods are safe for concurrent
// use (the Work handler takes, the scheduler grants).
type limiter struct {
	mu     sync.Mutex
	rate   float64 // tokens per second; +Inf: no limit
	burst  float64
	tokens float64
	last   time.Time
}

func newLimiter(rate float64, now time.Time) *limiter {
	burst := max(rate, 1)
	return &limiter{rate: rate, burst: burst, tokens: burst, last: now}
}

// take spends one token; it reports false when the bucket is empty.
func (l *limiter) take(now time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if math.IsInf(l.rate, 1) {
		return true
	}
	if d := now.Sub(l.last); d > 0 {
		l.tokens = max(l.tokens, min(l.burst, l.tokens+d.Seconds()*l.rate))
		l.last = now
	}
	if l.tokens < 1 {
		return false
	}
	l.tokens--
	return true
}

// grant adds n tokens beyond the burst (for the messages of a new lease).
func (l *limiter) grant(n int) {
	l.mu.Lock()
	l.tokens += float64(n)
	l.mu.Unlock()
}

// floodError is the status a flooding worker's session ends with.
func floodError(rate float64) error {
	return status.Error(codes.ResourceExhausted, fmt.Sprintf("more than %.0f messages per second beyond %d per task: slow down", rate, messagesPerLease))
}
