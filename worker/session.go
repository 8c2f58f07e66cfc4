package worker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/nqueens/nqueens/internal/loglimit"
	nqueenspb "github.com/nqueens/nqueens/proto/nqueens/v1"
	"github.com/nqueens/nqueens/solver"
)

// endWait bounds how long a finishing worker waits for the coordinator to
// end the stream after the worker closed its side, so the coordinator reads
// a clean end (and any Release) rather than a cancellation.
const endWait = 2 * time.Second

// errStreamEnded is a Work stream that the coordinator closed without a
// Drain (it stopped, or forgot the session): the worker joins again.
var errStreamEnded = errors.New("coordinator ended the stream without Drain")

// session is one Work stream of a joined worker: the stream, the leased
// tasks it runs and the three loops around it. serve reads what recvLoop
// receives and ends the session with finish; sendLoop is the only
// goroutine that calls stream.Send; heartbeatLoop reports the leases held.
// Tasks and loops hand messages to sendLoop through out, and stop sending
// once stop is closed.
type session struct {
	cfg       Config
	log       hclog.Logger
	heartbeat time.Duration // how often the held leases are reported

	stream       nqueenspb.CoordinatorService_WorkClient
	streamCtx    context.Context // the stream's context: recvLoop stops with it
	cancelStream context.CancelFunc

	out     chan *nqueenspb.WorkRequest // to sendLoop; a full queue pushes back on tasks
	stop    chan struct{}               // closed by finish: nothing more is sent
	sendErr chan error                  // sendLoop's failure (capacity 1)
	sent    chan struct{}               // closed when sendLoop has ended
	msgs    chan recv                   // what recvLoop received
	run     chan func()                 // the leased tasks, in order, to the runners: one goroutine per slot
	pf      *prefetch                   // how many leases to hold in reserve
	batches bool                        // the coordinator reads ResultBatch, and the worker asked for batches
	plan    solver.Plan                 // the job's plan, for runs of tasks (runs.go); zero: no runs
	join    *joinTasks                  // a join job's plan and counters (jointask.go); nil for other jobs
	peer    *loglimit.Limiter           // the lines the coordinator can cause at will

	mu    sync.Mutex
	tasks map[uint64]context.CancelFunc // guarded by mu: the leases held, by id

	loops    sync.WaitGroup // sendLoop, heartbeatLoop, recvLoop
	running  sync.WaitGroup // one per lease held: Done when it is settled
	runners  sync.WaitGroup // the slots' goroutines
	finished bool           // finish has run (serve's goroutine only)
}

// recv is one result of stream.Recv.
type recv struct {
	m   *nqueenspb.WorkResponse
	err error
}

// work runs one Work session; a plan with tasks makes the worker ask for
// runs of them (runs.go). It reports done when the coordinator drained
// the worker (or ctx ended and the leases were handed back), and the
// stream's error otherwise. Every goroutine of the session has ended when
// it returns.
func work(ctx context.Context, client nqueenspb.CoordinatorServiceClient, cfg Config, jr *nqueenspb.JoinResponse, plan solver.Plan, log hclog.Logger, peer *loglimit.Limiter) (done bool, err error) {
	s, err := openSession(client, cfg, jr, plan, log)
	if err != nil {
		return false, err
	}
	s.peer = peer
	defer s.close()
	return s.serve(ctx)
}

// openSession opens the Work stream, queues the first Ready (the worker id
// and the credits: every slot plus the prefetch) and starts the loops.
func openSession(client nqueenspb.CoordinatorServiceClient, cfg Config, jr *nqueenspb.JoinResponse, plan solver.Plan, log hclog.Logger) (*session, error) {
	sctx, cancel := context.WithCancel(context.Background())
	stream, err := client.Work(sctx)
	if err != nil {
		cancel()
		return nil, err
	}
	s := &session{
		cfg: cfg, log: log, heartbeat: jr.GetHeartbeatInterval().AsDuration(),
		stream: stream, streamCtx: sctx, cancelStream: cancel,
		out:     make(chan *nqueenspb.WorkRequest, outQueue),
		stop:    make(chan struct{}),
		sendErr: make(chan error, 1),
		sent:    make(chan struct{}),
		msgs:    make(chan recv),
		run:     make(chan func(), maxLeases(cfg)),
		tasks:   make(map[uint64]context.CancelFunc),
		pf:      newPrefetch(cfg.Slots, cfg.Prefetch, cfg.FixedPrefetch),
		batches: jr.GetBatches() && !cfg.NoBatches,
		plan:    plan,
		join:    newJoinTasks(jr.GetJob(), cfg.Slots),
	}
	if s.heartbeat <= 0 {
		s.heartbeat = defaultHeartbeat
	}
	first := readyMsg(jr.GetWorkerId(), s.pf.initial())
	first.GetReady().Runs = plan.Len() > 0
	s.out <- first // the queue is empty: never blocks
	s.loops.Go(s.sendLoop)
	s.loops.Go(s.heartbeatLoop)
	s.loops.Go(s.recvLoop)
	for range cfg.Slots {
		s.runners.Go(s.runner)
	}
	return s, nil
}

// maxLeases is the most leases a session holds at once (prefetch.go):
// every slot and the largest reserve. The queue of tasks holds them all,
// so that queueing one never blocks serve.
func maxLeases(cfg Config) int {
	return cfg.Slots + max(cfg.Prefetch, maxPrefetchPerSlot*cfg.Slots)
}

// runner computes tasks, one at a time, until finish closes run. A slot
// is a long-lived goroutine rather than one per task: its stack has grown
// to the solver's depth once, instead of growing (copied at each doubling)
// for every task, which cost 5% of a worker's time on tasks of ~35 µs.
func (s *session) runner() {
	for f := range s.run {
		f()
	}
}

// serve handles the coordinator's messages until the session ends: a
// Drain or ctx (done), a broken stream (its error).
func (s *session) serve(ctx context.Context) (done bool, err error) {
	for {
		select {
		case <-ctx.Done():
			s.log.Info("stopping; handing leases back")
			s.finish(true)
			s.awaitEnd()
			return true, nil
		case err := <-s.sendErr:
			s.finish(false)
			return false, err
		case r := <-s.msgs:
			if r.err != nil {
				s.finish(false)
				if errors.Is(r.err, io.EOF) {
					return false, errStreamEnded
				}
				return false, r.err
			}
			drained, err := s.handle(ctx, r.m)
			if err != nil {
				s.finish(false)
				return false, err
			}
			if drained {
				s.finish(false)
				s.awaitEnd()
				return true, nil
			}
		}
	}
}

// handle acts on one message; it reports true for a Drain, and an
// ErrProtocol error for Assigns beyond the credits granted.
func (s *session) handle(ctx context.Context, m *nqueenspb.WorkResponse) (drained bool, err error) {
	switch m := m.GetMsg().(type) {
	case *nqueenspb.WorkResponse_Assign:
		if !s.pf.lease(1) {
			return false, s.overCredits(1)
		}
		s.startTask(ctx, m.Assign)
	case *nqueenspb.WorkResponse_AssignBatch:
		as := m.AssignBatch.GetAssigns()
		if !s.pf.lease(len(as)) {
			return false, s.overCredits(len(as))
		}
		for _, a := range as {
			s.startTask(ctx, a)
		}
	case *nqueenspb.WorkResponse_Cancel:
		s.mu.Lock()
		if cancel := s.tasks[m.Cancel.GetLeaseId()]; cancel != nil {
			cancel()
		}
		s.mu.Unlock()
		s.peer.Log(hclog.Debug, "task cancelled", "task", m.Cancel.GetTaskId().GetIndex(), "reason", loglimit.Text(m.Cancel.GetReason()))
	case *nqueenspb.WorkResponse_Ack:
		s.ack(m.Ack)
	case *nqueenspb.WorkResponse_AckBatch:
		for _, a := range m.AckBatch.GetAcks() {
			s.ack(a)
		}
	case *nqueenspb.WorkResponse_Drain:
		info(s.cfg, s.log)("drained by coordinator", "reason", loglimit.Text(m.Drain.GetReason()))
		return true, nil
	}
	return false, nil
}

// overCredits is the error for n Assigns beyond the credits granted.
func (s *session) overCredits(n int) error {
	s.pf.mu.Lock()
	defer s.pf.mu.Unlock()
	return fmt.Errorf("%w: %d new lease(s) with %d held of %d credits granted", ErrProtocol, n, s.pf.held, s.pf.granted)
}

// ack takes the coordinator's answer to a Result.
func (s *session) ack(a *nqueenspb.Ack) {
	s.pf.acked(uint64(a.GetTaskId().GetIndex()))
	switch a.GetOutcome() {
	case nqueenspb.Ack_OUTCOME_COMMITTED, nqueenspb.Ack_OUTCOME_VERIFIED, nqueenspb.Ack_OUTCOME_DUPLICATE:
	default:
		s.peer.Log(hclog.Warn, "result not committed", "task", a.GetTaskId().GetIndex(), "outcome", a.GetOutcome().String(), "reason", loglimit.Text(a.GetReason()))
	}
}

// startTask holds a new lease and queues its task for the slots, in the
// order leased; a prefetched task waits in the queue for a free slot. A
// lease that ends while queued (a Cancel, finish) is settled at once by
// its context's AfterFunc, so its credit comes back without waiting for
// a slot; a slot that takes the task first stops the AfterFunc. A slot
// settles the tasks it computes itself: their Results are queued the
// moment they are computed, one after the other, rather than when a
// goroutine per lease is next scheduled, so that the Results of tasks of
// microseconds leave together.
func (s *session) startTask(ctx context.Context, a *nqueenspb.Assign) {
	tctx, cancel := context.WithCancel(ctx)
	s.mu.Lock()
	s.tasks[a.GetLeaseId()] = cancel
	s.mu.Unlock()
	s.log.Debug("task leased", "task", a.GetTaskId().GetIndex(), "lease_id", a.GetLeaseId())
	s.running.Add(1)
	end := func(res *nqueenspb.Result, took time.Duration) {
		s.settle(tctx, a, res, took)
		cancel()
		s.running.Done()
	}
	stop := context.AfterFunc(tctx, func() { end(nil, 0) }) // ended before a slot took it
	task := func() {
		if !stop() {
			return // settled by the AfterFunc
		}
		res, took := s.compute(tctx, a)
		end(res, took)
	}
	select {
	case s.run <- task:
	case <-tctx.Done(): // the worker stops while the queue is full: the AfterFunc settles the lease
	}
}

// compute runs one leased task and returns its Result and how long it
// took; nil when the lease ended before it started.
func (s *session) compute(ctx context.Context, a *nqueenspb.Assign) (*nqueenspb.Result, time.Duration) {
	if ctx.Err() != nil {
		return nil, 0
	}
	s.cfg.Stats.computing(1)
	defer s.cfg.Stats.computing(-1)
	start := time.Now()
	var res *nqueenspb.Result
	switch {
	case a.GetKind() == nqueenspb.TaskKind_TASK_KIND_JOIN:
		res = s.join.run(ctx, a)
	case a.GetRun() > 1:
		res = runRange(ctx, a, s.plan, s.cfg.Count)
	default:
		res = runTask(ctx, a, s.cfg.Count, func(b *nqueenspb.SolutionBatch) bool {
			return s.send(&nqueenspb.WorkRequest{Msg: &nqueenspb.WorkRequest_SolutionBatch{SolutionBatch: b}})
		})
	}
	return res, time.Since(start)
}

// settle ends a lease: it sends the Result unless the lease was cancelled
// or handed back meanwhile, and returns the lease's credit.
func (s *session) settle(ctx context.Context, a *nqueenspb.Assign, res *nqueenspb.Result, took time.Duration) {
	s.mu.Lock()
	_, still := s.tasks[a.GetLeaseId()]
	delete(s.tasks, a.GetLeaseId())
	s.mu.Unlock()
	if still && ctx.Err() == nil && res != nil {
		if res.GetFailure() != "" {
			s.peer.Log(hclog.Error, "task failed", "task", a.GetTaskId().GetIndex(), "error", loglimit.Text(res.GetFailure()))
		}
		s.pf.resultSent(uint64(a.GetTaskId().GetIndex()))
		// res belongs to sendLoop once queued: read it before.
		failed, nodes := res.GetFailure() != "", res.GetNodes()
		if !s.send(&nqueenspb.WorkRequest{Msg: &nqueenspb.WorkRequest_Result{Result: res}}) {
			return
		}
		if !failed {
			s.cfg.Stats.sent(uint64(max(a.GetRun(), 1)), nodes, took)
		}
	}
	if credits := s.pf.done(took); credits > 0 {
		s.send(readyMsg("", credits))
	}
}

// send queues m for sendLoop; it reports false once the session stops.
func (s *session) send(m *nqueenspb.WorkRequest) bool {
	select {
	case s.out <- m:
		return true
	case <-s.stop:
		return false
	}
}

// sendLoop sends what is queued until stop; then it flushes the queue (a
// Release) and closes the worker's side of the stream. To a coordinator
// that reads ResultBatch it sends the Results and Readies queued at once
// as one message.
func (s *session) sendLoop() {
	defer close(s.sent)
	for {
		select {
		case m := <-s.out:
			if err := s.sendQueued(m); err != nil {
				s.sendErr <- err
				return
			}
		case <-s.stop:
			for {
				select {
				case m := <-s.out:
					if s.stream.Send(m) != nil {
						return
					}
				default:
					s.stream.CloseSend()
					return
				}
			}
		}
	}
}

// sendQueued sends m and whatever else is queued right now, merging runs
// of Results and Readies into ResultBatches when the coordinator reads
// them; everything else keeps its place (a task's batches go before its
// Result). A batch of Results waits up to resultLinger for more, so that
// tasks of microseconds travel dozens to a message, each way, instead of
// one or two: the prefetch reserve covers the wait, which it measures as
// part of the round trip.
func (s *session) sendQueued(m *nqueenspb.WorkRequest) error {
	if !s.batches {
		return s.stream.Send(m)
	}
	var batch *nqueenspb.ResultBatch
	var linger *time.Timer
	flush := func() error {
		if batch == nil {
			return nil
		}
		b := batch
		batch = nil
		if len(b.Results) == 0 {
			return s.stream.Send(readyMsg("", int(b.Credits)))
		}
		return s.stream.Send(&nqueenspb.WorkRequest{Msg: &nqueenspb.WorkRequest_ResultBatch{ResultBatch: b}})
	}
	for n := 0; ; n++ {
		r, isResult := m.GetMsg().(*nqueenspb.WorkRequest_Result)
		ready, isReady := m.GetMsg().(*nqueenspb.WorkRequest_Ready)
		switch {
		case isResult || isReady && ready.Ready.GetWorkerId() == "":
			if batch == nil {
				batch = &nqueenspb.ResultBatch{}
			}
			if isResult {
				batch.Results = append(batch.Results, r.Result)
			} else {
				batch.Credits += ready.Ready.GetCredits()
			}
		default:
			if err := flush(); err != nil {
				return err
			}
			if err := s.stream.Send(m); err != nil {
				return err
			}
		}
		if n >= outQueue { // bounded: a batch never holds more than the queue
			return flush()
		}
		select {
		case m = <-s.out:
			continue
		default:
		}
		if batch == nil || len(batch.Results) == 0 {
			return flush()
		}
		if linger == nil { // wait a little for the Results of tasks finishing now
			linger = time.NewTimer(resultLinger)
			defer linger.Stop()
		}
		select {
		case m = <-s.out:
		case <-linger.C:
			return flush()
		}
	}
}

// heartbeatLoop reports the leases held every heartbeat interval.
func (s *session) heartbeatLoop() {
	t := time.NewTicker(s.heartbeat)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			hb := &nqueenspb.Heartbeat{LeaseIds: s.held()}
			if !s.send(&nqueenspb.WorkRequest{Msg: &nqueenspb.WorkRequest_Heartbeat{Heartbeat: hb}}) {
				return
			}
		case <-s.stop:
			return
		}
	}
}

// recvLoop receives on its own goroutine, so that serve notices ctx at
// once; it ends with the stream.
func (s *session) recvLoop() {
	for {
		m, err := s.stream.Recv()
		select {
		case s.msgs <- recv{m, err}:
		case <-s.streamCtx.Done():
			return
		}
		if err != nil {
			return
		}
	}
}

// held lists the ids of the leases held now.
func (s *session) held() []uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	ids := make([]uint64, 0, len(s.tasks))
	for id := range s.tasks {
		ids = append(ids, id)
	}
	return ids
}

// finish ends the session: it stops the tasks, optionally hands their
// leases back, lets sendLoop flush and close (for at most endWait) and
// waits for the tasks. It runs once; later calls do nothing.
func (s *session) finish(release bool) {
	if s.finished {
		return
	}
	s.finished = true
	s.mu.Lock()
	ids := make([]uint64, 0, len(s.tasks))
	for id, cancel := range s.tasks {
		ids = append(ids, id)
		cancel()
	}
	s.mu.Unlock()
	if release && len(ids) > 0 {
		select {
		case s.out <- &nqueenspb.WorkRequest{Msg: &nqueenspb.WorkRequest_Release{Release: &nqueenspb.Release{LeaseIds: ids}}}:
		default:
		}
	}
	close(s.stop)
	select {
	case <-s.sent:
	case <-time.After(endWait): // a coordinator that stopped reading
		s.cancelStream()
		<-s.sent
	}
	s.running.Wait()
	close(s.run)
	s.runners.Wait()
}

// awaitEnd discards messages until the stream ends or endWait passes.
func (s *session) awaitEnd() {
	t := time.NewTimer(endWait)
	defer t.Stop()
	for {
		select {
		case r := <-s.msgs:
			if r.err != nil {
				return
			}
		case <-t.C:
			return
		}
	}
}

// close ends the stream and waits for the loops. The session must be
// finished first, or finish runs here.
func (s *session) close() {
	s.finish(false)
	s.cancelStream()
	s.loops.Wait()
}

// readyMsg grants credits; the first Ready of a stream names the worker.
func readyMsg(workerID string, credits int) *nqueenspb.WorkRequest {
	return &nqueenspb.WorkRequest{Msg: &nqueenspb.WorkRequest_Ready{Ready: &nqueenspb.Ready{WorkerId: workerID, Credits: uint32(credits)}}}
}

// info returns the logging function for lifecycle events.
func info(cfg Config, log hclog.Logger) func(string, ...any) {
	if cfg.Quiet {
		return log.Debug
	}
	return log.Info
}
