package coordinator

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/nqueens/nqueens/solver"
)

// errBatch marks a solution batch that failed validation.
var errBatch = errors.New("invalid solution batch")

// batchChecker validates the solutions one attempt streams for one task:
// every solution is a valid placement, extends the task's prefix, is
// canonical when the plan lists fundamental solutions only, and comes
// strictly after the previous one in lexicographic order. Solutions travel
// packed, n bytes each, byte r holding the 0-based column of row r, so
// lexicographic order of the bytes is the order of the column lists.
//
// A batchChecker is used by one goroutine at a time.
type batchChecker struct {
	n       int
	prefix  []int
	pre     []byte // prefix, packed
	unique  bool   // each solution must be solver.Canonical
	seq     uint32 // the seq the next batch must carry
	count   uint64 // solutions accepted so far
	last    []byte // the last accepted solution; empty before the first
	scratch []int
}

// newBatchChecker returns a checker for the solutions of the task whose
// queens in rows 0..len(prefix)-1 are fixed at prefix.
func newBatchChecker(n int, prefix []int, unique bool) *batchChecker {
	pre := make([]byte, len(prefix))
	for i, c := range prefix {
		pre[i] = byte(c) // out of range values cannot match a valid byte below anyway
		if c < 0 || c >= n {
			pre[i] = 0xff
		}
	}
	return &batchChecker{
		n:       n,
		prefix:  prefix,
		pre:     pre,
		unique:  unique,
		last:    make([]byte, 0, n),
		scratch: make([]int, n),
	}
}

// check validates the next batch and calls emit (if not nil) with each of
// its solutions in order, packed; emit must not keep the slice. On error the
// checker is left unchanged except that solutions already emitted from this
// batch stay emitted, so callers discard the whole attempt.
func (b *batchChecker) check(seq, count uint32, packed []byte, emit func([]byte) error) error {
	if seq != b.seq {
		return fmt.Errorf("%w: batch %d arrived, want %d", errBatch, seq, b.seq)
	}
	if count == 0 {
		return fmt.Errorf("%w: batch %d is empty", errBatch, seq)
	}
	if len(packed) > maxBatchBytes {
		return fmt.Errorf("%w: batch %d has %d bytes, at most %d", errBatch, seq, len(packed), maxBatchBytes)
	}
	if b.n < 1 || b.n > solver.MaxN || uint64(len(packed)) != uint64(count)*uint64(b.n) {
		return fmt.Errorf("%w: batch %d has %d bytes for %d solutions of n=%d", errBatch, seq, len(packed), count, b.n)
	}
	last := b.last
	for i := 0; i < int(count); i++ {
		sol := packed[i*b.n : (i+1)*b.n]
		if err := b.checkOne(sol); err != nil {
			return fmt.Errorf("%w: batch %d solution %d: %w", errBatch, seq, i, err)
		}
		if len(last) > 0 && bytes.Compare(sol, last) <= 0 {
			return fmt.Errorf("%w: batch %d solution %d is not after the previous one", errBatch, seq, i)
		}
		last = sol
		if emit != nil {
			if err := emit(sol); err != nil {
				return err
			}
		}
	}
	b.last = append(b.last[:0], last...)
	b.count += uint64(count)
	b.seq++
	return nil
}

// checkOne checks one packed solution: in range, no two queens sharing a
// column or diagonal, extending the prefix, canonical when required. It
// allocates nothing and is O(n): the diagonals are two masks shifted one
// place per row, as the solver keeps them.
func (b *batchChecker) checkOne(sol []byte) error {
	if len(b.pre) > len(sol) {
		return fmt.Errorf("prefix of %d rows is longer than the solution", len(b.pre))
	}
	if len(b.pre) > 0 && !bytes.Equal(sol[:len(b.pre)], b.pre) {
		for r, c := range b.pre {
			if sol[r] != c {
				return fmt.Errorf("row %d: column %d is outside the task's prefix", r, sol[r])
			}
		}
	}
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
	if b.unique {
		unpack(b.scratch, sol)
		if !solver.Canonical(b.scratch) {
			return errors.New("not the canonical member of its symmetry class")
		}
	}
	return nil
}

// unpack copies a packed solution into cols (len n) as ints.
func unpack(cols []int, sol []byte) {
	for i, c := range sol {
		cols[i] = int(c)
	}
}
