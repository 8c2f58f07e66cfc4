package solver

import (
	"fmt"
	"slices"
	"testing"
)

// images returns the distinct images of solution cols under the 8
// symmetries of the board.
func images(cols []int) [][]int {
	n := len(cols)
	var out [][]int
	for g := range 8 {
		img := make([]int, n)
		for r, c := range cols {
			rr, cc := transform(g, n-1, r, c)
			img[rr] = cc
		}
		if !slices.ContainsFunc(out, func(o []int) bool { return slices.Equal(o, img) }) {
			out = append(out, img)
		}
	}
	return out
}

// TestListTaskCoversEverySolutionOnce checks, for every plan depth, that
// the classes of the representatives ListTask yields hold every solution
// of the board exactly once, that its counts add up to the board's, and that
// each task's stream is in ListOrder and passes ListChecker.
func TestListTaskCoversEverySolutionOnce(t *testing.T) {
	for _, k := range known {
		if k.n > 11 {
			break
		}
		all := map[string]bool{}
		for s := range Solutions(k.n, nil) {
			all[fmt.Sprint(s)] = true
		}
		for d := 0; d <= MaxDepth(k.n, KindCount); d++ {
			p, err := NewPlan(k.n, d, KindCount)
			if err != nil {
				t.Fatal(err)
			}
			seen := map[string]bool{}
			var sum Counts
			for _, task := range p.Tasks {
				check := NewListChecker(k.n, task.Prefix)
				var reps int
				var prev []int
				c, err := ListTask(k.n, task, func(cols []int) bool {
					reps++
					if err := Verify(k.n, cols); err != nil {
						t.Fatalf("n=%d task %v yielded %v: %v", k.n, task.Prefix, cols, err)
					}
					if err := check.Check(cols); err != nil {
						t.Fatalf("n=%d task %v: ListChecker refused %v: %v", k.n, task.Prefix, cols, err)
					}
					if prev != nil && ListOrder(prev, cols) >= 0 {
						t.Fatalf("n=%d task %v: %v after %v is not in ListOrder", k.n, task.Prefix, cols, prev)
					}
					prev = slices.Clone(cols)
					imgs := images(cols)
					if len(imgs) != ClassSize(cols) {
						t.Fatalf("ClassSize(%v) = %d, want %d", cols, ClassSize(cols), len(imgs))
					}
					for _, img := range imgs {
						key := fmt.Sprint(img)
						if seen[key] {
							t.Fatalf("n=%d depth %d: solution %v listed twice", k.n, d, img)
						}
						seen[key] = true
					}
					return true
				})
				if err != nil {
					t.Fatalf("ListTask(%d, %v): %v", k.n, task.Prefix, err)
				}
				want, err := CountTask(k.n, task)
				if err != nil {
					t.Fatal(err)
				}
				if c.Unique != want.Unique || uint64(reps) != c.Unique {
					t.Fatalf("ListTask(%d, %v) = %d unique, %d yielded; CountTask says %d",
						k.n, task.Prefix, c.Unique, reps, want.Unique)
				}
				if sum, err = sum.Add(c); err != nil {
					t.Fatal(err)
				}
			}
			if sum.Total != k.total || sum.Unique != k.unique || len(seen) != len(all) {
				t.Errorf("n=%d depth %d: listed %d total, %d unique, %d distinct; want %d, %d",
					k.n, d, sum.Total, sum.Unique, len(seen), k.total, k.unique)
			}
			for s := range seen {
				if !all[s] {
					t.Fatalf("n=%d: listed %s, not a solution", k.n, s)
				}
			}
		}
	}
}

// TestListTaskStops checks that yield returning false stops the search.
func TestListTaskStops(t *testing.T) {
	calls := 0
	c, err := ListTask(10, Task{}, func([]int) bool { calls++; return calls < 3 })
	if err != nil {
		t.Fatal(err)
	}
	if calls != 3 || c.Unique != 3 {
		t.Errorf("ListTask stopped after %d calls with %d counted, want 3 and 3", calls, c.Unique)
	}
}

func TestListTaskRefusesBadPrefixes(t *testing.T) {
	for _, p := range [][]int{{-1}, {8}, {0, 3, 3}, {0, 7, 7}, {1, 0, 5}, {0, 7, 3, 0}, {0, 7, 3, 1, 2, 4, 6, 5}} {
		if _, err := ListTask(8, Task{Prefix: p}, func([]int) bool { return true }); err == nil {
			t.Errorf("ListTask(8, %v) gave no error", p)
		}
	}
	if _, err := ListTask(0, Task{}, func([]int) bool { return true }); err == nil {
		t.Error("ListTask(0) gave no error")
	}
}

// TestListCheckerRefuses feeds the checker what a lying worker might send.
func TestListCheckerRefuses(t *testing.T) {
	const n = 10
	p, err := NewPlan(n, 3, KindCount)
	if err != nil {
		t.Fatal(err)
	}
	var task Task
	var reps [][]int
	for _, task = range p.Tasks {
		reps = nil
		ListTask(n, task, func(cols []int) bool { reps = append(reps, slices.Clone(cols)); return true })
		if len(reps) >= 2 {
			break
		}
	}
	other := p.Tasks[len(p.Tasks)-1]
	var foreign []int
	ListTask(n, other, func(cols []int) bool { foreign = slices.Clone(cols); return false })

	fresh := func() *ListChecker { return NewListChecker(n, task.Prefix) }
	// Another member of a representative's class is never accepted.
	for _, img := range images(reps[0])[1:] {
		if err := fresh().Check(img); err == nil {
			t.Errorf("checker of %v accepted %v, an image of the representative %v", task.Prefix, img, reps[0])
		}
	}
	if err := fresh().Check(foreign); err == nil {
		t.Errorf("checker of %v accepted %v from task %v", task.Prefix, foreign, other.Prefix)
	}
	c := fresh()
	if err := c.Check(reps[1]); err != nil {
		t.Fatal(err)
	}
	if err := c.Check(reps[0]); err == nil {
		t.Error("checker accepted a representative out of order")
	}
	if err := c.Check(reps[1]); err == nil {
		t.Error("checker accepted a representative twice")
	}
	if err := fresh().Check(reps[0][:n-1]); err == nil {
		t.Error("checker accepted a short solution")
	}
}

// FuzzListTask checks a random task of a random counting plan against the
// naive solver: it yields valid solutions, one for each class the naive
// counter assigns to the task (TestListTaskCoversEverySolutionOnce checks
// which).
func FuzzListTask(f *testing.F) {
	f.Add(uint8(8), uint8(3), uint16(5))
	f.Add(uint8(9), uint8(5), uint16(17))
	f.Add(uint8(1), uint8(0), uint16(0))
	f.Fuzz(func(t *testing.T, nb, depthSel uint8, pick uint16) {
		n := 1 + int(nb)%10
		depth := int(depthSel) % (MaxDepth(n, KindCount) + 1)
		plan, err := NewPlan(n, depth, KindCount)
		if err != nil {
			t.Fatalf("NewPlan(%d, %d, count): %v", n, depth, err)
		}
		if len(plan.Tasks) == 0 {
			return
		}
		task := plan.Tasks[int(pick)%len(plan.Tasks)]
		want := naiveCountTask(n, task.Prefix)
		var got Counts
		_, err = ListTask(n, task, func(cols []int) bool {
			if err := Verify(n, cols); err != nil {
				t.Fatalf("ListTask(%d, %v) yielded %v: %v", n, task.Prefix, cols, err)
			}
			got.Unique++
			got.Total += uint64(len(images(cols)))
			return true
		})
		if err != nil {
			t.Fatalf("ListTask(%d, %v): %v", n, task.Prefix, err)
		}
		if got.Unique != want.Unique {
			t.Fatalf("ListTask(%d, %v) lists %d classes; naive solver says %d", n, task.Prefix, got.Unique, want.Unique)
		}
	})
}

// TestListTaskTotals: over a whole board, the representatives and their
// classes add up to the known counts (to N=13; -long to N=16).
func TestListTaskTotals(t *testing.T) {
	for _, k := range known {
		if k.n > 16 || k.n > 13 && !*long {
			continue
		}
		var reps uint64
		c, err := ListTask(k.n, Task{}, func([]int) bool { reps++; return true })
		if err != nil {
			t.Fatal(err)
		}
		if c.Total != k.total || c.Unique != k.unique || reps != k.unique {
			t.Errorf("ListTask(%d) = %d total, %d unique, %d yielded; want %d, %d", k.n, c.Total, c.Unique, reps, k.total, k.unique)
		}
	}
}
