package coordinator

import (
	"github.com/nqueens/nqueens/coordinator/internal/sched"
	nqueenspb "github.com/nqueens/nqueens/proto/nqueens/v1"
)

// maxAckGroups bounds the Result messages of one session that wait for
// the journal's fsync before their Acks go out. Past it the session's
// receive loop waits, and the worker's stream with it (gRPC flow control):
// a peer that floods Results holds at most this many groups of verdicts.
const maxAckGroups = 256

// ackGroup is one Result message's verdicts, waiting for durability.
type ackGroup struct {
	ids      []*nqueenspb.TaskId
	verdicts []sched.Verdict
}

// acker sends a journaled session's Acks once their commits are durable,
// off the receive loop: the loop goes on reading while the journal syncs,
// so the commits of every message read meanwhile share the next fsync
// instead of taking one each (--state costs ≤ 5%).
type acker struct {
	s    *sched.Scheduler
	out  *outbox
	q    chan ackGroup
	done chan struct{}
}

func newAcker(s *sched.Scheduler, out *outbox) *acker {
	a := &acker{s: s, out: out, q: make(chan ackGroup, maxAckGroups), done: make(chan struct{})}
	go a.run()
	return a
}

// add queues a message's verdicts; it waits while maxAckGroups are queued.
func (a *acker) add(g ackGroup) { a.q <- g }

// close waits until every queued group is durable and acknowledged (or
// the job failed): then the session may end.
func (a *acker) close() {
	close(a.q)
	<-a.done
}

// run syncs once for every group queued by then and acknowledges them in
// order. After a failed sync it acknowledges nothing more but still
// drains the queue, so the receive loop never waits for it forever.
func (a *acker) run() {
	defer close(a.done)
	var batch []sched.Ticket
	failed := false
	for g := range a.q {
		groups := []ackGroup{g}
		for len(a.q) > 0 {
			groups = append(groups, <-a.q)
		}
		batch = batch[:0]
		for _, g := range groups {
			for _, v := range g.verdicts {
				batch = append(batch, v.Ticket)
			}
		}
		if !a.s.Settle(batch) {
			failed = true
		}
		if failed {
			continue // no Ack for a commit that is not durable
		}
		for _, g := range groups {
			for i, id := range g.ids {
				a.out.ack(id, g.verdicts[i])
			}
		}
	}
}
