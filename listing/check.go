package listing

import (
	"errors"
	"fmt"

	"github.com/nqueens/nqueens/internal/packed"
	"github.com/nqueens/nqueens/solver"
)

// ErrBatch marks a batch of solutions that failed validation.
var ErrBatch = errors.New("invalid solution batch")

// A Checker validates what one attempt (one lease) streams for one task,
// before a byte of it reaches a spool: every solution is a valid placement
// and belongs to the task, after the previous one in the search's order
// (so none comes twice, and the counts it streamed can be compared with
// the Result's). For a counting or listing plan the solutions are the
// representatives of their symmetry classes inside the task
// (solver.ListChecker); for a pinned plan, whole completions that hold the
// pins (solver.PinnedChecker). Solutions travel packed, n bytes each, byte
// r holding the 0-based column of row r.
//
// A Checker is used by one goroutine at a time.
type Checker struct {
	n        int
	order    interface{ Check(cols []int) error }
	whole    bool          // whole solutions, not classes: a pinned plan
	seq      uint32        // the seq the next batch must carry
	streamed solver.Counts // accepted so far
	scratch  []int
}

// NewChecker returns the checker of the task of plan p with prefix.
func NewChecker(p solver.Plan, prefix []int) *Checker {
	c := &Checker{n: p.N, scratch: make([]int, max(p.N, 0))}
	if p.Kind == solver.KindPinned {
		c.order, c.whole = solver.NewPinnedChecker(p.N, p.Pins, prefix), true
	} else {
		c.order = solver.NewListChecker(p.N, prefix)
	}
	return c
}

// Streamed is what the accepted batches hold: Unique representatives and
// Total solutions in their classes (a pinned plan: Total only).
func (c *Checker) Streamed() solver.Counts { return c.streamed }

// Check validates the next batch and calls emit (if not nil) with each of
// its solutions in order, packed; emit must not keep the slice. On error
// the checker must not be used again (solutions already emitted from this
// batch stay emitted, so callers discard the whole attempt).
func (c *Checker) Check(seq, count uint32, sols []byte, emit func([]byte) error) error {
	if seq != c.seq {
		return fmt.Errorf("%w: batch %d arrived, want %d", ErrBatch, seq, c.seq)
	}
	if count == 0 {
		return fmt.Errorf("%w: batch %d is empty", ErrBatch, seq)
	}
	if c.n < 1 || c.n > solver.MaxN || uint64(len(sols)) != uint64(count)*uint64(c.n) {
		return fmt.Errorf("%w: batch %d has %d bytes for %d solutions of n=%d", ErrBatch, seq, len(sols), count, c.n)
	}
	for i := 0; i < int(count); i++ {
		sol := sols[i*c.n : (i+1)*c.n]
		if err := c.checkOne(sol); err != nil {
			return fmt.Errorf("%w: batch %d solution %d: %w", ErrBatch, seq, i, err)
		}
		if c.whole {
			c.streamed.Total++
		} else {
			c.streamed.Unique++
			c.streamed.Total += uint64(solver.ClassSize(c.scratch))
		}
		if emit != nil {
			if err := emit(sol); err != nil {
				return err
			}
		}
	}
	c.seq++
	return nil
}

// checkOne checks one packed solution: in range, no two queens sharing a
// column or diagonal (O(n): the diagonals are two masks shifted one place
// per row, as the solver keeps them), then its place in the task's order.
// It leaves the solution unpacked in c.scratch.
func (c *Checker) checkOne(sol []byte) error {
	var cols, diag, anti uint64
	for r, col := range sol {
		if int(col) >= c.n {
			return fmt.Errorf("row %d: column %d out of range 0..%d", r, col, c.n-1)
		}
		bit := uint64(1) << col
		if (cols|diag|anti)&bit != 0 {
			return fmt.Errorf("row %d: queen in column %d is attacked", r, col)
		}
		cols, diag, anti = cols|bit, (diag|bit)<<1, (anti|bit)>>1
	}
	packed.Unpack(c.scratch, sol)
	return c.order.Check(c.scratch)
}
