package solver

import (
	"testing"
)

// TestJoinTaskBacktrack checks the backtracker's count of every unit of
// the join plan against the join's own, and their sums against the known
// totals, N=1..14 (-long: to 15).
func TestJoinTaskBacktrack(t *testing.T) {
	top := 14
	if *long {
		top = 15
	}
	for n := 1; n <= top; n++ {
		p, err := NewJoinPlan(n, DefaultJoinTasks)
		if err != nil {
			t.Fatal(err)
		}
		jc := p.NewCounter()
		var total uint64
		for i := range p.NumTasks() {
			want, err := jc.Count(i)
			if err != nil {
				t.Fatal(err)
			}
			got, err := JoinTaskBacktrack(n, Task{Index: i, Prefix: []int{i}})
			if err != nil {
				t.Fatal(err)
			}
			if got.Total != want {
				t.Errorf("n=%d unit %d: backtracker %d, join %d", n, i, got.Total, want)
			}
			total += got.Total
		}
		if k, _ := Known(n); total != k.Total {
			t.Errorf("n=%d: the units' backtracked counts add up to %d, want %d", n, total, k.Total)
		}
	}
}

// TestJoinTaskBacktrackBad checks that bad tasks are refused.
func TestJoinTaskBacktrackBad(t *testing.T) {
	units := joinUnits(12, DefaultJoinTasks)
	for _, c := range []struct {
		n    int
		task Task
	}{
		{0, Task{Index: 0, Prefix: []int{0}}},
		{joinMaxN + 1, Task{Index: 0, Prefix: []int{0}}},
		{12, Task{Index: 3, Prefix: []int{4}}},
		{12, Task{Index: 3}},
		{12, Task{Index: -1, Prefix: []int{-1}}},
		{12, Task{Index: units, Prefix: []int{units}}},
		{1, Task{Index: 1, Prefix: []int{1}}},
	} {
		if got, err := JoinTaskBacktrack(c.n, c.task); err == nil {
			t.Errorf("JoinTaskBacktrack(%d, %v) = %v, want an error", c.n, c.task, got)
		}
	}
}

// FuzzJoinTaskBacktrack checks the backtracker and the join with tables
// per group of row sets (of any budget) against the join on any unit of
// any plan size of boards to N=13.
func FuzzJoinTaskBacktrack(f *testing.F) {
	f.Add(uint8(8), uint16(5), uint16(3))
	f.Add(uint8(11), uint16(40), uint16(17))
	f.Add(uint8(13), uint16(1), uint16(0))
	f.Fuzz(func(t *testing.T, n8 uint8, tasks, unit uint16) {
		n := 2 + int(n8)%12
		p, err := NewJoinPlan(n, 1+int(tasks)%600)
		if err != nil {
			t.Fatal(err)
		}
		u := int(unit) % p.NumTasks()
		want, err := p.CountTask(u)
		if err != nil {
			t.Fatal(err)
		}
		cfg := &p.cfgs[p.units[u].cfg]
		got, _, err := backtrackUnit(n, cfg, p.units[u], func() bool { return false })
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("n=%d tasks=%d unit %d: backtracker %d, join %d", n, 1+int(tasks)%600, u, got, want)
		}
		lp, _ := newJoinPlan(n, 1+int(tasks)%600, 1+uint64(unit)*7)
		if lean, _ := lp.CountTask(u); lean != want {
			t.Errorf("n=%d tasks=%d unit %d: lean tables %d, shared %d", n, 1+int(tasks)%600, u, lean, want)
		}
	})
}

// TestJoinLean checks that a lean plan (tables per group of row sets)
// counts every unit as the shared tables do, for chunks of one row set,
// of a few and of all, N=4..15.
func TestJoinLean(t *testing.T) {
	for n := 4; n <= 15; n++ {
		p, err := NewJoinPlan(n, 64)
		if err != nil {
			t.Fatal(err)
		}
		jc := p.NewCounter()
		for _, budget := range []uint64{1, 2000, 1 << 30} {
			lp, _ := newJoinPlan(n, 64, budget)
			lc := lp.NewCounter()
			for i := range p.NumTasks() {
				want, _ := jc.Count(i)
				if got, err := lc.Count(i); got != want || err != nil {
					t.Fatalf("n=%d budget %d unit %d: lean %d (%v), shared %d", n, budget, i, got, err, want)
				}
			}
		}
	}
}
