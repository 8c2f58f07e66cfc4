package coordinator

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/nqueens/nqueens/listing"
	nqueenspb "github.com/nqueens/nqueens/proto/nqueens/v1"
	"github.com/nqueens/nqueens/solver"
)

// sendGrace is how long a finished Work handler waits for its sender
// goroutine to flush the last messages (the Drain) to a worker that stopped
// reading.
const sendGrace = 5 * time.Second

// session is one joined worker. The fields credits, held, attached, gone
// and quarantined are guarded by scheduler.mu; out has its own lock.
type session struct {
	id, name    string
	key         uint64 // random, unique across runs: names its commits in the journal
	credits     int
	held        map[uint64]*lease // live leases by id
	attached    bool
	gone        bool
	quarantined bool      // caught lying: drained, its results refused
	joined      time.Time // when Join made the session (unattached ones expire)
	out         *outbox
	limit       *limiter // its Work messages per second (own lock)
}

// outbox queues a session's messages for its single sender goroutine. It is
// unbounded, but what enters it is bounded by the worker's credits and
// results: one Assign per credit, one Ack per Result, a few Cancels and one
// Drain.
type outbox struct {
	mu     sync.Mutex
	q      []*nqueenspb.WorkResponse
	closed bool
	notify chan struct{} // capacity 1: "something changed"
	// cancelled, when set, is told the lease of every Cancel pushed (a
	// lease that ended without a Result: expired, rejected, committed
	// elsewhere), so its spill file goes at once. It must not block.
	cancelled func(leaseID uint64)
}

func newOutbox() *outbox { return &outbox{notify: make(chan struct{}, 1)} }

func (o *outbox) push(m *nqueenspb.WorkResponse) {
	o.mu.Lock()
	if !o.closed {
		o.q = append(o.q, m)
	}
	cancelled := o.cancelled
	o.mu.Unlock()
	if c := m.GetCancel(); c != nil && cancelled != nil {
		cancelled(c.GetLeaseId())
	}
	o.poke()
}

// onCancel sets the outbox's cancelled hook.
func (o *outbox) onCancel(f func(leaseID uint64)) {
	o.mu.Lock()
	o.cancelled = f
	o.mu.Unlock()
}

func (o *outbox) close() {
	o.mu.Lock()
	o.closed = true
	o.mu.Unlock()
	o.poke()
}

func (o *outbox) poke() {
	select {
	case o.notify <- struct{}{}:
	default:
	}
}

// take returns the queued messages and whether the outbox is closed.
func (o *outbox) take() ([]*nqueenspb.WorkResponse, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	q := o.q
	o.q = nil
	return q, o.closed
}

// service implements nqueens.v1.CoordinatorService on top of a scheduler.
type service struct {
	nqueenspb.UnimplementedCoordinatorServiceServer
	sched     *scheduler
	log       hclog.Logger
	heartbeat time.Duration
	pub       *listing.Publisher // the listing (want only): attempts spill into its spools
	wire      wire               // what validateWork checks messages against
}

// Join registers a worker; see the proto for the contract.
func (v *service) Join(ctx context.Context, req *nqueenspb.JoinRequest) (*nqueenspb.JoinResponse, error) {
	if err := validateJoin(req); err != nil {
		v.log.Warn("join refused", "peer", peerAddr(ctx), "error", status.Convert(err).Message())
		return nil, err
	}
	sess, err := v.sched.join(req.GetName())
	if err != nil {
		v.log.Warn("join refused", "peer", peerAddr(ctx), "worker_name", req.GetName(), "error", err)
		return nil, status.Error(codes.ResourceExhausted, err.Error())
	}
	v.log.Info("worker joined", "worker_id", sess.id, "worker_name", req.GetName(), "slots", req.GetSlots())
	p := v.sched.plan
	return &nqueenspb.JoinResponse{
		WorkerId: sess.id,
		Job: &nqueenspb.Job{
			N:               uint32(p.N),
			Depth:           uint32(p.Depth),
			Kind:            nqueenspb.TaskKind_TASK_KIND_COUNT,
			PlanFingerprint: v.sched.fingerprint,
			Tasks:           uint32(len(p.Tasks)),
		},
		Lease:             durationpb.New(v.sched.leaseLen),
		HeartbeatInterval: durationpb.New(v.heartbeat),
	}, nil
}

// attempt is the coordinator's side of one lease's solution stream: the
// checker of what the worker sends and the spill file the valid batches go
// to. It belongs to the session's Work handler; the spill file's own lock
// lets a Cancel end it from elsewhere (outbox.cancelled).
type attempt struct {
	check *batchChecker
	spill *listing.Attempt
}

// Work runs one worker's session; see the proto for the contract.
func (v *service) Work(stream nqueenspb.CoordinatorService_WorkServer) error {
	first, err := firstMessage(stream, v.sched.leaseLen)
	if err != nil {
		if status.Code(err) == codes.DeadlineExceeded {
			v.log.Warn("work stream refused", "peer", peerAddr(stream.Context()), "error", status.Convert(err).Message())
		}
		return err
	}
	r := first.GetReady()
	if r == nil {
		v.log.Warn("work stream refused", "peer", peerAddr(stream.Context()), "error", "first message is not Ready")
		return status.Error(codes.InvalidArgument, "the first Work message must be Ready with the worker id")
	}
	if err := validateWork(v.wire, first); err != nil {
		v.log.Warn("work stream refused", "peer", peerAddr(stream.Context()), "error", status.Convert(err).Message())
		return err
	}
	sess, err := v.sched.attach(r.GetWorkerId(), r.GetCredits())
	if err != nil {
		v.log.Warn("work stream refused", "peer", peerAddr(stream.Context()), "error", err)
		return status.Error(codes.FailedPrecondition, err.Error())
	}
	log := v.log.With("worker_id", sess.id, "worker_name", sess.name)
	log.Debug("work stream opened")

	sendDone := make(chan error, 1)
	go func() { sendDone <- sendLoop(stream, sess.out) }()

	// The session's attempts: created on a lease's first valid batch,
	// ended by its Result, a rejected batch, a Release, a Cancel (expiry,
	// commit elsewhere) or the end of the stream, each freeing the spill
	// file at once (issue 12, D1).
	attempts := make(map[uint64]*attempt)
	var spool *listing.Spool
	if v.pub != nil {
		spool = v.pub.Spool()
		sess.out.onCancel(spool.End)
		defer spool.Close()
	}
	var recvErr, refusal error
	overBudget := false // refused for its spills (listing.ErrOverBudget)
	for {
		msg, err := stream.Recv()
		if err != nil {
			recvErr = err
			break
		}
		if !sess.limit.take(v.sched.clock.Now()) {
			refusal = floodError(v.sched.msgRate)
			log.Warn("worker sends too many messages; session ended, its tasks go back to the queue", "max_per_second", v.sched.msgRate)
			break
		}
		if err := validateWork(v.wire, msg); err != nil {
			refusal = err
			log.Warn("malformed work message; session ended, its tasks go back to the queue", "error", status.Convert(err).Message())
			break
		}
		switch m := msg.GetMsg().(type) {
		case *nqueenspb.WorkRequest_Ready:
			v.sched.ready(sess, m.Ready.GetCredits())
		case *nqueenspb.WorkRequest_Heartbeat:
			v.sched.heartbeat(sess, m.Heartbeat.GetLeaseIds())
		case *nqueenspb.WorkRequest_SolutionBatch:
			if err := v.batch(sess, spool, attempts, m.SolutionBatch, log); err != nil {
				refusal, overBudget = status.Error(codes.ResourceExhausted, err.Error()), true
				log.Warn("worker over its spill budget; session ended, its tasks go back to the queue", "error", err)
			}
		case *nqueenspb.WorkRequest_Result:
			v.result(sess, attempts, m.Result)
		case *nqueenspb.WorkRequest_Release:
			v.sched.release(sess, m.Release.GetLeaseIds())
			endAttempts(attempts, m.Release.GetLeaseIds())
		default:
			log.Warn("unknown work message ignored")
		}
		if overBudget {
			break
		}
	}
	broken := !errors.Is(recvErr, io.EOF)
	switch {
	case overBudget:
		// The session's fault, not its tasks': no retry is counted.
		v.sched.detach(sess, false, status.Convert(refusal).Message())
	case refusal != nil:
		v.sched.detach(sess, true, status.Convert(refusal).Message())
	case broken:
		log.Info("work stream broken; its tasks go back to the queue", "error", recvErr)
		v.sched.detach(sess, true, "worker stream ended")
	default:
		log.Debug("work stream closed by worker")
		v.sched.detach(sess, false, "worker stream ended")
	}
	select {
	case err := <-sendDone:
		if err != nil && !broken {
			log.Debug("sending to worker failed", "error", err)
		}
	case <-time.After(sendGrace):
	}
	return refusal
}

// peerAddr is the network address of the RPC's client, for log lines.
func peerAddr(ctx context.Context) string {
	if p, ok := peer.FromContext(ctx); ok && p.Addr != nil {
		return p.Addr.String()
	}
	return "unknown"
}

// firstMessage receives a Work stream's first message, waiting at most
// wait: a stream that never says Ready would otherwise hold its handler
// (and the memory of its connection) for as long as the client likes.
func firstMessage(stream nqueenspb.CoordinatorService_WorkServer, wait time.Duration) (*nqueenspb.WorkRequest, error) {
	type recv struct {
		m   *nqueenspb.WorkRequest
		err error
	}
	got := make(chan recv, 1)
	go func() { // ends when the handler returns: the stream's context is cancelled
		m, err := stream.Recv()
		got <- recv{m, err}
	}()
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case r := <-got:
		return r.m, r.err
	case <-t.C:
		return nil, status.Errorf(codes.DeadlineExceeded, "no Ready within %v of opening the Work stream", wait)
	}
}

// sendLoop is the only goroutine that sends on a Work stream.
func sendLoop(stream nqueenspb.CoordinatorService_WorkServer, out *outbox) error {
	ctx := stream.Context()
	for {
		msgs, closed := out.take()
		for _, m := range msgs {
			if err := stream.Send(m); err != nil {
				return err
			}
		}
		if closed {
			return nil
		}
		select {
		case <-out.notify:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// batch checks a SolutionBatch and spills it to its attempt's file. It
// returns an error (wrapping listing.ErrOverBudget) only when the worker is
// over its spill budget: then the session ends.
func (v *service) batch(sess *session, spool *listing.Spool, attempts map[uint64]*attempt, b *nqueenspb.SolutionBatch, log hclog.Logger) error {
	l, err := v.sched.leaseFor(sess, b.GetTaskId(), b.GetLeaseId())
	if err != nil {
		// A batch that crossed a Cancel on the wire: expected, dropped.
		log.Debug("solution batch dropped", "lease_id", b.GetLeaseId(), "error", err)
		return nil
	}
	a := attempts[l.id]
	if a == nil {
		a = &attempt{check: newBatchChecker(v.sched.plan.N, v.sched.plan.Tasks[l.task].Prefix)}
		attempts[l.id] = a
	}
	if err := a.check.check(b.GetSeq(), b.GetCount(), b.GetPacked(), nil); err != nil {
		log.Warn("invalid solution batch rejected", "task", l.task, "lease_id", l.id, "error", err)
		if a.spill != nil {
			a.spill.Discard()
		}
		delete(attempts, l.id)
		v.sched.rejectBatch(sess, l.id, err.Error())
		return nil
	}
	if a.spill == nil {
		sp, err := spool.Open(l.id, l.task)
		if errors.Is(err, listing.ErrOverBudget) {
			delete(attempts, l.id)
			return err
		}
		if err != nil {
			v.sched.fail(fmt.Errorf("spill solutions: %w", err))
			return nil
		}
		a.spill = sp
	}
	if err := a.spill.Write(b.GetPacked()); err != nil && !errors.Is(err, listing.ErrEnded) {
		v.sched.fail(fmt.Errorf("spill solutions: %w", err))
	}
	return nil
}

// endAttempts discards the attempts of leases that ended without a Result
// (released): their spill files go at once.
func endAttempts(attempts map[uint64]*attempt, ids []uint64) {
	for _, id := range ids {
		if a := attempts[id]; a != nil {
			if a.spill != nil {
				a.spill.Discard()
			}
			delete(attempts, id)
		}
	}
}

// result hands a Result to the scheduler and acknowledges it.
func (v *service) result(sess *session, attempts map[uint64]*attempt, r *nqueenspb.Result) {
	var streamed solver.Counts
	path := ""
	if a := attempts[r.GetLeaseId()]; a != nil {
		delete(attempts, r.GetLeaseId())
		if a.spill != nil {
			// ErrEnded: the lease ended before its Result (a Cancel
			// crossed it), and its solutions are gone; the scheduler
			// judges the result without them.
			p, err := a.spill.Close()
			switch {
			case err == nil:
				path, streamed = p, a.check.streamed
			case !errors.Is(err, listing.ErrEnded):
				v.sched.fail(fmt.Errorf("spill solutions: %w", err))
			}
		}
	}
	out := v.sched.result(sess, r, streamed, path)
	if out.code != nqueenspb.Ack_OUTCOME_COMMITTED && path != "" {
		os.Remove(path)
	}
	if !v.sched.makeDurable(out) {
		return // the job failed; no Ack for a commit that is not durable
	}
	sess.out.push(&nqueenspb.WorkResponse{Msg: &nqueenspb.WorkResponse_Ack{Ack: &nqueenspb.Ack{
		TaskId: r.GetTaskId(), Outcome: out.code, Reason: out.reason,
	}}})
}
