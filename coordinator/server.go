package coordinator

import (
	"bufio"
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

	nqueenspb "github.com/nqueens/nqueens/proto/nqueens/v1"
	"github.com/nqueens/nqueens/solver"
)

// sendGrace is how long a finished Work handler waits for its sender
// goroutine to flush the last messages (the Drain) to a worker that stopped
// reading.
const sendGrace = 5 * time.Second

// spillBufferSize is the write buffer of one attempt's spill file.
const spillBufferSize = 64 << 10

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
}

func newOutbox() *outbox { return &outbox{notify: make(chan struct{}, 1)} }

func (o *outbox) push(m *nqueenspb.WorkResponse) {
	o.mu.Lock()
	if !o.closed {
		o.q = append(o.q, m)
	}
	o.mu.Unlock()
	o.poke()
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
	spillDir  string // where attempts spill their solutions (want only)
	wire      wire   // what validateWork checks messages against
}

// Join registers a worker; see the proto for the contract.
func (v *service) Join(ctx context.Context, req *nqueenspb.JoinRequest) (*nqueenspb.JoinResponse, error) {
	if err := validateJoin(req); err != nil {
		v.log.Warn("join refused", "peer", peerAddr(ctx), "error", status.Convert(err).Message())
		return nil, err
	}
	sess, err := v.sched.join(req.GetName())
	if err != nil {
		// Capacity, not the worker's fault: ResourceExhausted, which a
		// worker retries with back-off while Joins that never opened a
		// Work stream expire (attachTimeout).
		v.log.Warn("join refused", "peer", peerAddr(ctx), "worker_name", req.GetName(), "error", err)
		return nil, status.Errorf(codes.ResourceExhausted, "coordinator full (%v), retry later", err)
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
// checker and the spill file. It belongs to the session's Work handler.
type attempt struct {
	check  *batchChecker
	f      *os.File
	w      *bufio.Writer
	failed bool
}

func (a *attempt) discard() {
	if a.f != nil {
		a.f.Close()
		os.Remove(a.f.Name())
		a.f = nil
	}
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

	attempts := make(map[uint64]*attempt)
	defer func() {
		for _, a := range attempts {
			a.discard()
		}
	}()
	var recvErr, refusal error
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
			v.batch(sess, attempts, m.SolutionBatch, log)
		case *nqueenspb.WorkRequest_Result:
			v.result(sess, attempts, m.Result)
		case *nqueenspb.WorkRequest_Release:
			v.sched.release(sess, m.Release.GetLeaseIds())
		default:
			log.Warn("unknown work message ignored")
		}
	}
	broken := !errors.Is(recvErr, io.EOF)
	switch {
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

// batch checks a SolutionBatch and spills it to its attempt's file.
func (v *service) batch(sess *session, attempts map[uint64]*attempt, b *nqueenspb.SolutionBatch, log hclog.Logger) {
	l, err := v.sched.leaseFor(sess, b.GetTaskId(), b.GetLeaseId())
	if err != nil {
		// A batch that crossed a Cancel on the wire: expected, dropped.
		log.Debug("solution batch dropped", "lease_id", b.GetLeaseId(), "error", err)
		return
	}
	a := attempts[l.id]
	if a == nil {
		a = &attempt{check: newBatchChecker(v.sched.plan.N, v.sched.plan.Tasks[l.task].Prefix)}
		attempts[l.id] = a
	}
	if a.failed {
		return
	}
	if a.f == nil {
		f, err := os.CreateTemp(v.spillDir, fmt.Sprintf("task-%d-*.sol", l.task))
		if err != nil {
			v.sched.fail(fmt.Errorf("spill solutions: %w", err))
			return
		}
		a.f, a.w = f, bufio.NewWriterSize(f, spillBufferSize)
	}
	err = a.check.check(b.GetSeq(), b.GetCount(), b.GetPacked(), func(sol []byte) error {
		_, err := a.w.Write(sol)
		return err
	})
	if err != nil {
		if errors.Is(err, errBatch) {
			log.Warn("invalid solution batch rejected", "task", l.task, "lease_id", l.id, "error", err)
			a.failed = true
			a.discard()
			v.sched.rejectBatch(sess, l.id, err.Error())
			return
		}
		v.sched.fail(fmt.Errorf("spill solutions: %w", err))
	}
}

// result hands a Result to the scheduler and acknowledges it.
func (v *service) result(sess *session, attempts map[uint64]*attempt, r *nqueenspb.Result) {
	var streamed solver.Counts
	path := ""
	if a := attempts[r.GetLeaseId()]; a != nil {
		delete(attempts, r.GetLeaseId())
		if a.f != nil && !a.failed {
			if err := a.w.Flush(); err != nil {
				v.sched.fail(fmt.Errorf("spill solutions: %w", err))
			}
			path = a.f.Name()
			if err := a.f.Close(); err != nil {
				v.sched.fail(fmt.Errorf("spill solutions: %w", err))
			}
			a.f = nil
			streamed = a.check.streamed
		}
		a.discard()
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
