package coordinator

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"

	nqueenspb "github.com/nqueens/nqueens/proto/nqueens/v1"
	"github.com/nqueens/nqueens/solver"
)

// spillBufferSize is the write buffer of one attempt's spill file.
const spillBufferSize = 64 << 10

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

// discardAttempts frees every spill the session still holds.
func (ws *workSession) discardAttempts() {
	for id, a := range ws.attempts {
		a.discard()
		delete(ws.attempts, id)
	}
}

// batch checks a SolutionBatch and spills it to its attempt's file.
func (ws *workSession) batch(b *nqueenspb.SolutionBatch) {
	s := ws.sched()
	task, ok := s.leaseFor(ws.sess, taskIDOf(b.GetTaskId()), b.GetLeaseId())
	if !ok {
		// A batch that crossed a Cancel on the wire: expected, dropped.
		ws.log.Debug("solution batch dropped", "lease_id", b.GetLeaseId())
		return
	}
	a := ws.attempts[b.GetLeaseId()]
	if a == nil {
		a = &attempt{check: newBatchChecker(s.plan.N, s.plan.Tasks[task].Prefix)}
		ws.attempts[b.GetLeaseId()] = a
	}
	if a.failed {
		return
	}
	if a.f == nil {
		f, err := os.CreateTemp(ws.v.spillDir, fmt.Sprintf("task-%d-*.sol", task))
		if err != nil {
			s.fail(fmt.Errorf("spill solutions: %w", err))
			return
		}
		a.f, a.w = f, bufio.NewWriterSize(f, spillBufferSize)
	}
	err := a.check.check(b.GetSeq(), b.GetCount(), b.GetPacked(), func(sol []byte) error {
		_, err := a.w.Write(sol)
		return err
	})
	if err != nil {
		if errors.Is(err, errBatch) {
			ws.warns.warn("invalid solution batch rejected", "task", task, "lease_id", b.GetLeaseId(), "error", err)
			a.failed = true
			a.discard()
			s.rejectBatch(ws.sess, b.GetLeaseId(), err.Error())
			return
		}
		s.fail(fmt.Errorf("spill solutions: %w", err))
		return
	}
	ws.v.recent.add(s.plan.N, b.GetPacked())
}

// takeSpill moves a finished attempt's spill into the report.
func (ws *workSession) takeSpill(rep *report) {
	a := ws.attempts[rep.lease]
	if a == nil {
		return
	}
	delete(ws.attempts, rep.lease)
	if a.f != nil && !a.failed {
		s := ws.sched()
		if err := a.w.Flush(); err != nil {
			s.fail(fmt.Errorf("spill solutions: %w", err))
		}
		rep.spill = a.f.Name()
		if err := a.f.Close(); err != nil {
			s.fail(fmt.Errorf("spill solutions: %w", err))
		}
		a.f = nil
		rep.streamed = a.check.streamed
	}
	a.discard()
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
