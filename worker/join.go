package worker

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cenkalti/backoff/v5"
	"github.com/hashicorp/go-hclog"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/nqueens/nqueens/internal/loglimit"
	"github.com/nqueens/nqueens/internal/version"
	nqueenspb "github.com/nqueens/nqueens/proto/nqueens/v1"
	"github.com/nqueens/nqueens/solver"
)

// Joining.
const (
	// joinAttemptTimeout bounds one Join RPC, so a black-holed address is
	// retried rather than waited on.
	joinAttemptTimeout = 3 * time.Second
	// backoffMin and backoffMax bound the pause between join attempts
	// (and the channel's reconnects, Run): short enough that a worker
	// joins within seconds of its coordinator starting or of a place
	// freeing, long enough that thousands of refused workers retrying
	// cost a full coordinator little.
	backoffMin = 100 * time.Millisecond
	backoffMax = 2 * time.Second
	// backoffJitter spreads each pause over ±50%, so workers refused
	// together (a restarted or full coordinator) do not come back together.
	backoffJitter = 0.5
	// waitLogEvery is how often a worker that cannot join yet says so at
	// Info: the first failure at once, then at most this often.
	waitLogEvery = 5 * time.Second
	// stayLogEvery is the same for a worker that stays between jobs
	// (Config.Stay): waiting is its normal state, not news.
	stayLogEvery = time.Minute
	// stayForever is the join deadline of a worker that stays: it retries
	// until its context ends.
	stayForever = 100 * 365 * 24 * time.Hour
)

// solverVersion is the solver version the worker announces (tests change
// it to meet a refusal).
var solverVersion = uint32(solver.Version)

// joiner is one round of joining: attempts with back-off until a Join
// succeeds, is refused for good, or the join timeout passes.
type joiner struct {
	client   nqueenspb.CoordinatorServiceClient
	cfg      Config
	log      hclog.Logger
	req      *nqueenspb.JoinRequest
	deadline time.Time
	attempts int
	logged   time.Time // when the last "waiting for coordinator" line was written
}

// join calls Join with jittered exponential back-off until it succeeds,
// fails for good, or cfg.JoinTimeout passes. A coordinator that cannot be
// reached (Unavailable, DeadlineExceeded) or is full (ResourceExhausted)
// is retried; any other refusal (a bad token, another solver version, a
// request it calls invalid) is final: joining again would only be refused
// again. It returns ctx's error when ctx ends first.
func join(ctx context.Context, client nqueenspb.CoordinatorServiceClient, cfg Config, log hclog.Logger) (*nqueenspb.JoinResponse, error) {
	j := &joiner{
		client: client, cfg: cfg, log: log,
		req: &nqueenspb.JoinRequest{
			Name: cfg.Name, Slots: uint32(cfg.Slots),
			SolverVersion: solverVersion, BuildVersion: version.Get().String(), Batches: !cfg.NoBatches,
		},
		deadline: time.Now().Add(cfg.JoinTimeout),
	}
	if cfg.Stay {
		j.deadline = time.Now().Add(stayForever)
	}
	var b backoff.BackOff = &untilBackOff{deadline: j.deadline, next: &backoff.ExponentialBackOff{
		InitialInterval: backoffMin, MaxInterval: backoffMax,
		Multiplier: 2, RandomizationFactor: backoffJitter,
	}}
	within := fmt.Sprintf("within %v", cfg.JoinTimeout)
	if cfg.JoinOnce {
		j.deadline = time.Now().Add(joinAttemptTimeout)
		b, within = &backoff.StopBackOff{}, "in one attempt (--join-timeout 0)"
	}
	jr, err := backoff.Retry(ctx, func() (*nqueenspb.JoinResponse, error) { return j.attempt(ctx) },
		backoff.WithBackOff(b), backoff.WithMaxElapsedTime(0), backoff.WithNotify(j.waiting))
	switch {
	case err == nil:
		return jr, nil
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case errors.Is(err, ErrJoin):
		return nil, err // refused: attempt said why
	}
	return nil, fmt.Errorf("%w at %s %s: %s", ErrJoin, cfg.Join, within, loglimit.Text(status.Convert(err).Message()))
}

// attempt makes one Join call. Its error is the status to retry on, or a
// permanent ErrRefused one.
func (j *joiner) attempt(ctx context.Context) (*nqueenspb.JoinResponse, error) {
	j.attempts++
	left := time.Until(j.deadline)
	if left <= 0 {
		return nil, status.Error(codes.DeadlineExceeded, "join timeout passed")
	}
	actx, cancel := context.WithTimeout(ctx, min(joinAttemptTimeout, left))
	defer cancel()
	// Fail fast (no WaitForReady): a coordinator that is down answers
	// Unavailable with the dial's error at once, which waiting logs, and
	// the back-off paces the attempts.
	jr, err := j.client.Join(actx, j.req)
	if err == nil {
		return jr, nil
	}
	switch code := status.Code(err); {
	case ctx.Err() != nil:
		return nil, backoff.Permanent(ctx.Err())
	case code == codes.Unavailable, code == codes.DeadlineExceeded, code == codes.ResourceExhausted:
		return nil, err
	default:
		msg := loglimit.Text(status.Convert(err).Message())
		j.log.Error("join refused", "addr", j.cfg.Join, "code", code.String(), "error", msg)
		return nil, backoff.Permanent(fmt.Errorf("%w at %s: %w: %s", ErrJoin, j.cfg.Join, ErrRefused, msg))
	}
}

// waiting logs a failed attempt: at Debug every time, and at Info (the
// first time, then at most every waitLogEvery) so that an operator sees
// what a worker that has not joined yet is waiting for.
func (j *joiner) waiting(err error, pause time.Duration) {
	msg := loglimit.Text(status.Convert(err).Message())
	j.log.Debug("join failed; retrying", "attempt", j.attempts, "error", msg, "pause", pause)
	every := waitLogEvery
	if j.cfg.Stay {
		every = stayLogEvery
	}
	if now := time.Now(); now.Sub(j.logged) >= every {
		j.logged = now
		kv := []any{"addr", j.cfg.Join, "attempt", j.attempts, "error", msg}
		if !j.cfg.Stay {
			kv = append(kv, "gives_up_in", time.Until(j.deadline).Round(time.Second))
		}
		info(j.cfg, j.log)("waiting for coordinator", kv...)
	}
}

// lastAttempt is the least time left for the last join attempt: the pause
// before it is cut so that it starts this long before the deadline.
const lastAttempt = 50 * time.Millisecond

// untilBackOff is next's pauses cut to end by deadline, so the last attempt
// falls at the end of the join timeout rather than a pause before it.
type untilBackOff struct {
	deadline time.Time
	next     backoff.BackOff
}

func (u *untilBackOff) Reset() { u.next.Reset() }

// NextBackOff is the next pause, or backoff.Stop once too little time is left.
func (u *untilBackOff) NextBackOff() time.Duration {
	left := time.Until(u.deadline) - lastAttempt
	if left <= 0 {
		return backoff.Stop
	}
	return min(u.next.NextBackOff(), left)
}
