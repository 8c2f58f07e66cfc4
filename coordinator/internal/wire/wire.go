package wire

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
	// MaxBatchBytes caps a SolutionBatch's packed solutions: 16 times what a
	// worker sends, a quarter of MaxRecvMsgSize.
	MaxBatchBytes = 1 << 20
	// MaxConcurrentStreams caps the RPCs open on one connection
	// (grpc.MaxConcurrentStreams): a worker needs one Work stream and the
	// odd Join or health check.
	MaxConcurrentStreams = 64
	// MaxSlots bounds JoinRequest.slots and --workers: more than any
	// machine has cores.
	MaxSlots = 4096
	// MaxCredits caps the credits one worker may hold (sched.MaxCredits).
	MaxCredits = sched.MaxCredits
	// MaxLeaseIDs caps the lease ids of one Heartbeat or Release: a worker
	// holds at most MaxCredits leases.
	MaxLeaseIDs = MaxCredits
	// MaxNameBytes caps JoinRequest.name, which goes into log lines.
	MaxNameBytes = 256
	// MaxBuildBytes caps JoinRequest.build_version, which goes into the
	// refusal of another solver version (a --version line is ~80 bytes).
	MaxBuildBytes = 256
	// MaxWorkerIDBytes caps Ready.worker_id (the coordinator's ids are
	// "w" and a number).
	MaxWorkerIDBytes = 64
	// MaxFailureBytes caps Result.failure, which goes into log lines and
	// the job's error.
	MaxFailureBytes = 4096

	// DefaultMessageRate is the sustained rate of Work messages (solution
	// batches, heartbeats, credits, results) one worker may send per
	// second, beyond MessagesPerLease for every lease it was given. A
	// worker that streams 64 KiB batches of a fast enumeration sends a few
	// thousand a second; the coordinator's one goroutine per stream could
	// not check much more than this many full batches anyway. A worker that
	// floods is cut off with ResourceExhausted and its leases go back.
	DefaultMessageRate = 20000

	// MessagesPerLease is what one task needs beyond the rate: its Result,
	// the Ready that frees its slot and its last, partial, batch.
	MessagesPerLease = 3
)

// ValidateJoin checks a JoinRequest's fields. Its errors are gRPC
// statuses: FailedPrecondition for another solver version (naming both
// versions and both builds, so an operator knows which binaries to line
// up), InvalidArgument for the rest.
func ValidateJoin(req *nqueenspb.JoinRequest) error {
	build := req.GetBuildVersion()
	if len(build) > MaxBuildBytes {
		return status.Errorf(codes.InvalidArgument, "build version of %d bytes, at most %d", len(build), MaxBuildBytes)
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
	if req.GetSlots() == 0 || req.GetSlots() > MaxSlots {
		return status.Errorf(codes.InvalidArgument, "slots = %d, want 1..%d", req.GetSlots(), MaxSlots)
	}
	if len(req.GetName()) > MaxNameBytes {
		return status.Errorf(codes.InvalidArgument, "name of %d bytes, at most %d", len(req.GetName()), MaxNameBytes)
	}
	if !utf8.ValidString(req.GetName()) {
		return status.Error(codes.InvalidArgument, "name is not valid UTF-8")
	}
	return nil
}

// Job is what ValidateWork needs to know about the job.
type Job struct {
	N    int  // board size: a packed solution is n bytes
	Want bool // tasks stream solutions; otherwise a SolutionBatch is never asked for
}

// ValidateWork checks the shape of one WorkRequest: what no correct worker
// sends (a missing task id, lists or texts beyond their limits, a batch
// whose size does not match its count, a batch the job never asked for).
// Its errors are InvalidArgument statuses; the Work handler ends the
// session with them. Whether the content is right (the solutions, the
// counts, the lease) is judged later, by the batch checker and the
// scheduler. A message of a kind this coordinator does not know passes:
// it is ignored.
func ValidateWork(w Job, m *nqueenspb.WorkRequest) error {
	bad := func(format string, args ...any) error {
		return status.Errorf(codes.InvalidArgument, format, args...)
	}
	switch m := m.GetMsg().(type) {
	case *nqueenspb.WorkRequest_Ready:
		if len(m.Ready.GetWorkerId()) > MaxWorkerIDBytes {
			return bad("ready: worker id of %d bytes, at most %d", len(m.Ready.GetWorkerId()), MaxWorkerIDBytes)
		}
	case *nqueenspb.WorkRequest_Heartbeat:
		if len(m.Heartbeat.GetLeaseIds()) > MaxLeaseIDs {
			return bad("heartbeat: %d lease ids, at most %d", len(m.Heartbeat.GetLeaseIds()), MaxLeaseIDs)
		}
	case *nqueenspb.WorkRequest_Release:
		if len(m.Release.GetLeaseIds()) > MaxLeaseIDs {
			return bad("release: %d lease ids, at most %d", len(m.Release.GetLeaseIds()), MaxLeaseIDs)
		}
	case *nqueenspb.WorkRequest_SolutionBatch:
		b := m.SolutionBatch
		switch {
		case !w.Want:
			return bad("solution batch: this job counts and asked for no solutions")
		case b.GetTaskId() == nil:
			return bad("solution batch without a task id")
		case b.GetCount() == 0:
			return bad("solution batch %d is empty", b.GetSeq())
		case len(b.GetPacked()) > MaxBatchBytes:
			return bad("solution batch of %d bytes, at most %d", len(b.GetPacked()), MaxBatchBytes)
		case w.N < 1 || len(b.GetPacked())%w.N != 0 || uint64(len(b.GetPacked())/w.N) != uint64(b.GetCount()):
			return bad("solution batch of %d bytes for %d solutions of n=%d", len(b.GetPacked()), b.GetCount(), w.N)
		}
	case *nqueenspb.WorkRequest_Result:
		return ValidateResult(m.Result)
	case *nqueenspb.WorkRequest_ResultBatch:
		if len(m.ResultBatch.GetResults()) > MaxCredits {
			return bad("result batch of %d results, at most %d", len(m.ResultBatch.GetResults()), MaxCredits)
		}
		for _, r := range m.ResultBatch.GetResults() {
			if err := ValidateResult(r); err != nil {
				return err
			}
		}
	}
	return nil
}

// ValidateResult checks the shape of one Result.
func ValidateResult(r *nqueenspb.Result) error {
	if r.GetTaskId() == nil {
		return status.Error(codes.InvalidArgument, "result without a task id")
	}
	if len(r.GetFailure()) > MaxFailureBytes {
		return status.Errorf(codes.InvalidArgument, "result: failure text of %d bytes, at most %d", len(r.GetFailure()), MaxFailureBytes)
	}
	if n := len(r.GetRunCounts()); n%3 != 0 || n > 3*sched.MaxRun {
		return status.Errorf(codes.InvalidArgument, "result: %d run counts, want three per task of at most %d", n, sched.MaxRun)
	}
	return nil
}

// Limiter is a token bucket on one worker's Work messages: it holds at
// most burst tokens (plus those granted per lease), refills at rate per
// second, and each message takes one. Its methods are safe for concurrent
// use (the Work handler takes, the scheduler grants).
type Limiter struct {
	mu     sync.Mutex
	rate   float64 // tokens per second; +Inf: no limit
	burst  float64
	tokens float64
	last   time.Time
}

func NewLimiter(rate float64, now time.Time) *Limiter {
	burst := max(rate, 1)
	return &Limiter{rate: rate, burst: burst, tokens: burst, last: now}
}

// Take spends one token; it reports false when the bucket is empty.
func (l *Limiter) Take(now time.Time) bool {
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

// Grant adds n tokens beyond the burst (for the messages of a new lease).
func (l *Limiter) Grant(n int) {
	l.mu.Lock()
	l.tokens += float64(n)
	l.mu.Unlock()
}

// FloodError is the status a flooding worker's session ends with.
func FloodError(rate float64) error {
	return status.Error(codes.ResourceExhausted, fmt.Sprintf("more than %.0f messages per second beyond %d per task: slow down", rate, MessagesPerLease))
}
