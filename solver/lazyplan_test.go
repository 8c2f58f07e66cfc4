package solver

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestLazyPlanMatches checks that a lazy plan has NewPlan's tasks, in
// its order, with its fingerprint, asked in order and at random.
func TestLazyPlanMatches(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 1; n <= 12; n++ {
		for depth := 0; depth <= MaxDepth(n, KindCount); depth++ {
			want, err := NewPlan(n, depth, KindCount)
			if err != nil {
				t.Fatalf("NewPlan(%d, %d): %v", n, depth, err)
			}
			got, err := NewLazyPlan(n, depth, KindCount)
			if err != nil {
				t.Fatalf("NewLazyPlan(%d, %d): %v", n, depth, err)
			}
			if got.Len() != len(want.Tasks) || got.Fingerprint() != want.Fingerprint() {
				t.Fatalf("n=%d depth %d: %d tasks, fingerprint %x; want %d, %x", n, depth, got.Len(), got.Fingerprint(), len(want.Tasks), want.Fingerprint())
			}
			starts := want.LeadingStarts()
			if g := got.LeadingStarts(); !slices.Equal(g, starts) {
				t.Fatalf("n=%d depth %d: leading starts %v, want %v", n, depth, g, starts)
			}
			order := rng.Perm(got.Len())
			for i := range order[:len(order)/2] {
				order[i] = i // the first half in order, as a coordinator leases
			}
			for _, i := range order {
				p := got.Prefix(i)
				if !slices.Equal(p, want.Tasks[i].Prefix) {
					t.Fatalf("n=%d depth %d task %d: prefix %v, want %v", n, depth, i, p, want.Tasks[i].Prefix)
				}
				lead := -1
				if len(p) > 0 {
					lead = p[0]
				}
				if slices.Contains(starts, i) != (i == 0 || want.leading(i-1) != lead) {
					t.Fatalf("n=%d depth %d task %d: a run starts here: %v, leading starts %v", n, depth, i, i == 0 || want.leading(i-1) != lead, starts)
				}
				if l := got.leading(i); l != lead {
					t.Fatalf("n=%d depth %d task %d: leading %d, want %d", n, depth, i, l, lead)
				}
			}
		}
	}
}

// TestLazyPlanLarge checks a lazy plan past MaxPlanTasks: N=20 at depth 6
// holds more tasks than NewPlan accepts, and its frames add up.
func TestLazyPlanLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("plans N=20 at depth 7")
	}
	p, err := NewLazyPlan(20, 7, KindCount)
	if err != nil {
		t.Fatal(err)
	}
	if p.Len() <= MaxPlanTasks || p.Tasks != nil {
		t.Fatalf("N=20 depth 7: %d tasks (Tasks %d); want more than %d, none held", p.Len(), len(p.Tasks), MaxPlanTasks)
	}
	if _, err := NewPlan(20, 7, KindCount); err == nil {
		t.Errorf("NewPlan(20, 7) accepted more than MaxPlanTasks tasks")
	}
	last := p.Prefix(p.Len() - 1)
	if len(last) != 7 {
		t.Errorf("last task's prefix %v: want 7 values", last)
	}
}

// TestPrefixesMatch checks Prefixes against Prefix for runs that start
// and end anywhere, cross frames, stop early or reach past the plan.
func TestPrefixesMatch(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for n := 4; n <= 12; n++ {
		for depth := 0; depth <= MaxDepth(n, KindCount); depth++ {
			want, err := NewPlan(n, depth, KindCount)
			if err != nil {
				t.Fatal(err)
			}
			got, err := NewLazyPlan(n, depth, KindCount)
			if err != nil {
				t.Fatal(err)
			}
			for range 20 {
				first, count := rng.IntN(got.Len()+1), rng.IntN(300)
				stop := rng.IntN(count + 2) // yields before stopping; count+1: never stops
				next, yields := first, 0
				got.Prefixes(first, count, func(i int, p []int) bool {
					if i != next || !slices.Equal(p, want.Tasks[i].Prefix) {
						t.Fatalf("n=%d depth %d run %d+%d: task %d prefix %v, want task %d %v", n, depth, first, count, i, p, next, want.Tasks[next].Prefix)
					}
					next++
					yields++
					return yields < stop
				})
				if wantYields := min(count, got.Len()-first, max(stop, 1)); yields != wantYields {
					t.Fatalf("n=%d depth %d run %d+%d stopping after %d: %d yields, want %d", n, depth, first, count, stop, yields, wantYields)
				}
			}
		}
	}
}
