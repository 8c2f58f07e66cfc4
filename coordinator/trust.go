package coordinator

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"math"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"

	"github.com/nqueens/nqueens/coordinator/internal/sched"
)

// DefaultRemoteVerifyFraction is the share of a remote worker's commits
// computed again when the board's count is not published (NewConfig,
// Config.RemoteVerifyFraction). It costs about as much extra search
// (docs/limits.md gives the measured figure), and a worker that lies on k
// tasks escapes it with probability 0.99^k: one lie in a hundred is
// caught, a worker that lies on 500 tasks is caught with 99.3%
// probability, and its other commits are then computed again. Boards
// with a published count need none: every commit's running sum and the
// final sum are compared with it.
const DefaultRemoteVerifyFraction = 0.01

// embeddedKeyHeader is the metadata key under which the embedded workers
// show the job's embedded key on Join: it tells the coordinator's own
// workers from remote ones, which may run on the same host.
const embeddedKeyHeader = "nqueens-embedded-key"

// newEmbeddedKey returns a random key for one job's embedded workers.
func newEmbeddedKey() string {
	var b [16]byte
	rand.Read(b[:]) // never fails (crypto/rand)
	return hex.EncodeToString(b[:])
}

// embeddedDialOption makes a worker's Join carry key: the dial option of
// the job's embedded workers.
func embeddedDialOption(key string) grpc.DialOption {
	return grpc.WithChainUnaryInterceptor(func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		return invoker(metadata.AppendToOutgoingContext(ctx, embeddedKeyHeader, key), method, req, reply, cc, opts...)
	})
}

// embedded reports whether the RPC of ctx carries the embedded key: one of
// the job's own workers, which get no RemoteVerifyFraction.
func (e edgeOptions) embedded(ctx context.Context) bool {
	md, _ := metadata.FromIncomingContext(ctx)
	for _, v := range md.Get(embeddedKeyHeader) {
		if e.embeddedKey != "" && subtle.ConstantTimeCompare([]byte(v), []byte(e.embeddedKey)) == 1 {
			return true
		}
	}
	return false
}

// remoteVerify is the verify fraction of a remote worker's commits:
// Config.RemoteVerifyFraction where the total is not compared with a
// published count (and the counts are real: a synthetic load's made-up
// ones would all look like lies), else 0 (VerifyFraction alone).
func (j *Job) remoteVerify() float64 {
	if j.cfg.SyntheticLoad || j.checksPublished() {
		return 0
	}
	return j.cfg.RemoteVerifyFraction
}

// checksPublished reports whether the job's sums are compared with the
// board's published counts (by the scheduler, on every commit and at the
// end).
func (j *Job) checksPublished() bool {
	return sched.ChecksPublished(j.plan, j.cfg.SyntheticLoad || j.cfg.AsUnpublished)
}

// setTrust fills the fields that say how far the total can be trusted:
// whether it is compared with the published count (checked), the share of
// it verified, and whether the node count saturated.
func (s *Summary) setTrust(checked bool) {
	s.CheckedAgainstPublished = checked
	s.VerifiedFraction = fraction(s.Verified, uint64(max(s.Committed, 0)))
	s.VerifiedSolutionsFraction = fraction(s.VerifiedSolutions, s.Solutions)
	s.NodesSaturated = s.Nodes == math.MaxUint64
}

// fraction is part/whole in 0..1, and 0 of nothing. A task verified, taken
// back by a quarantine and verified again counts twice in part: the
// fraction stops at 1.
func fraction(part, whole uint64) float64 {
	if whole == 0 {
		return 0
	}
	return min(float64(part)/float64(whole), 1)
}

// trustLine is the summary's clause on a whole board's total that was not
// compared with a published count: how much of it a second computation
// confirmed. Pinned runs count a part of the board, which nobody
// publishes: their line says so already.
func (s Summary) trustLine() string {
	if s.CheckedAgainstPublished || len(s.Pins) > 0 || s.Kind == "pinned" {
		return ""
	}
	return fmt.Sprintf("; not checked against a published count: %d of %s verified (%.1f%%; %.1f%% of the solutions)",
		s.Verified, plural(s.Committed, "task"), 100*s.VerifiedFraction, 100*s.VerifiedSolutionsFraction)
}
