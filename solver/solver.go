package solver

import (
	"errors"
	"fmt"
	"math"
)

// MaxN is the largest board for counting and enumeration: the backtracker
// keeps columns and diagonals in uint32 masks.
const MaxN = 32

// Version identifies the meaning of plans and tasks. It goes into plan
// fingerprints, so a worker of another version cannot commit results for a
// task it would interpret differently. Bump it whenever plans or task
// semantics change.
const Version = 3

// Kind says what the tasks of a plan compute.
type Kind uint8

const (
	// KindCount tasks count total and fundamental solutions (CountTask);
	// their prefixes are symmetry-reduced border placements.
	KindCount Kind = 1
	// KindAll tasks are KindCount's, listed: a worker streams the
	// representative of every symmetry class (ListTask), from which every
	// solution is made.
	KindAll Kind = 2
	// KindUnique tasks are KindAll's, for a listing of one canonical
	// solution per class.
	KindUnique Kind = 3
)

// String returns the lowercase name of the kind.
func (k Kind) String() string {
	switch k {
	case KindCount:
		return "count"
	case KindAll:
		return "all"
	case KindUnique:
		return "unique"
	case KindPinned:
		return "pinned"
	case KindJoin:
		return "join"
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// Task is one subtree of the search: the queens of the first rows are fixed.
// It serializes to a few small ints.
type Task struct {
	Index  int   // position in its plan (0-based); the task id
	Prefix []int // 0-based columns of the queens in rows 0..len(Prefix)-1 (meaning is Kind-specific for KindCount)
}

// Counts is what a task (or a whole board) contributes.
type Counts struct {
	Total  uint64 // solutions (OEIS A000170 contribution)
	Unique uint64 // fundamental solutions (OEIS A002562 contribution)
	Nodes  uint64 // search nodes visited
}

// ErrOverflow is returned by Counts.Add when a sum does not fit in uint64.
var ErrOverflow = errors.New("count overflows uint64")

// Add returns c + o, or ErrOverflow if a solution count would wrap
// around. Nodes, a measure of the work and not a result, saturate at
// math.MaxUint64 instead: the nodes of a whole N=28 run are about three
// times what a uint64 holds, and its solutions still fit.
func (c Counts) Add(o Counts) (Counts, error) {
	if c.Total > math.MaxUint64-o.Total || c.Unique > math.MaxUint64-o.Unique {
		return c, ErrOverflow
	}
	return Counts{Total: c.Total + o.Total, Unique: c.Unique + o.Unique, Nodes: SaturatingAdd(c.Nodes, o.Nodes)}, nil
}

// SaturatingAdd returns a + b, or math.MaxUint64 if the sum does not fit.
func SaturatingAdd(a, b uint64) uint64 {
	if a > math.MaxUint64-b {
		return math.MaxUint64
	}
	return a + b
}

// checkN returns an error naming the allowed range when n cannot be counted
// or enumerated.
func checkN(n int) error {
	if n < 1 || n > MaxN {
		return fmt.Errorf("board size %d out of range: n must be 1..%d", n, MaxN)
	}
	return nil
}

// CheckPrefix reports whether prefix is a valid placement of the first rows
// of an n-board (every column in 0..n-1, no two queens attacking), the
// precondition of Solutions and UniqueSolutions.
func CheckPrefix(n int, prefix []int) error {
	if err := checkN(n); err != nil {
		return err
	}
	if len(prefix) > n {
		return fmt.Errorf("prefix has %d rows, more than n=%d", len(prefix), n)
	}
	for i, c := range prefix {
		if c < 0 || c >= n {
			return fmt.Errorf("prefix row %d: column %d out of range 0..%d", i, c, n-1)
		}
		for j := 0; j < i; j++ {
			d := prefix[j] - c
			if d == 0 || d == i-j || d == j-i {
				return fmt.Errorf("prefix rows %d and %d attack each other", j, i)
			}
		}
	}
	return nil
}
