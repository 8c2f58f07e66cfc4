package main

// What the simulated workers measure, read off the wire by gRPC client
// interceptors around package worker's session: it sends and receives as
// a real worker does, and these only watch (and check the Join's plan).

import (
	"context"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	nqueenspb "github.com/nqueens/nqueens/proto/nqueens/v1"
)

// observeJoin counts the worker's Join calls and times the first success,
// and refuses a coordinator whose job is not the table's plan (the worker
// then stops: a refusal it cannot retry). The first success gives the
// worker's place among the Joins in flight back.
func (w *simWorker) observeJoin(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
	if method != nqueenspb.CoordinatorService_Join_FullMethodName {
		return invoker(ctx, method, req, reply, cc, opts...)
	}
	w.mu.Lock()
	w.joinAttempts++
	if w.joinStart.IsZero() {
		w.joinStart = time.Now()
	}
	w.mu.Unlock()
	if err := invoker(ctx, method, req, reply, cc, opts...); err != nil {
		return err
	}
	jr, _ := reply.(*nqueenspb.JoinResponse)
	if err := w.job.checkJob(jr.GetJob()); err != nil {
		return status.Error(codes.FailedPrecondition, err.Error())
	}
	w.mu.Lock()
	if !w.joined {
		w.joined, w.joinTime = true, time.Since(w.joinStart)
	}
	w.batches = jr.GetBatches() && w.job.batches // as the session decides
	w.mu.Unlock()
	w.leaveGate()
	return nil
}

// observeWork watches the worker's Work stream.
func (w *simWorker) observeWork(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
	cs, err := streamer(ctx, desc, cc, method, opts...)
	if err != nil || method != nqueenspb.CoordinatorService_Work_FullMethodName {
		if err != nil {
			w.streamEnded(err)
		}
		return cs, err
	}
	return &watchedStream{ClientStream: cs, w: w, sent: map[uint32]time.Time{}, runOf: map[uint32]int{}}, nil
}

// watchedStream is a Work stream whose messages the worker's measures
// follow. Its maps are guarded by w.mu.
type watchedStream struct {
	grpc.ClientStream
	w     *simWorker
	sent  map[uint32]time.Time // task index -> when its Result was sent
	runOf map[uint32]int       // task index -> the tasks of the run it starts
}

// SendMsg notes when each Result goes out.
func (s *watchedStream) SendMsg(m any) error {
	if req, ok := m.(*nqueenspb.WorkRequest); ok {
		results := req.GetResultBatch().GetResults()
		if r := req.GetResult(); r != nil {
			results = append(results, r)
		}
		if len(results) > 0 {
			now := time.Now()
			s.w.mu.Lock()
			for _, r := range results {
				s.sent[r.GetTaskId().GetIndex()] = now
			}
			s.w.mu.Unlock()
		}
	}
	return s.ClientStream.SendMsg(m)
}

// RecvMsg notes the Assigns, Acks and Drain received, and a stream that
// ends without a Drain.
func (s *watchedStream) RecvMsg(m any) error {
	err := s.ClientStream.RecvMsg(m)
	if err != nil {
		s.w.streamEnded(err)
		return err
	}
	resp, ok := m.(*nqueenspb.WorkResponse)
	if !ok {
		return nil
	}
	assigns := resp.GetAssignBatch().GetAssigns()
	if a := resp.GetAssign(); a != nil {
		assigns = append(assigns, a)
	}
	acks := resp.GetAckBatch().GetAcks()
	if a := resp.GetAck(); a != nil {
		acks = append(acks, a)
	}
	now := time.Now()
	s.w.mu.Lock()
	defer s.w.mu.Unlock()
	if len(assigns) > 0 && s.w.firstAssign.IsZero() {
		s.w.firstAssign = now
	}
	s.w.leases += len(assigns)
	for _, a := range assigns {
		if a.GetRun() > 1 {
			s.runOf[a.GetTaskId().GetIndex()] = int(a.GetRun())
		}
	}
	for _, a := range acks {
		s.ackedLocked(a, now)
	}
	if resp.GetDrain() != nil {
		s.w.drained = true
	}
	return nil
}

// ackedLocked records an Ack: the commit latency of its Result.
func (s *watchedStream) ackedLocked(a *nqueenspb.Ack, now time.Time) {
	w := s.w
	w.lastAck = now
	if w.drained {
		w.lateAcks++
	}
	idx := a.GetTaskId().GetIndex()
	run := max(s.runOf[idx], 1)
	delete(s.runOf, idx)
	if a.GetOutcome() != nqueenspb.Ack_OUTCOME_COMMITTED {
		w.others++
		delete(s.sent, idx)
		return
	}
	w.commits += run // the tasks of a run are committed together
	if t, ok := s.sent[idx]; ok {
		w.latencies = append(w.latencies, now.Sub(t))
		for range run {
			w.ackTimes = append(w.ackTimes, now.UnixNano())
		}
		delete(s.sent, idx)
	}
}

// streamEnded notes a Work stream that ended: after a Drain that is the
// job's end; before, it is a failure, and the worker stops rather than
// join again, so that one broken worker ends the run.
func (w *simWorker) streamEnded(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.drained || w.broken != nil {
		return
	}
	w.broken = err
	if w.cancel != nil {
		w.cancel()
	}
}
