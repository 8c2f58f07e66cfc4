package coordinator

import (
	"errors"
	"fmt"

	"github.com/nqueens/nqueens/internal/packed"
	"github.com/nqueens/nqueens/solver"
)

// errBatch marks a solution batch that failed validation.
var errBatch = errors.New("invalid solution batch")

// batchChecker validates what one attempt streams for one task: every
// solution is a valid placement and the representative of its symmetry
// class inside the task, after the previous one in solver.ListOrder (so
// none comes twice). Solutions travel packed, n bytes each, byte r holding
// the 0-based column of row r.
//
// A batchChecker is used by one goroutine at a time.
type batchChecker struct {
	n        int
	list     solutionOrder
	seq      uint32        // the seq the next batch must carry
	streamed solver.Counts // accepted so far: Unique representatives, Total solutions in their classes
	scratch  []int

	whole bool // the task streams whole solutions, not classes: pinned queens (pins.go)
}

// newBatchChecker returns a checker for the representatives of the
// KindCount task prefix (see solver.CountTask).
func newBatchChecker(n int, prefix []int) *batchChecker {
	return &batchChecker{n: n, list: solver.NewListChecker(n, prefix), scratch: make([]int, n)}
}

// check validates the next batch and calls emit (if not nil) with each of
// its solutions in order, packed; emit must not keep the slice. On error
// the checker must not be used again (solutions already emitted from this
// batch stay emitted, so callers discard the whole attempt).
func (b *batchChecker) check(seq, count uint32, sols []byte, emit func([]byte) error) error {
	if seq != b.seq {
		return fmt.Errorf("%w: batch %d arrived, want %d", errBatch, seq, b.seq)
	}
	if count == 0 {
		return fmt.Errorf("%w: batch %d is empty", errBatch, seq)
	}
	if len(sols) > maxBatchBytes {
		return fmt.Errorf("%w: batch %d has %d bytes, at most %d", errBatch, seq, len(sols), maxBatchBytes)
	}
	if b.n < 1 || b.n > solver.MaxN || uint64(len(sols)) != uint64(count)*uint64(b.n) {
		return fmt.Errorf("%w: batch %d has %d bytes for %d solutions of n=%d", errBatch, seq, len(sols), count, b.n)
	}
	for i := 0; i < int(count); i++ {
		sol := sols[i*b.n : (i+1)*b.n]
		if err := b.checkOne(sol); err != nil {
			return fmt.Errorf("%w: batch %d solution %d: %w", errBatch, seq, i, err)
		}
		if b.whole {
			b.streamed.Total++
		} else {
			b.streamed.Unique++
			b.streamed.Total += uint64(solver.ClassSize(b.scratch))
		}
		if emit != nil {
			if err := emit(sol); err != nil {
				return err
			}
		}
	}
	b.seq++
	return nil
}

// checkOne checks one packed solution: in range, no two queens sharing a
// column or diagonal (O(n): the diagonals are two masks shifted one place
// per row, as the solver keeps them), then the representative of its
// class inside the task, in order (solver.ListChecker). It leaves the
// solution unpacked in b.scratch.
func (b *batchChecker) checkOne(sol []byte) error {
	var cols, diag, anti uint64
	for r, c := range sol {
		if int(c) >= b.n {
			return fmt.Errorf("row %d: column %d out of range 0..%d", r, c, b.n-1)
		}
		bit := uint64(1) << c
		if (cols|diag|anti)&bit != 0 {
			return fmt.Errorf("row %d: queen in column %d is attacked", r, c)
		}
		cols, diag, anti = cols|bit, (diag|bit)<<1, (anti|bit)>>1
	}
	packed.Unpack(b.scratch, sol)
	return b.list.Check(b.scratch)
}
