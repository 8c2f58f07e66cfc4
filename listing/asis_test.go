package listing

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/nqueens/nqueens/internal/leaktest"
	"github.com/nqueens/nqueens/internal/packed"
	"github.com/nqueens/nqueens/solver"
)

// TestPublisherAsIs: the completions of a queen pinned on (2,3) of N=10,
// streamed whole by the tasks of a pinned plan (added in reverse order),
// are listed as they are, in the sequential order, through every kind of
// sink and both sort paths: the sequential listing filtered by the pin.
func TestPublisherAsIs(t *testing.T) {
	leaktest.Check(t)
	const n = 10
	pins, _ := solver.ParsePins(n, "2:3")
	var want bytes.Buffer
	for cols := range solver.Solutions(n, nil) {
		if cols[1] == 2 {
			fmt.Fprintln(&want, cols)
		}
	}
	plan, err := solver.NewPinnedPlan(n, 2, pins)
	if err != nil {
		t.Fatal(err)
	}
	for _, records := range []bool{false, true} {
		for _, kind := range []string{"plain", "keys", "packed"} {
			t.Run(fmt.Sprintf("records=%v/%s", records, kind), func(t *testing.T) {
				sink, buf := newTestSink(kind, n)
				// Unique is ignored with AsIs: the solutions are not classes.
				publishPinned(t, plan, Options{Sink: sink, AsIs: true, Unique: true, Records: records})
				if got := buf.String(); got != want.String() || got == "" {
					t.Errorf("listing %q differs from the filtered sequential one %q", got, want.String())
				}
			})
		}
	}
}

func publishPinned(t *testing.T, plan solver.Plan, opts Options) {
	t.Helper()
	n := plan.N
	opts.Dir, opts.N, opts.Tasks = t.TempDir(), n, len(plan.Tasks)
	p, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	spool := p.Spool()
	for i := len(plan.Tasks) - 1; i >= 0; i-- {
		var sols []byte
		if _, err := solver.ListPinnedTask(n, plan.Pins, plan.Tasks[i], func(cols []int) bool {
			sols = packed.Append(sols, cols)
			return true
		}); err != nil {
			t.Fatal(err)
		}
		path := ""
		if len(sols) > 0 {
			a, err := spool.Open(uint64(i), i)
			if err != nil {
				t.Fatal(err)
			}
			if err := a.Write(sols); err != nil {
				t.Fatal(err)
			}
			if path, err = a.Close(); err != nil {
				t.Fatal(err)
			}
		}
		p.Add(i, path)
	}
	if err := p.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if pr := p.Progress(); !pr.Writing || pr.Written != pr.Total {
		t.Errorf("Progress() = %+v after Run, want everything written", pr)
	}
}
