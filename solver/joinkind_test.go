package solver

import "testing"

// TestJoinUnits: the join task plan has exactly the units of the join
// plan, whose tables it does not build, for every board and plan size.
func TestJoinUnits(t *testing.T) {
	for n := 1; n <= 16; n++ {
		for _, tasks := range []int{1, 7, DefaultJoinTasks, 1000} {
			p, err := NewJoinPlan(n, tasks)
			if err != nil {
				t.Fatal(err)
			}
			if got := joinUnits(n, tasks); got != p.NumTasks() {
				t.Errorf("joinUnits(%d, %d) = %d, want NewJoinPlan's %d", n, tasks, got, p.NumTasks())
			}
		}
	}
}

// TestJoinTaskPlan: a join task plan's units add up to the known counts,
// counted through CountJoinTask, and its fingerprint is not any
// backtracking plan's of the same board.
func TestJoinTaskPlan(t *testing.T) {
	for n := 1; n <= 12; n++ {
		p, err := NewJoinTaskPlan(n)
		if err != nil {
			t.Fatal(err)
		}
		var total uint64
		for _, task := range p.Tasks {
			c, err := CountJoinTask(n, task)
			if err != nil {
				t.Fatal(err)
			}
			if c.Unique != 0 || (n > 1 && c.Total%2 != 0) {
				t.Errorf("n=%d task %d: total %d unique %d; want an even total and unique 0", n, task.Index, c.Total, c.Unique)
			}
			total += c.Total
		}
		want, _ := Known(n)
		if total != want.Total || JoinFundamental(n, total) != want.Unique {
			t.Errorf("n=%d: total %d fundamental %d, want %d %d", n, total, JoinFundamental(n, total), want.Total, want.Unique)
		}
		for d := 0; d <= 2 && d <= n; d++ {
			b, err := NewPlan(n, d, KindCount)
			if err == nil && b.Fingerprint() == p.Fingerprint() {
				t.Errorf("n=%d: the join plan's fingerprint is the depth-%d backtracking plan's", n, d)
			}
		}
	}
	if _, err := NewJoinTaskPlan(joinMaxN + 1); err == nil {
		t.Errorf("NewJoinTaskPlan(%d) made a plan beyond the join's boards", joinMaxN+1)
	}
}
