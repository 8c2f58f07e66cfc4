package coordinator

import (
	"context"
	"errors"
	"io"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/nqueens/nqueens/coordinator/internal/sched"
	"github.com/nqueens/nqueens/coordinator/internal/wire"
	"github.com/nqueens/nqueens/listing"
	nqueenspb "github.com/nqueens/nqueens/proto/nqueens/v1"
	"github.com/nqueens/nqueens/solver"
)

// The gRPC service: the only place that speaks the wire protocol. It turns
// wire messages into the scheduler's calls and the scheduler's mailbox
// messages (outbox.go) into wire messages.

// sendGrace is how long a finished Work handler waits for its sender
// goroutine to flush the last messages (the Drain) to a worker that stopped
// reading.
const sendGrace = 5 * time.Second

// service implements nqueens.v1.CoordinatorService on top of a scheduler.
type service struct {
	nqueenspb.UnimplementedCoordinatorServiceServer
	sched  *sched.Scheduler
	edge   edgeOptions
	log    hclog.Logger
	pub    *listing.Publisher // the listing (listings only): attempts spill into its spools
	wire   wire.Job           // what wire.ValidateWork checks messages against
	recent recentSolutions

	mu       sync.Mutex
	outboxes map[*outbox]bool // the attached sessions' (the hostile tests measure them)
}

// edgeOptions is what the service needs to know of the job: the same
// values the scheduler was made with, never read back from it.
type edgeOptions struct {
	plan      solver.Plan
	lease     time.Duration
	heartbeat time.Duration
	rate      float64 // Work messages per second per worker
	clock     Clock
	journaled bool // commits wait for the journal's fsync before their Ack
	// cut closes the connection of a peer address (connguard.Guard.Cut):
	// for a session whose worker does not read, whose end it would never
	// see. nil: not closed.
	cut func(remote string) bool
	// embeddedKey tells the job's embedded workers (trust.go); the others
	// are remote and get remoteVerify, their share of commits verified.
	embeddedKey  string
	remoteVerify float64
}

func newService(s *sched.Scheduler, e edgeOptions, log hclog.Logger, pub *listing.Publisher) *service {
	return &service{sched: s, edge: e, log: log, pub: pub,
		wire: wire.Job{N: e.plan.N, Want: pub != nil}, outboxes: make(map[*outbox]bool)}
}

// Join registers a worker; see the proto for the contract.
func (v *service) Join(ctx context.Context, req *nqueenspb.JoinRequest) (*nqueenspb.JoinResponse, error) {
	if err := wire.ValidateJoin(req); err != nil {
		v.log.Warn("join refused", "peer", peerAddr(ctx), "error", status.Convert(err).Message())
		return nil, err
	}
	embedded := v.edge.embedded(ctx)
	verify := v.edge.remoteVerify
	if embedded {
		verify = 0 // the coordinator's own code
	}
	sess, err := v.sched.Join(sched.JoinRequest{Name: req.GetName(), Version: req.GetBuildVersion(),
		Slots: int(req.GetSlots()), Batches: req.GetBatches(), VerifyFraction: verify})
	if err != nil {
		v.log.Warn("join refused", "peer", peerAddr(ctx), "worker_name", req.GetName(), "error", err)
		return nil, refusal(err)
	}
	logJoin := v.log.Info
	if embedded {
		logJoin = v.log.Debug // the job's own: not news to the user who asked for them
	}
	logJoin("worker joined", "worker_id", sess.ID(), "worker_name", req.GetName(), "slots", req.GetSlots())
	p := v.edge.plan
	return &nqueenspb.JoinResponse{
		WorkerId: sess.ID(),
		Job: &nqueenspb.Job{
			N:               uint32(p.N),
			Depth:           uint32(p.Depth),
			Kind:            wireKind(wirePins(p), p.Kind == solver.KindJoin),
			PlanFingerprint: p.Fingerprint(),
			Tasks:           uint32(p.Len()),
			PinnedColumns:   wirePins(p),
		},
		Lease:             durationpb.New(v.edge.lease),
		HeartbeatInterval: durationpb.New(v.edge.heartbeat),
		Batches:           true,
	}, nil
}

// Work runs one worker's session; see the proto for the contract.
func (v *service) Work(stream nqueenspb.CoordinatorService_WorkServer) error {
	addr := peerAddr(stream.Context())
	first, err := firstMessage(stream, v.edge.lease)
	if err != nil {
		if status.Code(err) == codes.DeadlineExceeded {
			v.log.Warn("work stream refused", "peer", addr, "error", status.Convert(err).Message())
		}
		return err
	}
	r := first.GetReady()
	if r == nil {
		v.log.Warn("work stream refused", "peer", addr, "error", "first message is not Ready")
		return status.Error(codes.InvalidArgument, "the first Work message must be Ready with the worker id")
	}
	if err := wire.ValidateWork(v.wire, first); err != nil {
		v.log.Warn("work stream refused", "peer", addr, "error", status.Convert(err).Message())
		return err
	}
	var out *outbox
	open := func(batches bool) sched.Mailbox {
		out = newOutbox(v.edge.plan.N, v.pub != nil, batches, wirePins(v.edge.plan), wire.NewLimiter(v.edge.rate, v.edge.clock.Now()))
		out.join = v.edge.plan.Kind == solver.KindJoin
		return out
	}
	sess, err := v.sched.Attach(r.GetWorkerId(), addr, r.GetCredits(), r.GetRuns(), open)
	if err != nil {
		v.log.Warn("work stream refused", "peer", addr, "error", err)
		return refusal(err)
	}
	ws := &workSession{v: v, sess: sess, out: out, attempts: make(map[uint64]*attempt), remote: addr,
		log: v.log.With("worker_id", sess.ID(), "worker_name", sess.Name())}
	v.mu.Lock()
	v.outboxes[out] = true
	v.mu.Unlock()
	defer func() {
		v.mu.Lock()
		delete(v.outboxes, out)
		v.mu.Unlock()
	}()
	if v.pub != nil {
		ws.spool = v.pub.Spool()
		ws.out.onCancel(ws.spool.End) // a cancelled lease's spill goes at once
		defer ws.spool.Close()
	}
	return ws.run(stream)
}

// refusals is the one table from the scheduler's refusals to gRPC codes.
// A worker retries ResourceExhausted with back-off (Joins that never open
// a Work stream expire meanwhile) and joins again on FailedPrecondition.
var refusals = []struct {
	err    error
	code   codes.Code
	format string
}{
	{sched.ErrTooManyWorkers, codes.ResourceExhausted, "coordinator full (%v), retry later"},
	{sched.ErrUnknownWorker, codes.FailedPrecondition, "%v"},
	{sched.ErrAttached, codes.FailedPrecondition, "%v"},
}

// refusal is the gRPC status of a scheduler's refusal; one it does not
// name is Internal.
func refusal(err error) error {
	for _, r := range refusals {
		if errors.Is(err, r.err) {
			return status.Errorf(r.code, r.format, err)
		}
	}
	return status.Errorf(codes.Internal, "%v", err)
}

// workSession is the server's side of one Work stream: the receive loop
// runs on the handler's goroutine, sends on their own (sendLoop).
type workSession struct {
	v        *service
	sess     *sched.Session
	out      *outbox
	log      hclog.Logger
	attempts map[uint64]*attempt // the spills of the leases it streams (listings)
	spool    *listing.Spool      // where they spill (listings)
	acks     *acker              // sends Acks after the journal's fsync; nil without a journal
	remote   string              // the peer's address, for a cut
}

// errOutboxFull ends a session whose worker does not read its messages.
var errOutboxFull = status.Errorf(codes.ResourceExhausted, "more than %d messages queued for this worker: it does not read them", maxOutbox)

// run receives until the stream ends, the worker breaks a limit, or it
// stops reading; then it detaches the session.
func (ws *workSession) run(stream nqueenspb.CoordinatorService_WorkServer) error {
	ws.log.Debug("work stream opened")
	ctx := stream.Context()
	sendDone := make(chan error, 1)
	go func() { sendDone <- sendLoop(stream, ws.out) }()
	msgs := make(chan *nqueenspb.WorkRequest)
	recvErr := make(chan error, 1)
	go func() { // ends with the stream: the handler's return cancels ctx
		for {
			m, err := stream.Recv()
			if err != nil {
				recvErr <- err
				return
			}
			select {
			case msgs <- m:
			case <-ctx.Done():
				return
			}
		}
	}()
	defer ws.discardAttempts()
	if ws.v.edge.journaled {
		ws.acks = newAcker(ws.sched(), ws.out)
	}
	var err, refusal error
	sent := false
loop:
	for {
		select {
		case m := <-msgs:
			if refusal = ws.handle(m); refusal != nil {
				break loop
			}
		case err = <-recvErr:
			break loop
		case <-ws.out.full:
			refusal = errOutboxFull
			ws.sess.Warn("worker does not read its messages; session ended, its tasks go back to the queue", "max_queued", maxOutbox)
			break loop
		case err = <-sendDone:
			sent = true
			if errors.Is(err, errOutboxFull) {
				refusal = err
			}
			break loop
		}
	}
	if ws.acks != nil {
		ws.acks.close() // the Acks of what was read go out before the session ends
	}
	return ws.end(err, refusal, sent, sendDone)
}

// end detaches the session and waits a little for its last messages.
func (ws *workSession) end(err, refusal error, sent bool, sendDone <-chan error) error {
	broken := err != nil && !errors.Is(err, io.EOF)
	switch {
	case refusal != nil:
		ws.sched().Detach(ws.sess, status.Convert(refusal).Message())
	case broken && !errors.Is(err, context.Canceled):
		ws.log.Info("work stream broken; its tasks go back to the queue", "error", err)
		ws.sched().Detach(ws.sess, "worker stream ended")
	default:
		ws.log.Debug("work stream closed", "error", err)
		ws.sched().Detach(ws.sess, "worker stream ended")
	}
	ws.sess.FlushWarnings()
	if errors.Is(refusal, errOutboxFull) { // the worker does not read
		ws.cut()
	}
	if !sent {
		select {
		case err := <-sendDone:
			if err != nil && !broken {
				ws.log.Debug("sending to worker failed", "error", err)
			}
		case <-time.After(sendGrace): // it stopped reading
			ws.cut()
		}
	}
	return refusal
}

// cut closes the session's connection. Ending the stream is not enough
// for a worker that does not read: the status waits behind messages it
// never reads, and it stays blocked in Send, holding its memory (320 s
// seen).
func (ws *workSession) cut() {
	if ws.v.edge.cut != nil {
		ws.v.edge.cut(ws.remote)
	}
}

func (ws *workSession) sched() *sched.Scheduler { return ws.v.sched }

// handle runs one message; a non-nil error ends the session with it.
func (ws *workSession) handle(msg *nqueenspb.WorkRequest) error {
	s := ws.sched()
	now := ws.v.edge.clock.Now()
	ws.sess.Seen(now)
	if !ws.out.limit.Take(now) {
		ws.sess.Warn("worker sends too many messages; session ended, its tasks go back to the queue", "max_per_second", ws.v.edge.rate)
		return wire.FloodError(ws.v.edge.rate)
	}
	if err := wire.ValidateWork(ws.v.wire, msg); err != nil {
		ws.sess.Warn("malformed work message; session ended, its tasks go back to the queue", "error", status.Convert(err).Message())
		return err
	}
	switch m := msg.GetMsg().(type) {
	case *nqueenspb.WorkRequest_Ready:
		s.Ready(ws.sess, m.Ready.GetCredits())
	case *nqueenspb.WorkRequest_Heartbeat:
		s.Heartbeat(ws.sess, m.Heartbeat.GetLeaseIds())
	case *nqueenspb.WorkRequest_SolutionBatch:
		if err := ws.batch(m.SolutionBatch); err != nil {
			ws.sess.Warn("worker over its spill budget; session ended, its tasks go back to the queue", "error", err)
			return status.Error(codes.ResourceExhausted, err.Error())
		}
	case *nqueenspb.WorkRequest_Result:
		ws.results([]*nqueenspb.Result{m.Result})
	case *nqueenspb.WorkRequest_ResultBatch:
		ws.results(m.ResultBatch.GetResults())
		if c := m.ResultBatch.GetCredits(); c > 0 {
			s.Ready(ws.sess, c)
		}
	case *nqueenspb.WorkRequest_Release:
		ws.release(m.Release.GetLeaseIds())
	default:
		ws.sess.Warn("unknown work message ignored")
	}
	return nil
}

// release hands leases back and frees their spills at once.
func (ws *workSession) release(ids []uint64) {
	for _, id := range ids {
		if a := ws.attempts[id]; a != nil {
			a.discard()
			delete(ws.attempts, id)
		}
	}
	ws.sched().Release(ws.sess, ids)
}

// results hands Results to the scheduler in order and acknowledges them in
// order once their commits are durable: at once without a journal, else
// through the session's acker, so the receive loop does not wait for the
// fsync.
func (ws *workSession) results(rs []*nqueenspb.Result) {
	s := ws.sched()
	verdicts := make([]sched.Verdict, len(rs))
	ids := make([]*nqueenspb.TaskId, len(rs))
	for i, r := range rs {
		rep := sched.Report{
			Task:    taskIDOf(r.GetTaskId()),
			Lease:   r.GetLeaseId(),
			Counts:  countsOf(r),
			Failure: r.GetFailure(),
			Elapsed: r.GetElapsed().AsDuration(),
			Run:     runCountsOf(r.GetRunCounts()),
		}
		ws.takeSpill(&rep)
		verdicts[i], ids[i] = s.Result(ws.sess, rep), r.GetTaskId()
		if verdicts[i].Outcome != sched.OutcomeCommitted {
			removeSpill(rep.Spill)
		}
	}
	if ws.acks != nil {
		ws.acks.add(ackGroup{ids: ids, verdicts: verdicts})
		return
	}
	for i, id := range ids {
		ws.out.ack(id, verdicts[i])
	}
}

// runCountsOf unpacks a run's Result.run_counts (wire.ValidateResult checked
// that they come in threes).
func runCountsOf(v []uint64) []solver.Counts {
	if len(v) == 0 {
		return nil
	}
	run := make([]solver.Counts, len(v)/3)
	for i := range run {
		run[i] = solver.Counts{Total: v[3*i], Unique: v[3*i+1], Nodes: v[3*i+2]}
	}
	return run
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

// sendLoop is the only goroutine that sends on a Work stream. It returns
// errOutboxFull when the worker let its outbox overflow.
func sendLoop(stream nqueenspb.CoordinatorService_WorkServer, out *outbox) error {
	ctx := stream.Context()
	for {
		msgs, closed, overflow := out.take()
		if overflow {
			return errOutboxFull
		}
		if out.batches {
			msgs = coalesce(msgs)
		}
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

// coalesce merges runs of Assigns into AssignBatches and runs of Acks into
// AckBatches, keeping the order of everything else: one message per round
// to a worker that reads batches, instead of one per task.
func coalesce(msgs []*nqueenspb.WorkResponse) []*nqueenspb.WorkResponse {
	if len(msgs) < 2 {
		return msgs
	}
	out := msgs[:0:0]
	var assigns *nqueenspb.AssignBatch
	var acks *nqueenspb.AckBatch
	for _, m := range msgs {
		switch x := m.GetMsg().(type) {
		case *nqueenspb.WorkResponse_Assign:
			if assigns == nil {
				assigns = &nqueenspb.AssignBatch{}
				out = append(out, &nqueenspb.WorkResponse{Msg: &nqueenspb.WorkResponse_AssignBatch{AssignBatch: assigns}})
			}
			assigns.Assigns = append(assigns.Assigns, x.Assign)
			acks = nil
		case *nqueenspb.WorkResponse_Ack:
			if acks == nil {
				acks = &nqueenspb.AckBatch{}
				out = append(out, &nqueenspb.WorkResponse{Msg: &nqueenspb.WorkResponse_AckBatch{AckBatch: acks}})
			}
			acks.Acks = append(acks.Acks, x.Ack)
			assigns = nil
		default:
			out = append(out, m)
			assigns, acks = nil, nil
		}
	}
	return out
}
