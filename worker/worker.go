package worker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/status"

	nqueenspb "github.com/nqueens/nqueens/proto/nqueens/v1"
	"github.com/nqueens/nqueens/solver"
)

// Defaults of Config.
const (
	// DefaultJoinTimeout bounds how long a worker keeps retrying to join: long
	// enough for a coordinator started a little later, short enough that a
	// wrong address fails the worker instead of hanging it.
	DefaultJoinTimeout = 30 * time.Second
	// joinAttemptTimeout bounds one Join RPC, so a black-holed address is
	// retried rather than waited on.
	joinAttemptTimeout = 3 * time.Second
	// backoffMin and backoffMax bound the pause between join attempts.
	backoffMin = 100 * time.Millisecond
	backoffMax = 2 * time.Second
	// defaultHeartbeat is used when the coordinator sends no interval.
	defaultHeartbeat = 5 * time.Second
	// outQueue is the send queue between task goroutines and the stream's
	// sender; a full queue pushes back on enumeration.
	outQueue = 64
)

// KeepaliveParams are the client keepalive settings: ping an idle
// connection every 20 s so a dead coordinator (or a cut network) is noticed
// within a lease, and within the coordinator's enforcement minimum (10 s).
var KeepaliveParams = keepalive.ClientParameters{Time: 20 * time.Second, Timeout: 10 * time.Second, PermitWithoutStream: true}

// Config says whom to join and with how many slots.
type Config struct {
	// Join is the coordinator's HOST:PORT (required).
	Join string
	// Slots is how many tasks run at once, one goroutine each (default:
	// runtime.NumCPU()).
	Slots int
	// Name labels the worker in the coordinator's logs (default: "worker").
	Name string
	// JoinTimeout bounds the retries of the first join and of rejoining
	// after a broken stream (default DefaultJoinTimeout).
	JoinTimeout time.Duration
	// DialOptions are added to the connection's options: transport
	// credentials (TLS), per-RPC credentials (a token) and interceptors from
	// package auth go here. Without transport credentials the connection is
	// plaintext.
	DialOptions []grpc.DialOption
	// Prefetch is how many leased tasks may wait locally beyond the busy
	// slots, so a slot that frees starts its next task at once instead of
	// idling for a round trip to the coordinator (default 1; -1 = none).
	Prefetch int
	// Quiet logs joining and draining at Debug instead of Info (embedded
	// workers, whose coordinator already logs both).
	Quiet bool
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
		c.Slots = runtime.NumCPU()
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
	return c
}

// ErrJoin marks a failure to join the coordinator (unreachable, refused).
var ErrJoin = errors.New("cannot join coordinator")

// ErrRefused marks a worker the coordinator cut off for what it sent (a
// limit exceeded, an invalid message, a bad token): joining again would
// only be cut off again, so the worker stops.
var ErrRefused = errors.New("refused by the coordinator")

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
// nil). A broken stream makes it rejoin, within JoinTimeout; a stream the
// coordinator ended for the worker's own fault (a limit, a bad message)
// returns an ErrRefused error. It returns only when all its goroutines
// have ended.
func Run(ctx context.Context, cfg Config, log hclog.Logger) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	cfg = cfg.withDefaults()
	opts := append([]grpc.DialOption{
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithKeepaliveParams(KeepaliveParams),
	}, cfg.DialOptions...)
	conn, err := grpc.NewClient(cfg.Join, opts...)
	if err != nil {
		return fmt.Errorf("%w at %s: %w", ErrJoin, cfg.Join, err)
	}
	defer conn.Close()
	client := nqueenspb.NewCoordinatorServiceClient(conn)
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
		done, err := work(ctx, client, cfg, jr, log)
		if done || ctx.Err() != nil {
			return nil
		}
		if refused(err) {
			return fmt.Errorf("%w: the coordinator ended the work stream: %s", ErrRefused, status.Convert(err).Message())
		}
		log.Info("work stream broken; joining again", "error", err)
	}
}

// join calls Join with backoff until it succeeds, fails for good, or
// cfg.JoinTimeout passes.
func join(ctx context.Context, client nqueenspb.CoordinatorServiceClient, cfg Config, log hclog.Logger) (*nqueenspb.JoinResponse, error) {
	deadline := time.Now().Add(cfg.JoinTimeout)
	req := &nqueenspb.JoinRequest{Name: cfg.Name, Slots: uint32(cfg.Slots), SolverVersion: solver.Version}
	pause := backoffMin
	for {
		actx, cancel := context.WithTimeout(ctx, min(joinAttemptTimeout, time.Until(deadline)))
		jr, err := client.Join(actx, req, grpc.WaitForReady(true))
		cancel()
		if err == nil {
			return jr, nil
		}
		switch status.Code(err) {
		case codes.Unavailable, codes.DeadlineExceeded:
		default:
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, fmt.Errorf("%w at %s: %s", ErrJoin, cfg.Join, status.Convert(err).Message())
		}
		if time.Now().Add(pause).After(deadline) {
			return nil, fmt.Errorf("%w at %s within %v: %s", ErrJoin, cfg.Join, cfg.JoinTimeout, status.Convert(err).Message())
		}
		log.Debug("join failed; retrying", "error", err, "pause", pause)
		select {
		case <-time.After(pause):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		pause = min(2*pause, backoffMax)
	}
}

// running is one task in progress.
type running struct {
	leaseID uint64
	cancel  context.CancelFunc
}

// work runs one Work session. It reports done when the coordinator drained
// the worker, and the stream's error otherwise.
func work(ctx context.Context, client nqueenspb.CoordinatorServiceClient, cfg Config, jr *nqueenspb.JoinResponse, log hclog.Logger) (done bool, err error) {
	sctx, cancelStream := context.WithCancel(context.Background())
	defer cancelStream()
	stream, err := client.Work(sctx)
	if err != nil {
		return false, err
	}
	out := make(chan *nqueenspb.WorkRequest, outQueue)
	stop := make(chan struct{}) // closed when the session ends: tasks stop sending
	var (
		mu    sync.Mutex
		tasks = make(map[uint64]*running)
		wg    sync.WaitGroup // task goroutines
		slots = make(chan struct{}, cfg.Slots)
	)
	send := func(m *nqueenspb.WorkRequest) bool {
		select {
		case out <- m:
			return true
		case <-stop:
			return false
		}
	}
	// The sender: the only goroutine that calls stream.Send.
	sendErr := make(chan error, 1)
	senderDone := make(chan struct{})
	go func() {
		defer close(senderDone)
		for {
			select {
			case m := <-out:
				if err := stream.Send(m); err != nil {
					sendErr <- err
					return
				}
			case <-stop:
				// Flush what is queued (a Release), then close our side.
				for {
					select {
					case m := <-out:
						if stream.Send(m) != nil {
							return
						}
					default:
						stream.CloseSend()
						return
					}
				}
			}
		}
	}()
	interval := jr.GetHeartbeatInterval().AsDuration()
	if interval <= 0 {
		interval = defaultHeartbeat
	}
	hbDone := make(chan struct{})
	go func() {
		defer close(hbDone)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				mu.Lock()
				ids := make([]uint64, 0, len(tasks))
				for id := range tasks {
					ids = append(ids, id)
				}
				mu.Unlock()
				if !send(&nqueenspb.WorkRequest{Msg: &nqueenspb.WorkRequest_Heartbeat{Heartbeat: &nqueenspb.Heartbeat{LeaseIds: ids}}}) {
					return
				}
			case <-stop:
				return
			}
		}
	}()

	// finish ends the session: stop the tasks, optionally hand their leases
	// back, let the sender flush and close, and wait for every goroutine.
	finish := func(release bool) {
		mu.Lock()
		ids := make([]uint64, 0, len(tasks))
		for id, r := range tasks {
			ids = append(ids, id)
			r.cancel()
		}
		mu.Unlock()
		if release && len(ids) > 0 {
			select {
			case out <- &nqueenspb.WorkRequest{Msg: &nqueenspb.WorkRequest_Release{Release: &nqueenspb.Release{LeaseIds: ids}}}:
			default:
			}
		}
		close(stop)
		select {
		case <-senderDone:
		case <-time.After(endWait): // a coordinator that stopped reading
			cancelStream()
			<-senderDone
		}
		<-hbDone
		wg.Wait()
	}

	if !send(&nqueenspb.WorkRequest{Msg: &nqueenspb.WorkRequest_Ready{Ready: &nqueenspb.Ready{WorkerId: jr.GetWorkerId(), Credits: uint32(cfg.Slots + cfg.Prefetch)}}}) {
		finish(false)
		return false, errors.New("session stopped")
	}

	// Receive in a goroutine so that ctx cancellation is noticed at once.
	msgs := make(chan recv)
	recvDone := make(chan struct{})
	go func() {
		defer close(recvDone)
		for {
			m, err := stream.Recv()
			select {
			case msgs <- recv{m, err}:
			case <-sctx.Done():
				return
			}
			if err != nil {
				return
			}
		}
	}()
	defer func() { cancelStream(); <-recvDone }()

	for {
		var r recv
		select {
		case <-ctx.Done():
			log.Info("stopping; handing leases back")
			finish(true)
			awaitEnd(msgs)
			return true, nil
		case err := <-sendErr:
			finish(false)
			return false, err
		case r = <-msgs:
		}
		if r.err != nil {
			finish(false)
			if errors.Is(r.err, io.EOF) {
				return false, errors.New("coordinator ended the stream without Drain")
			}
			return false, r.err
		}
		switch m := r.m.GetMsg().(type) {
		case *nqueenspb.WorkResponse_Assign:
			a := m.Assign
			tctx, cancel := context.WithCancel(ctx)
			mu.Lock()
			tasks[a.GetLeaseId()] = &running{leaseID: a.GetLeaseId(), cancel: cancel}
			mu.Unlock()
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer cancel()
				var res *nqueenspb.Result
				select { // a prefetched task waits for a free slot
				case slots <- struct{}{}:
					if tctx.Err() == nil {
						res = runTask(tctx, a, func(b *nqueenspb.SolutionBatch) bool {
							return send(&nqueenspb.WorkRequest{Msg: &nqueenspb.WorkRequest_SolutionBatch{SolutionBatch: b}})
						})
					}
					<-slots
				case <-tctx.Done():
				}
				mu.Lock()
				_, still := tasks[a.GetLeaseId()]
				delete(tasks, a.GetLeaseId())
				mu.Unlock()
				if still && tctx.Err() == nil {
					if res.GetFailure() != "" {
						log.Error("task failed", "task", a.GetTaskId().GetIndex(), "error", res.GetFailure())
					}
					if !send(&nqueenspb.WorkRequest{Msg: &nqueenspb.WorkRequest_Result{Result: res}}) {
						return
					}
				}
				send(&nqueenspb.WorkRequest{Msg: &nqueenspb.WorkRequest_Ready{Ready: &nqueenspb.Ready{Credits: 1}}})
			}()
		case *nqueenspb.WorkResponse_Cancel:
			mu.Lock()
			if r := tasks[m.Cancel.GetLeaseId()]; r != nil {
				r.cancel()
			}
			mu.Unlock()
			log.Debug("task cancelled", "task", m.Cancel.GetTaskId().GetIndex(), "reason", m.Cancel.GetReason())
		case *nqueenspb.WorkResponse_Ack:
			switch m.Ack.GetOutcome() {
			case nqueenspb.Ack_OUTCOME_COMMITTED, nqueenspb.Ack_OUTCOME_VERIFIED, nqueenspb.Ack_OUTCOME_DUPLICATE:
			default:
				log.Warn("result not committed", "task", m.Ack.GetTaskId().GetIndex(), "outcome", m.Ack.GetOutcome().String(), "reason", m.Ack.GetReason())
			}
		case *nqueenspb.WorkResponse_Drain:
			info(cfg, log)("drained by coordinator", "reason", m.Drain.GetReason())
			finish(false)
			awaitEnd(msgs)
			return true, nil
		}
	}
}

// info returns the logging function for lifecycle events.
func info(cfg Config, log hclog.Logger) func(string, ...any) {
	if cfg.Quiet {
		return log.Debug
	}
	return log.Info
}

// recv is one result of stream.Recv.
type recv struct {
	m   *nqueenspb.WorkResponse
	err error
}

// endWait bounds how long a finishing worker waits for the coordinator to
// end the stream after the worker closed its side, so the coordinator reads
// a clean end (and any Release) rather than a cancellation.
const endWait = 2 * time.Second

// awaitEnd discards messages until the stream ends or endWait passes.
func awaitEnd(msgs <-chan recv) {
	t := time.NewTimer(endWait)
	defer t.Stop()
	for {
		select {
		case r := <-msgs:
			if r.err != nil {
				return
			}
		case <-t.C:
			return
		}
	}
}
