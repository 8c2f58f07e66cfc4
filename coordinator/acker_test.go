package coordinator

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	nqueenspb "github.com/nqueens/nqueens/proto/nqueens/v1"
	"github.com/nqueens/nqueens/solver"
)

// gatedJournal is a journal whose Sync waits until open is closed: a disk
// that takes as long as the test wants.
type gatedJournal struct {
	open  chan struct{}
	syncs atomic.Int64
}

func (*gatedJournal) Commit(int, solver.Counts, uint64) error      { return nil }
func (*gatedJournal) CommitRun(int, []solver.Counts, uint64) error { return nil }
func (*gatedJournal) Distrust(uint64) error                        { return nil }
func (*gatedJournal) Split(Split) error                            { return nil }

func (j *gatedJournal) Sync() error {
	j.syncs.Add(1)
	<-j.open
	return nil
}

// TestHostileAckBacklog: while the journal's fsync hangs, a worker that
// keeps sending Results gets no Ack for its commit (not durable yet), and
// the coordinator holds a bounded backlog of them (maxAckGroups; then its
// receive loop waits, and the worker's stream with it); once the disk
// answers, every Result is acknowledged, in order.
func TestHostileAckBacklog(t *testing.T) {
	checkLeaks(t)
	j := &gatedJournal{open: make(chan struct{})}
	var openOnce sync.Once
	openGate := func() { openOnce.Do(func() { close(j.open) }) }
	defer openGate()
	cfg := testConfig(8, 0)
	cfg.Depth = 2
	cfg.OpenJournal = func(solver.Plan) (Resumed, error) { return Resumed{Journal: j}, nil }
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := startJob(t, ctx, cfg)
	c := dialRaw(t, r.addr)
	c.ready(1)
	res := countResult(t, c.next("assign").GetAssign())
	const sent = 3 * maxAckGroups
	go func() { // blocks when the backlog is full: its own goroutine
		for range sent + 1 {
			if c.stream.Send(&nqueenspb.WorkRequest{Msg: &nqueenspb.WorkRequest_Result{Result: res}}) != nil {
				return
			}
		}
	}()
	duplicates := func() uint64 { return r.job.sched.Status().Stats.Duplicates }
	waitFor(t, "the backlog to fill", func() bool { return duplicates() >= maxAckGroups })
	time.Sleep(200 * time.Millisecond) // would the loop read on?
	if d := duplicates(); d >= sent || d > 2*maxAckGroups+2 {
		t.Errorf("%d of %d Results judged while the fsync hangs, want at most %d", d, sent, 2*maxAckGroups+2)
	}
	if j.syncs.Load() == 0 {
		t.Error("no Sync while a commit waits for the disk")
	}
	select {
	case m := <-c.msgs:
		if m.GetAck() != nil || m.GetAckBatch() != nil {
			t.Fatalf("an Ack before the commit was durable: %v", m)
		}
	default:
	}
	openGate()
	want := []nqueenspb.Ack_Outcome{nqueenspb.Ack_OUTCOME_COMMITTED}
	for range sent {
		want = append(want, nqueenspb.Ack_OUTCOME_DUPLICATE)
	}
	var got []nqueenspb.Ack_Outcome
	for len(got) < len(want) {
		m := c.next("ack")
		acks := m.GetAckBatch().GetAcks()
		if a := m.GetAck(); a != nil {
			acks = append(acks, a)
		}
		for _, a := range acks {
			got = append(got, a.GetOutcome())
		}
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("Ack %d is %v, want %v (in order: the commit first)", i, got[i], want[i])
		}
	}
}
