package worker

import (
	"context"
	"errors"
	"fmt"
	"net"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"
	"google.golang.org/grpc"
	grpcbackoff "google.golang.org/grpc/backoff"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/status"

	"github.com/nqueens/nqueens/internal/loglimit"
	nqueenspb "github.com/nqueens/nqueens/proto/nqueens/v1"
	"github.com/nqueens/nqueens/solver"
)

// Defaults of Config.
const (
	// DefaultJoinTimeout bounds how long a worker keeps retrying to join: long
	// enough for a coordinator started a little later, short enough that a
	// wrong address fails the worker instead of hanging it.
	DefaultJoinTimeout = 30 * time.Second
	// defaultHeartbeat is used when the coordinator sends no interval.
	defaultHeartbeat = 5 * time.Second
	// outQueue is the send queue between task goroutines and the stream's
	// sender; a full queue pushes back on enumeration.
	outQueue = 64
	// resultLinger is how long a ResultBatch waits for more Results
	// (sendQueued): a fraction of a millisecond is nothing next to a task
	// of seconds, and gathers tens of tasks of microseconds into one
	// message.
	resultLinger = 200 * time.Microsecond
)

// KeepaliveParams are the client keepalive settings: ping an idle
// connection every 20 s so a dead coordinator (or a cut network) is noticed
// within a lease, and within the coordinator's enforcement minimum (10 s).
var KeepaliveParams = keepalive.ClientParameters{Time: 20 * time.Second, Timeout: 10 * time.Second, PermitWithoutStream: true}

// connectParams make the connection redial a coordinator that is down as
// often as join retries it (gRPC's default waits up to 120 s between
// dials, so a worker could keep failing long after its coordinator came
// up), with the same jitter.
var connectParams = grpc.ConnectParams{
	Backoff:           grpcbackoff.Config{BaseDelay: backoffMin, Multiplier: 2, Jitter: backoffJitter, MaxDelay: backoffMax},
	MinConnectTimeout: 20 * time.Second, // gRPC's default: how long one dial may take
}

// Config says whom to join and with how many slots.
type Config struct {
	// Join is the coordinator's HOST:PORT (required).
	Join string
	// Slots is how many tasks run at once, one goroutine each (default:
	// runtime.GOMAXPROCS(0), which follows a container's CPU limit).
	Slots int
	// Name labels the worker in the coordinator's logs (default: "worker").
	Name string
	// JoinTimeout bounds the retries of the first join and of rejoining
	// after a broken stream (default DefaultJoinTimeout).
	JoinTimeout time.Duration
	// Stay keeps the worker between jobs: after a Drain it joins again
	// (after StayPause), and it retries a coordinator that is down or full
	// for as long as ctx lasts, logging the wait once a minute, so a
	// Kubernetes Deployment's pods stay Running instead of exiting into
	// CrashLoopBackOff when a job ends. JoinTimeout and JoinOnce do not
	// apply.
	Stay bool
	// JoinOnce makes one join attempt (of at most a few seconds) instead
	// of retrying for JoinTimeout: worker --join-timeout 0.
	JoinOnce bool
	// DialOptions are added to the connection's options: transport
	// credentials (TLS), per-RPC credentials (a token) and interceptors from
	// package auth go here. Without transport credentials the connection is
	// plaintext.
	DialOptions []grpc.DialOption
	// Prefetch is how many leased tasks may wait locally beyond the busy
	// slots, so a slot that frees starts its next task at once instead of
	// idling for a round trip to the coordinator (default 1; -1 = none).
	// It is the least reserve: for short tasks the worker grows it to
	// cover the round trip (prefetch.go).
	Prefetch int
	// FixedPrefetch keeps the reserve at Prefetch instead of growing it,
	// so that every worker holds exactly Slots+Prefetch credits: a load
	// generator that sets the coordinator's load by hand (nqbench cluster
	// --prefetch).
	FixedPrefetch bool
	// Quiet logs joining and draining at Debug instead of Info (embedded
	// workers, whose coordinator already logs both).
	Quiet bool
	// Stats, when set, receives the worker's own figures as it works
	// (tasks and nodes sent, slot time, joins) for its /metrics.
	Stats *Stats
	// NoRuns makes the worker take one task per lease even from a
	// coordinator that leases runs of tasks (runs.go): for tests and
	// measurements of the single-task path.
	NoRuns bool
	// NoBatches makes the worker ask for one message per task and send
	// one (no AssignBatch, AckBatch or ResultBatch): for measurements of
	// the unbatched path, as NoRuns is for runs.
	NoBatches bool
	// Count counts one task of a counting job, leased alone or in a run
	// (default solver.CountTask). A load generator sets it to answer from
	// a table of known counts, so that it measures the coordinator through
	// this worker's own session instead of a second client of the
	// protocol (nqbench cluster). Listings, pinned and join tasks always
	// run the solver. It is called from every slot at once.
	Count func(n int, t solver.Task) (solver.Counts, error)
}

// Validate reports the first bad field.
func (c Config) Validate() error {
	if c.Join == "" {
		return errors.New("--join HOST:PORT is required")
	}
	if err := checkTarget(c.Join); err != nil {
		return err
	}
	if c.Slots < 0 || c.Slots > 4096 {
		return fmt.Errorf("--slots %d out of range 1..4096", c.Slots)
	}
	if c.Prefetch < -1 || c.Prefetch > 4096 {
		return fmt.Errorf("prefetch %d out of range -1..4096", c.Prefetch)
	}
	if c.Stay && c.JoinOnce {
		return errors.New("--join-timeout 0 (one attempt) does not apply to --stay, which retries until stopped")
	}
	if c.JoinTimeout < 0 {
		return fmt.Errorf("--join-timeout %v must not be negative", c.JoinTimeout)
	}
	return nil
}

// checkTarget refuses a --join that can never connect, such as a host
// without a port, at once: gRPC would otherwise retry it until the join
// timeout. A gRPC target with a scheme (dns:///host:port, unix:///path)
// is passed as it is.
func checkTarget(join string) error {
	if strings.Contains(join, "://") {
		return nil
	}
	_, port, err := net.SplitHostPort(join)
	if err != nil {
		return fmt.Errorf("--join %q: want HOST:PORT (%v)", join, err)
	}
	if p, err := strconv.Atoi(port); err != nil || p < 1 || p > 65535 {
		return fmt.Errorf("--join %q: port %q is not a number in 1..65535", join, port)
	}
	return nil
}

func (c Config) withDefaults() Config {
	if c.Slots == 0 {
		c.Slots = runtime.GOMAXPROCS(0)
	}
	if c.Name == "" {
		c.Name = "worker"
	}
	switch c.Prefetch {
	case 0:
		c.Prefetch = 1
	case -1:
		c.Prefetch = 0
	}
	if c.JoinTimeout == 0 {
		c.JoinTimeout = DefaultJoinTimeout
	}
	if c.Count == nil {
		c.Count = solver.CountTask
	}
	return c
}

// StayPause is how long a worker with Config.Stay waits after a Drain
// before it joins again: the coordinator that drained it is shutting down
// and would accept a Join only to drain it at once.
var StayPause = 2 * time.Second

// sleep waits d or until ctx ends; it reports whether d passed.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// ErrJoin marks a failure to join the coordinator: unreachable (or full)
// for the whole join timeout, or refused (then the error wraps ErrRefused
// as well).
var ErrJoin = errors.New("cannot join coordinator")

// ErrRefused marks a worker the coordinator refused or cut off for what it
// sent (a bad token, another solver version, an invalid message, a limit
// exceeded): joining again would only be refused again, so the worker
// stops. A coordinator that is full refuses for capacity, not for what the
// worker sent: that is retried.
var ErrRefused = errors.New("refused by the coordinator")

// ErrProtocol marks a coordinator that broke the protocol, such as
// Assigns beyond the credits the worker granted: the worker stops rather
// than join again, since a coordinator (or a link) that does this once
// would do it again.
var ErrProtocol = errors.New("the coordinator broke the protocol")

// refused reports whether a Work stream ended with a status that names
// the worker's own fault rather than the network's or the coordinator's.
// FailedPrecondition is not one: the coordinator may have forgotten the
// worker's session (a restart, a Join long ago), and joining again fixes
// that.
func refused(err error) bool {
	switch status.Code(err) {
	case codes.InvalidArgument, codes.ResourceExhausted, codes.PermissionDenied, codes.Unauthenticated:
		return true
	}
	return false
}

// Run joins the coordinator and works until the job ends (Drain: returns
// nil) or ctx is cancelled (the worker hands its leases back and returns
// nil). It retries joining, with jittered exponential back-off, a
// coordinator that is down or full, for JoinTimeout; a broken stream makes
// it rejoin, within JoinTimeout again. A Join refused for what the worker
// sent, or a stream the coordinator ended for the worker's own fault (a
// limit, a bad message), returns an ErrRefused error. It returns only when all its goroutines
// have ended.
func Run(ctx context.Context, cfg Config, log hclog.Logger) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	cfg = cfg.withDefaults()
	opts := append([]grpc.DialOption{
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithKeepaliveParams(KeepaliveParams),
		grpc.WithConnectParams(connectParams),
	}, cfg.DialOptions...)
	conn, err := grpc.NewClient(cfg.Join, opts...)
	if err != nil {
		return fmt.Errorf("%w at %s: %w", ErrJoin, cfg.Join, err)
	}
	defer conn.Close()
	client := nqueenspb.NewCoordinatorServiceClient(conn)
	peer := loglimit.New(log, nil) // for the whole Run: joining again does not reset it
	defer peer.Flush()
	for {
		jr, err := join(ctx, client, cfg, log)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		log := log.With("worker_id", jr.GetWorkerId())
		info(cfg, log)("joined coordinator", "addr", cfg.Join, "n", jr.GetJob().GetN(), "tasks", jr.GetJob().GetTasks())
		var plan solver.Plan
		if !cfg.NoRuns {
			plan, _ = sharedPlans.runPlan(jr.GetJob())
		}
		cfg.Stats.setJoined(true)
		done, err := work(ctx, client, cfg, jr, plan, log, peer)
		cfg.Stats.setJoined(false)
		if ctx.Err() != nil || (done && !cfg.Stay) {
			return nil
		}
		if done {
			info(cfg, log)("job over; staying for the next one", "addr", cfg.Join, "pause", StayPause)
			if !sleep(ctx, StayPause) {
				return nil
			}
			continue
		}
		if errors.Is(err, ErrProtocol) {
			return err
		}
		if refused(err) {
			return fmt.Errorf("%w: the coordinator ended the work stream: %s", ErrRefused, loglimit.Text(status.Convert(err).Message()))
		}
		log.Info("work stream broken; joining again", "error", loglimit.Text(err.Error()))
	}
}
