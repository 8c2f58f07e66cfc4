package coordinator

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"

	"github.com/nqueens/nqueens/coordinator/internal/sched"
	"github.com/nqueens/nqueens/listing"
	nqueenspb "github.com/nqueens/nqueens/proto/nqueens/v1"
	"github.com/nqueens/nqueens/solver"
)

// attempt is the coordinator's side of one lease's solution stream: the
// checker of what the worker sends and the spill file the valid batches go
// to. It belongs to the session's Work handler; the spill's own lock lets a
// Cancel end it from the scheduler (outbox.cancelled).
type attempt struct {
	check *listing.Checker
	spill *listing.Attempt
}

// discard frees the attempt's spill.
func (a *attempt) discard() {
	if a.spill != nil {
		a.spill.Discard()
	}
}

// discardAttempts frees every spill the session still holds.
func (ws *workSession) discardAttempts() {
	for id, a := range ws.attempts {
		a.discard()
		delete(ws.attempts, id)
	}
}

// batch checks a SolutionBatch and spills it to its attempt's file. It
// returns an error (wrapping listing.ErrOverBudget) only when the worker is
// over its spill budget: then the session ends.
func (ws *workSession) batch(b *nqueenspb.SolutionBatch) error {
	s := ws.sched()
	task, prefix, ok := s.LeaseFor(ws.sess, taskIDOf(b.GetTaskId()), b.GetLeaseId())
	if !ok {
		// A batch that crossed a Cancel on the wire: expected, dropped.
		ws.log.Debug("solution batch dropped", "lease_id", b.GetLeaseId())
		return nil
	}
	id := b.GetLeaseId()
	a := ws.attempts[id]
	if a == nil {
		a = &attempt{check: listing.NewChecker(ws.v.edge.plan, prefix)}
		ws.attempts[id] = a
	}
	if err := a.check.Check(b.GetSeq(), b.GetCount(), b.GetPacked(), nil); err != nil {
		ws.sess.Warn("invalid solution batch rejected", "task", task, "lease_id", id, "error", err)
		a.discard()
		delete(ws.attempts, id)
		s.RejectBatch(ws.sess, id, err.Error())
		return nil
	}
	if a.spill == nil {
		sp, err := ws.spool.Open(id, task)
		if errors.Is(err, listing.ErrOverBudget) {
			delete(ws.attempts, id)
			return err
		}
		if err != nil {
			s.Fail(fmt.Errorf("spill solutions: %w", err))
			return nil
		}
		a.spill = sp
	}
	if err := a.spill.Write(b.GetPacked()); err != nil && !errors.Is(err, listing.ErrEnded) {
		s.Fail(fmt.Errorf("spill solutions: %w", err))
		return nil
	}
	ws.v.recent.add(ws.v.edge.plan.N, b.GetPacked())
	return nil
}

// takeSpill moves a finished attempt's spill into the report. A spill that
// ended before its Result (a Cancel crossed it) is gone: the scheduler
// judges the result without it.
func (ws *workSession) takeSpill(rep *sched.Report) {
	a := ws.attempts[rep.Lease]
	if a == nil {
		return
	}
	delete(ws.attempts, rep.Lease)
	if a.spill == nil {
		return
	}
	path, err := a.spill.Close()
	switch {
	case err == nil:
		rep.Spill, rep.Streamed = path, a.check.Streamed()
	case !errors.Is(err, listing.ErrEnded):
		ws.sched().Fail(fmt.Errorf("spill solutions: %w", err))
	}
}

// removeSpill removes a spill file the scheduler did not take.
func removeSpill(path string) {
	if path != "" {
		os.Remove(path)
	}
}

// countsOf reads a Result's counts.
func countsOf(r *nqueenspb.Result) solver.Counts {
	return solver.Counts{Total: r.GetTotal(), Unique: r.GetUnique(), Nodes: r.GetNodes()}
}

// recentKept is how many streamed solutions the dashboard can show.
const recentKept = 8

// recentSolutions keeps the last few solutions streamed, for the people
// watching a listing.
type recentSolutions struct {
	mu   sync.Mutex
	sols [][]int
}

// add keeps the last solutions of a checked batch (packed, n bytes each,
// 0-based columns).
func (r *recentSolutions) add(n int, packed []byte) {
	if n < 1 || len(packed) < n {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for off := max(0, len(packed)-recentKept*n); off+n <= len(packed); off += n {
		cols := make([]int, n)
		for i, c := range packed[off : off+n] {
			cols[i] = int(c) + 1
		}
		r.sols = append(r.sols, cols)
	}
	if len(r.sols) > recentKept {
		r.sols = slices.Clone(r.sols[len(r.sols)-recentKept:])
	}
}

func (v *service) recentSolutions() [][]int {
	v.recent.mu.Lock()
	defer v.recent.mu.Unlock()
	return slices.Clone(v.recent.sols)
}
