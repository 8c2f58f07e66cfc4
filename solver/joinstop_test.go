package solver

import (
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

// stopAfter returns a stop function that says true from its k-th call on
// (never if k is 0) and the number of its calls.
func stopAfter(k int) (func() bool, *int) {
	calls := new(int)
	return func() bool {
		*calls++
		return k > 0 && *calls >= k
	}, calls
}

// TestJoinCountStop checks CountStop against Count on every unit of
// N=4..14, with shared tables and with lean ones (chunks of a few row
// sets): unstopped it counts the same and asks stop; stopped at its k-th
// question it returns ErrStopped without asking again, and the counter
// then counts the unit right.
func TestJoinCountStop(t *testing.T) {
	for n := 4; n <= 14; n++ {
		for _, lean := range []uint64{0, 2000} {
			p, err := newJoinPlan(n, 64, lean)
			if err != nil {
				t.Fatal(err)
			}
			jc, sc := p.NewCounter(), p.NewCounter()
			for i := range p.NumTasks() {
				want, _ := jc.Count(i)
				stop, calls := stopAfter(0)
				if got, err := sc.CountStop(i, stop); got != want || err != nil {
					t.Fatalf("n=%d lean=%d unit %d: CountStop %d (%v), Count %d", n, lean, i, got, err, want)
				}
				if want != 0 && *calls == 0 {
					t.Fatalf("n=%d lean=%d unit %d: CountStop never asked stop", n, lean, i)
				}
				for _, k := range []int{1, 2, *calls} {
					if k < 1 || k > *calls {
						continue
					}
					stop, asked := stopAfter(k)
					if got, err := sc.CountStop(i, stop); !errors.Is(err, ErrStopped) || got != 0 || *asked != k {
						t.Fatalf("n=%d lean=%d unit %d stop at %d: %d (%v) after %d questions, want ErrStopped after %d", n, lean, i, k, got, err, *asked, k)
					}
				}
				if got, err := sc.Count(i); got != want || err != nil {
					t.Fatalf("n=%d lean=%d unit %d: Count after a stop %d (%v), want %d", n, lean, i, got, err, want)
				}
			}
		}
	}
}

// TestJoinCountStopPrompt checks that a stop ends a long count at once:
// the whole of N=16 in one unit (about a second), stopped 20 ms in, ends
// within half the unit's own time.
func TestJoinCountStopPrompt(t *testing.T) {
	if testing.Short() {
		t.Skip("counts N=16")
	}
	p, err := NewJoinPlan(16, 1)
	if err != nil {
		t.Fatal(err)
	}
	jc := p.NewCounter()
	start := time.Now()
	whole, err := jc.Count(0)
	full := time.Since(start)
	if k, _ := Known(16); err != nil || whole != k.Total {
		t.Fatalf("Count(0) = %d, %v; want %d", whole, err, k.Total)
	}
	var flag atomic.Bool
	time.AfterFunc(20*time.Millisecond, func() { flag.Store(true) })
	start = time.Now()
	_, err = jc.CountStop(0, flag.Load)
	took := time.Since(start)
	if !errors.Is(err, ErrStopped) {
		t.Fatalf("CountStop: %v, want ErrStopped", err)
	}
	if took > 20*time.Millisecond+full/2 {
		t.Errorf("stopped 20 ms in, CountStop returned after %v; the whole unit takes %v", took, full)
	}
}

// TestJoinTaskBacktrackStop checks JoinTaskBacktrackStop against
// JoinTaskBacktrack on every unit of N=4..12: unstopped the same count,
// stopped at its k-th question ErrStopped without asking again.
func TestJoinTaskBacktrackStop(t *testing.T) {
	for n := 4; n <= 12; n++ {
		for i := range joinUnits(n, DefaultJoinTasks) {
			task := Task{Index: i, Prefix: []int{i}}
			want, err := JoinTaskBacktrack(n, task)
			if err != nil {
				t.Fatal(err)
			}
			stop, calls := stopAfter(0)
			if got, err := JoinTaskBacktrackStop(n, task, stop); got != want || err != nil {
				t.Fatalf("n=%d unit %d: stoppable %v (%v), plain %v", n, i, got, err, want)
			}
			for _, k := range []int{1, 2, *calls} {
				if k < 1 || k > *calls {
					continue
				}
				stop, asked := stopAfter(k)
				if got, err := JoinTaskBacktrackStop(n, task, stop); !errors.Is(err, ErrStopped) || *asked != k {
					t.Fatalf("n=%d unit %d stop at %d: %v (%v) after %d questions, want ErrStopped after %d", n, i, k, got, err, *asked, k)
				}
			}
		}
	}
}
