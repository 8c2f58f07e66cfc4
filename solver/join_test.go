package solver

import (
	"fmt"
	"slices"
	"testing"
)

func TestJoinTotal(t *testing.T) {
	for _, k := range known {
		if k.n > 13 {
			continue
		}
		got, err := joinTotal(k.n)
		if err != nil {
			t.Fatalf("joinTotal(%d): %v", k.n, err)
		}
		if got != k.total {
			t.Errorf("joinTotal(%d) = %d, want %d", k.n, got, k.total)
		}
	}
}

// BenchmarkJoinCount counts whole boards with the join engine on one
// goroutine, fundamental count included.
func BenchmarkJoinCount(b *testing.B) {
	for _, n := range []int{14, 16, 17} {
		b.Run(fmt.Sprint("N=", n), func(b *testing.B) {
			want, _ := Known(n)
			for b.Loop() {
				if c, err := JoinCount(n); err != nil || c.Total != want.Total {
					b.Fatalf("JoinCount(%d) = %v, %v; want %d", n, c, err, want.Total)
				}
			}
		})
	}
}

// TestSymSearch checks S90 and S180 against every solution turned by hand.
func TestSymSearch(t *testing.T) {
	for n := 1; n <= 12; n++ {
		var s90, s180 uint64
		for s := range Solutions(n, nil) {
			turn := func(q []int) []int { // (r, c) -> (c, n-1-r)
				o := make([]int, n)
				for r, c := range q {
					o[c] = n - 1 - r
				}
				return o
			}
			t1 := turn(s)
			t2 := turn(t1)
			if slices.Equal(t1, s) {
				s90++
			}
			if slices.Equal(t2, s) {
				s180++
			}
		}
		if g := symSearch(n, true); g != s90 {
			t.Errorf("symSearch(%d, quarter) = %d, want %d", n, g, s90)
		}
		if g := symSearch(n, false); g != s180 {
			t.Errorf("symSearch(%d, half) = %d, want %d", n, g, s180)
		}
	}
}

// TestJoinCount checks the join engine's totals and fundamentals against
// the published counts, N=1..17 (-long: to 19).
func TestJoinCount(t *testing.T) {
	top := 17
	if *long {
		top = 19
	}
	for n := 1; n <= top; n++ {
		want, _ := Known(n)
		got, err := JoinCount(n)
		if err != nil {
			t.Fatalf("JoinCount(%d): %v", n, err)
		}
		if got.Total != want.Total || got.Unique != want.Unique {
			t.Errorf("JoinCount(%d) = %d total, %d unique; want %d, %d", n, got.Total, got.Unique, want.Total, want.Unique)
		}
	}
}

// TestJoinPlanUnits checks that the units of plans of several sizes add
// up to the total, that a plan is the same each time it is made, and that
// bad sizes and task numbers are refused.
func TestJoinPlanUnits(t *testing.T) {
	for _, n := range []int{8, 11, 12, 13} {
		want, _ := Known(n)
		for _, tasks := range []int{1, 7, 64, 5000} {
			p, err := NewJoinPlan(n, tasks)
			if err != nil {
				t.Fatalf("NewJoinPlan(%d, %d): %v", n, tasks, err)
			}
			q, _ := NewJoinPlan(n, tasks)
			if !slices.Equal(p.units, q.units) {
				t.Errorf("NewJoinPlan(%d, %d) made different units twice", n, tasks)
			}
			var sum uint64
			for i := range p.NumTasks() {
				c, err := p.CountTask(i)
				if err != nil {
					t.Fatalf("CountTask(%d) of n=%d: %v", i, n, err)
				}
				sum += c
			}
			if sum != want.Total || p.Fundamental(sum) != want.Unique {
				t.Errorf("n=%d in %d units: %d total, %d unique; want %d, %d", n, p.NumTasks(), sum, p.Fundamental(sum), want.Total, want.Unique)
			}
		}
	}
	for _, n := range []int{0, -1, joinMaxN + 1} {
		if _, err := NewJoinPlan(n, 0); err == nil {
			t.Errorf("NewJoinPlan(%d, 0) = nil error, want one", n)
		}
	}
	p, _ := NewJoinPlan(10, 0)
	for _, i := range []int{-1, p.NumTasks()} {
		if _, err := p.CountTask(i); err == nil {
			t.Errorf("CountTask(%d) of %d units = nil error, want one", i, p.NumTasks())
		}
	}
}

// TestJoinUnitsEven checks that the default plan's units are of roughly
// even size: no unit holds more than three times the mean of row sets.
func TestJoinUnitsEven(t *testing.T) {
	for _, n := range []int{16, 17} {
		p, _ := NewJoinPlan(n, 0)
		var sum, most float64
		for _, u := range p.units {
			w := float64(u.hi - u.lo)
			if p.cfgs[u.cfg].rowSym {
				w /= 4
			}
			sum += w
			most = max(most, w)
		}
		if mean := sum / float64(len(p.units)); most > 3*mean {
			t.Errorf("n=%d: the largest of %d units has %.0f row sets, over 3 times the mean %.0f", n, len(p.units), most, mean)
		}
	}
}

// TestJoinCountAllocs checks that a counter that has counted a unit once
// counts it again without allocating: the hot loop allocates nothing.
func TestJoinCountAllocs(t *testing.T) {
	if raceOn {
		t.Skip("the race detector's instrumentation allocates; the plain run checks 0 allocs")
	}
	for _, n := range []int{12, 13} {
		p, _ := NewJoinPlan(n, 8)
		c := p.NewCounter()
		for i := range p.NumTasks() {
			c.Count(i)
		}
		allocs := testing.AllocsPerRun(3, func() {
			for i := range p.NumTasks() {
				c.Count(i)
			}
		})
		if allocs != 0 {
			t.Errorf("n=%d: counting every unit again allocates %.1f times, want 0", n, allocs)
		}
	}
}

func ExampleNewJoinPlan() {
	plan, err := NewJoinPlan(12, 0)
	if err != nil {
		panic(err)
	}
	c := plan.NewCounter()
	var total uint64
	for i := range plan.NumTasks() {
		t, err := c.Count(i)
		if err != nil {
			panic(err)
		}
		total += t
	}
	fmt.Println(total, plan.Fundamental(total))
	// Output: 14200 1787
}
