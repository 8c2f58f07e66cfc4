package trace

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Limits of a trace.
const (
	// MaxN is the largest board traced: N=12 has about 11 million steps,
	// counted in well under a second; N=13 would take five times longer
	// to count, for a film no one watches to the end.
	MaxN = 12
	// DefaultMaxSteps is the number of frames recorded when Options.MaxSteps
	// is 0: every step of N ≤ 6 (N=6 has 1,050), the first few minutes of a
	// larger board at four steps a second.
	DefaultMaxSteps = 3000
	// MaxMaxSteps caps Options.MaxSteps: 100,000 frames are a GIF of tens
	// of megabytes.
	MaxMaxSteps = 100_000
)

// Kind is what one step of the backtracker does.
type Kind uint8

// The kinds of step.
const (
	Place     Kind = iota // a queen goes on a free square of the next row
	Conflict              // the square tried is attacked: the queen is refused
	Backtrack             // the row's queen is taken off again, to try the next column
	Solution              // every row has a queen
)

var kindNames = [...]string{"place", "conflict", "backtrack", "solution"}

// String is the kind's name: place, conflict, backtrack or solution.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Step is one step of the trace. Row and Col (0-based) are the square the
// step is about: the queen placed, refused or taken off; for a Solution,
// the last queen placed.
type Step struct {
	Kind     Kind
	Row, Col int
	Solution int // with Kind Solution: its number, from 1
}

// Options say how much of the search a trace records.
type Options struct {
	MaxSteps int // frames recorded (0 = DefaultMaxSteps); the search is still counted to its end
	Until    int // stop the search after this solution (0 = search the whole board)
}

// Trace is the recorded search of one board.
type Trace struct {
	N     int
	Steps []Step // the first MaxSteps steps
	Total int    // steps of the whole search (up to the Until-th solution)
	Found int    // solutions in the whole search (up to Until)
	Until int    // Options.Until
}

// Record runs the plain backtracker on an n×n board and records its steps:
//
//	for each column c of row r, left to right:
//	    (r, c) attacked by a queen above: Conflict
//	    else: Place; then Solution if r is the last row, or the rows below;
//	          then Backtrack
//
// so the first step of N=4 places a queen on (1,1) and the whole search is
// 78 steps. Errors name the bad value in one line.
func Record(n int, opts Options) (*Trace, error) {
	if err := opts.check(n); err != nil {
		return nil, err
	}
	if opts.MaxSteps == 0 {
		opts.MaxSteps = DefaultMaxSteps
	}
	t := &Trace{N: n, Until: opts.Until}
	cols := make([]int, n)
	attacked := func(r, c int) bool {
		for q := range r {
			if d := cols[q] - c; d == 0 || d == r-q || d == q-r {
				return true
			}
		}
		return false
	}
	emit := func(s Step) bool {
		if len(t.Steps) < opts.MaxSteps {
			t.Steps = append(t.Steps, s)
		}
		t.Total++
		return s.Kind != Solution || opts.Until == 0 || s.Solution < opts.Until
	}
	// solve searches row r; it returns false when Until is reached.
	var solve func(r int) bool
	solve = func(r int) bool {
		for c := range n {
			if attacked(r, c) {
				if !emit(Step{Kind: Conflict, Row: r, Col: c}) {
					return false
				}
				continue
			}
			cols[r] = c
			emit(Step{Kind: Place, Row: r, Col: c})
			if r == n-1 {
				t.Found++
				if !emit(Step{Kind: Solution, Row: r, Col: c, Solution: t.Found}) {
					return false
				}
			} else if !solve(r + 1) {
				return false
			}
			emit(Step{Kind: Backtrack, Row: r, Col: c})
		}
		return true
	}
	solve(0)
	return t, nil
}

// check reports a board or option out of range, in one line.
func (o Options) check(n int) error {
	switch {
	case n < 1 || n > MaxN:
		return fmt.Errorf("trace: n = %d, want 1..%d", n, MaxN)
	case o.MaxSteps < 0 || o.MaxSteps > MaxMaxSteps:
		return fmt.Errorf("trace: steps = %d, want 1..%d", o.MaxSteps, MaxMaxSteps)
	case o.Until < 0:
		return fmt.Errorf("trace: until = %d, want a solution number ≥ 1", o.Until)
	}
	return nil
}

// Frame is the board after step Index (0-based) of a trace.
type Frame struct {
	Index int
	Step  Step
	Cols  []int // columns of the queens on the board, rows 0..len-1 (shared: copy to keep)
	Shown int   // solutions shown so far, counting this frame's
}

// Frames replays the recorded steps and calls yield with the board after
// each; it stops early when yield returns false.
func (t *Trace) Frames(yield func(Frame) bool) {
	cols := make([]int, 0, t.N)
	shown := 0
	for i, s := range t.Steps {
		switch s.Kind {
		case Place:
			cols = append(cols[:s.Row], s.Col)
		case Backtrack:
			cols = cols[:s.Row]
		case Solution:
			shown = s.Solution
		}
		if !yield(Frame{Index: i, Step: s, Cols: cols, Shown: shown}) {
			return
		}
	}
}

// Capped reports whether the trace holds fewer steps than the search made.
func (t *Trace) Capped() bool { return len(t.Steps) < t.Total }

// Heading is the first caption line of frame i: "N=4 · step 17 of 108", or
// "N=8 · step 17 · first 3000 of 15720 steps" when the trace is capped.
func (t *Trace) Heading(i int) string {
	if t.Capped() {
		return fmt.Sprintf("N=%d · step %d · first %d of %d steps", t.N, i+1, len(t.Steps), t.Total)
	}
	return fmt.Sprintf("N=%d · step %d of %d", t.N, i+1, t.Total)
}

// Detail is the second caption line: the partial column list (1-based, as
// --format cols prints) and what the step did, "cols 2 4 1 · conflict at
// (4,2)" or "solution 1: 2 4 1 3".
func (f Frame) Detail() string {
	var b strings.Builder
	if f.Step.Kind == Solution {
		fmt.Fprintf(&b, "solution %d: ", f.Step.Solution)
	} else {
		b.WriteString("cols")
		if len(f.Cols) == 0 {
			b.WriteString(" –")
		}
	}
	for i, c := range f.Cols {
		if i > 0 || f.Step.Kind != Solution {
			b.WriteByte(' ')
		}
		b.WriteString(strconv.Itoa(c + 1))
	}
	sq := fmt.Sprintf("(%d,%d)", f.Step.Row+1, f.Step.Col+1)
	switch f.Step.Kind {
	case Place:
		b.WriteString(" · place " + sq)
	case Conflict:
		b.WriteString(" · conflict at " + sq)
	case Backtrack:
		b.WriteString(" · backtrack from " + sq)
	}
	return b.String()
}

// ErrFormat is returned by Write for a file name whose extension is not
// .gif, .svg or .html.
var ErrFormat = errors.New("trace: want a .gif, .svg or .html file")
