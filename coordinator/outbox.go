package coordinator

import (
	"sync"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/nqueens/nqueens/coordinator/internal/sched"
	"github.com/nqueens/nqueens/coordinator/internal/wire"
	nqueenspb "github.com/nqueens/nqueens/proto/nqueens/v1"
)

// maxOutbox bounds the messages queued for one worker. A worker that reads
// gets at most one Assign per credit (wire.MaxCredits), one Ack per Result and a
// few Cancels and Drains, and its sender drains them as fast as the network
// allows; a peer that stops reading while it keeps sending
// would grow the queue without end, so past this bound its session ends.
const maxOutbox = 2*wire.MaxCredits + 1024

// outbox queues a session's messages for its single sender goroutine and
// is the scheduler's mailbox: it turns the scheduler's plain Go messages
// into wire messages. Its methods never block.
type outbox struct {
	n       uint32 // board size, for Assign
	want    bool   // tasks stream solutions
	batches bool   // the worker reads AssignBatch and AckBatch

	pins []uint32 // a pinned job's Assign.pinned_columns (pins.go); nil otherwise
	join bool     // a join job's: its tasks are TASK_KIND_JOIN

	// limit is the worker's Work messages per second: the handler takes a
	// token per message, and every Assign grants what its task needs.
	limit *wire.Limiter

	mu       sync.Mutex
	q        []*nqueenspb.WorkResponse
	closed   bool
	overflow bool          // more than maxOutbox queued: the session must end
	notify   chan struct{} // capacity 1: "something changed"
	full     chan struct{} // closed on overflow: the handler ends the session
	// cancelled, when set, is told the lease of every Cancel: its spill is
	// freed at once. Called under the scheduler's lock; it
	// must not block.
	cancelled func(lease uint64)
}

// onCancel sets the cancelled hook.
func (o *outbox) onCancel(f func(lease uint64)) {
	o.mu.Lock()
	o.cancelled = f
	o.mu.Unlock()
}

func newOutbox(n int, want, batches bool, pins []uint32, limit *wire.Limiter) *outbox {
	return &outbox{n: uint32(n), want: want, batches: batches, pins: pins, limit: limit,
		notify: make(chan struct{}, 1), full: make(chan struct{})}
}

func (o *outbox) push(m *nqueenspb.WorkResponse) {
	o.mu.Lock()
	switch {
	case o.closed:
	case len(o.q) >= maxOutbox:
		o.overflow, o.closed, o.q = true, true, nil
		close(o.full)
	default:
		o.q = append(o.q, m)
	}
	o.mu.Unlock()
	o.poke()
}

func (o *outbox) poke() {
	select {
	case o.notify <- struct{}{}:
	default:
	}
}

// take returns the queued messages, whether the outbox is closed and
// whether it overflowed.
func (o *outbox) take() (msgs []*nqueenspb.WorkResponse, closed, overflow bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	q := o.q
	o.q = nil
	return q, o.closed, o.overflow
}

func (o *outbox) Assign(a sched.Assignment) {
	o.limit.Grant(wire.MessagesPerLease)
	prefix := make([]uint32, len(a.Prefix))
	for i, c := range a.Prefix {
		prefix[i] = uint32(c)
	}
	o.push(&nqueenspb.WorkResponse{Msg: &nqueenspb.WorkResponse_Assign{Assign: &nqueenspb.Assign{
		TaskId:        wireTaskID(a.Task),
		N:             o.n,
		Kind:          wireKind(o.pins, o.join), // listings too: see solver.ListTask
		Prefix:        prefix,
		WantSolutions: o.want,
		Deadline:      timestamppb.New(a.Deadline),
		LeaseId:       a.Lease,
		PinnedColumns: o.pins,
		Run:           runField(a.Run),
		Verify:        a.Verify,
	}}})
}

// runField is Assign.run for a lease of run tasks: 0 for one.
func runField(run int) uint32 {
	if run > 1 {
		return uint32(run)
	}
	return 0
}

func (o *outbox) Cancel(lease uint64, task sched.TaskID, reason string) {
	o.mu.Lock()
	hook := o.cancelled
	o.mu.Unlock()
	if hook != nil {
		hook(lease)
	}
	o.push(&nqueenspb.WorkResponse{Msg: &nqueenspb.WorkResponse_Cancel{Cancel: &nqueenspb.Cancel{
		TaskId: wireTaskID(task), LeaseId: lease, Reason: reason,
	}}})
}

func (o *outbox) Drain(reason string) {
	o.push(&nqueenspb.WorkResponse{Msg: &nqueenspb.WorkResponse_Drain{Drain: &nqueenspb.Drain{Reason: reason}}})
}

func (o *outbox) ack(task *nqueenspb.TaskId, v sched.Verdict) {
	o.push(&nqueenspb.WorkResponse{Msg: &nqueenspb.WorkResponse_Ack{Ack: &nqueenspb.Ack{
		TaskId: task, Outcome: wireOutcome[v.Outcome], Reason: v.Reason,
	}}})
}

func (o *outbox) Close() {
	o.mu.Lock()
	o.closed = true
	o.mu.Unlock()
	o.poke()
}

// wireOutcome is the one table from the scheduler's outcomes to the wire's.
var wireOutcome = map[sched.Outcome]nqueenspb.Ack_Outcome{
	sched.OutcomeCommitted: nqueenspb.Ack_OUTCOME_COMMITTED,
	sched.OutcomeDuplicate: nqueenspb.Ack_OUTCOME_DUPLICATE,
	sched.OutcomeConflict:  nqueenspb.Ack_OUTCOME_CONFLICT,
	sched.OutcomeRejected:  nqueenspb.Ack_OUTCOME_REJECTED,
	sched.OutcomeVerified:  nqueenspb.Ack_OUTCOME_VERIFIED,
}

func wireTaskID(t sched.TaskID) *nqueenspb.TaskId {
	return &nqueenspb.TaskId{PlanFingerprint: t.Plan, Index: uint32(t.Index)}
}

// taskIDOf converts a wire task id; nil becomes an id of no plan.
func taskIDOf(id *nqueenspb.TaskId) sched.TaskID {
	return sched.TaskID{Plan: id.GetPlanFingerprint(), Index: int(id.GetIndex())}
}
