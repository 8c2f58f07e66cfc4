package solver

import (
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

var long = flag.Bool("long", false, "also count N=18 (and 19 with the join engine; minutes)")

// known is DESIGN.md §5: total (A000170) and fundamental (A002562) counts.
var known = []struct {
	n             int
	total, unique uint64
}{
	{1, 1, 1}, {2, 0, 0}, {3, 0, 0}, {4, 2, 1}, {5, 10, 2}, {6, 4, 1},
	{7, 40, 6}, {8, 92, 12}, {9, 352, 46}, {10, 724, 92}, {11, 2680, 341},
	{12, 14200, 1787}, {13, 73712, 9233}, {14, 365596, 45752},
	{15, 2279184, 285053}, {16, 14772512, 1846955}, {17, 95815104, 11977939},
	{18, 666090624, 83263591},
}

// TestCount checks the backtracker's totals and fundamentals against the
// published counts, N=1..17 (-long: 18).
func TestCount(t *testing.T) {
	for _, k := range known {
		if k.n > 17 && !*long {
			continue
		}
		got, err := Count(k.n)
		if err != nil {
			t.Fatalf("Count(%d): %v", k.n, err)
		}
		if got.Total != k.total || got.Unique != k.unique {
			t.Errorf("Count(%d) = %d total, %d unique; want %d, %d", k.n, got.Total, got.Unique, k.total, k.unique)
		}
	}
}

// sumPlan counts every task of a plan and adds the results.
func sumPlan(t *testing.T, p Plan) Counts {
	t.Helper()
	var sum Counts
	for _, task := range p.Tasks {
		c, err := CountTask(p.N, task)
		if err != nil {
			t.Fatalf("CountTask(%d, %v): %v", p.N, task, err)
		}
		if sum, err = sum.Add(c); err != nil {
			t.Fatal(err)
		}
	}
	return sum
}

func TestEveryDepthSumsToTotal(t *testing.T) {
	for _, k := range known {
		if k.n > 12 {
			break
		}
		for d := 0; d <= MaxDepth(k.n, KindCount); d++ {
			p, err := NewPlan(k.n, d, KindCount)
			if err != nil {
				t.Fatalf("NewPlan(%d, %d, count): %v", k.n, d, err)
			}
			for i, task := range p.Tasks {
				if task.Index != i {
					t.Fatalf("NewPlan(%d, %d) task %d has index %d", k.n, d, i, task.Index)
				}
			}
			got := sumPlan(t, p)
			if got.Total != k.total || got.Unique != k.unique {
				t.Errorf("n=%d depth=%d: plan sums to %d total, %d unique; want %d, %d", k.n, d, got.Total, got.Unique, k.total, k.unique)
			}
		}
	}
}

func TestAutoDepthPlansAreSmallAndSumToTotal(t *testing.T) {
	for _, kind := range []Kind{KindCount, KindAll, KindUnique} {
		for _, n := range []int{1, 4, 8, 12, 14, 17, 20, 27, 32} {
			for _, slots := range []int{1, 2, 8, 64} {
				d := AutoDepth(n, slots, kind)
				p, err := NewPlan(n, d, kind)
				if err != nil {
					t.Fatalf("NewPlan(%d, AutoDepth=%d, %v): %v", n, d, kind, err)
				}
				if len(p.Tasks) > 100_000 {
					t.Errorf("AutoDepth(%d, %d, %v) = %d gives %d tasks, want <= 100000", n, slots, kind, d, len(p.Tasks))
				}
				if n >= 12 && len(p.Tasks) < 10*slots && d < MaxDepth(n, kind) {
					t.Errorf("AutoDepth(%d, %d, %v) = %d gives only %d tasks", n, slots, kind, d, len(p.Tasks))
				}
			}
		}
	}
	p, _ := NewPlan(13, AutoDepth(13, 2, KindCount), KindCount)
	if got := sumPlan(t, p); got.Total != 73712 || got.Unique != 9233 {
		t.Errorf("n=13 auto plan sums to %d, %d; want 73712, 9233", got.Total, got.Unique)
	}
}

func TestSolutionsGoldenN8(t *testing.T) {
	var lines []string
	for s := range Solutions(8, nil) {
		lines = append(lines, oneBased(s))
	}
	if len(lines) != 92 {
		t.Fatalf("Solutions(8) gave %d solutions, want 92", len(lines))
	}
	if lines[0] != "1 5 8 6 3 7 2 4" || lines[91] != "8 4 1 3 6 2 7 5" {
		t.Errorf("Solutions(8) first %q last %q, want %q and %q", lines[0], lines[91], "1 5 8 6 3 7 2 4", "8 4 1 3 6 2 7 5")
	}
	if !slices.IsSortedFunc(lines, strings.Compare) {
		t.Error("Solutions(8) not in lexicographic order")
	}
	golden := readGolden(t, "solutions8.txt", strings.Join(lines, "\n")+"\n")
	if got := strings.Join(lines, "\n") + "\n"; got != golden {
		t.Errorf("Solutions(8) differs from testdata/solutions8.txt")
	}
}

func oneBased(cols []int) string {
	var b strings.Builder
	for i, c := range cols {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprint(&b, c+1)
	}
	return b.String()
}

func TestVerify(t *testing.T) {
	for n := 1; n <= 9; n++ {
		for s := range Solutions(n, nil) {
			if err := Verify(n, s); err != nil {
				t.Fatalf("Verify(%d, %v) = %v, want nil", n, s, err)
			}
			// Every single-queen move breaks it, naming two queens.
			m := slices.Clone(s)
			for r := range m {
				for c := 0; c < n; c++ {
					if c == s[r] {
						continue
					}
					m[r] = c
					err := Verify(n, m)
					if err == nil {
						t.Fatalf("Verify(%d, %v) = nil, want an error", n, m)
					}
					if msg := err.Error(); !strings.Contains(msg, fmt.Sprintf("(%d,%d)", r+1, c+1)) || strings.Count(msg, "(") < 3 {
						t.Fatalf("Verify(%d, %v) = %q, want it to name queen (%d,%d) and the one it attacks", n, m, msg, r+1, c+1)
					}
				}
				m[r] = s[r]
			}
		}
	}
	bad := []struct {
		n    int
		cols []int
		want string
	}{
		{0, nil, "out of range"},
		{4, []int{1, 3, 0}, "3 queens, want 4"},
		{4, []int{1, 3, 0, 4}, "column 5 out of range"},
		{4, []int{1, 3, 0, -1}, "out of range"},
		{4, []int{1, 3, 2, 0}, "(2,4) and (3,3) share a diagonal"},
	}
	for _, b := range bad {
		err := Verify(b.n, b.cols)
		if err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("Verify(%d, %v) = %v, want error containing %q", b.n, b.cols, err, b.want)
		}
	}
}

func TestUniqueSolutions(t *testing.T) {
	for _, k := range known {
		if k.n > 12 {
			break
		}
		var got uint64
		var prev []int
		for s := range UniqueSolutions(k.n, nil) {
			got++
			if !Canonical(s) {
				t.Errorf("UniqueSolutions(%d) yielded %v, not canonical", k.n, s)
			}
			if prev != nil && slices.Compare(prev, s) >= 0 {
				t.Errorf("UniqueSolutions(%d) out of order: %v then %v", k.n, prev, s)
			}
			prev = slices.Clone(s)
		}
		if got != k.unique {
			t.Errorf("UniqueSolutions(%d) gave %d, want %d", k.n, got, k.unique)
		}
	}
}

func TestSolutionsStopsEarly(t *testing.T) {
	var got int
	for range Solutions(10, nil) {
		got++
		if got == 5 {
			break
		}
	}
	if got != 5 {
		t.Errorf("break after 5 solutions gave %d", got)
	}
}

func TestConstructive(t *testing.T) {
	ns := []int{1, 1_000_000}
	for n := 4; n <= 300; n++ {
		ns = append(ns, n)
	}
	for _, n := range ns {
		cols, err := Constructive(n)
		if err != nil {
			t.Fatalf("Constructive(%d): %v", n, err)
		}
		if err := Verify(n, cols); err != nil {
			t.Fatalf("Constructive(%d) is not a solution: %v", n, err)
		}
	}
	for _, n := range []int{-1, 0, 2, 3, MaxSingleN + 1} {
		if _, err := Constructive(n); err == nil {
			t.Errorf("Constructive(%d) = nil error, want one", n)
		}
	}
}

func TestLasVegas(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 1; n <= 40; n++ {
		if n == 2 || n == 3 {
			continue
		}
		for _, k := range []int{0, n / 2, max(n-8, 0), n} {
			if n > 20 && k < n-8 {
				continue
			}
			cols, _, err := LasVegas(n, k, rng)
			if err != nil {
				t.Fatalf("LasVegas(%d, %d): %v", n, k, err)
			}
			if err := Verify(n, cols); err != nil {
				t.Fatalf("LasVegas(%d, %d) is not a solution: %v", n, k, err)
			}
		}
	}
	for _, n := range []int{100, 1000} {
		cols, _, err := LasVegas(n, n-10, rand.New(rand.NewPCG(7, 7)))
		if err != nil {
			t.Fatalf("LasVegas(%d): %v", n, err)
		}
		if err := Verify(n, cols); err != nil {
			t.Fatalf("LasVegas(%d) is not a solution: %v", n, err)
		}
	}
	// A fixed seed reproduces the run.
	a, fa, _ := LasVegas(20, 12, rand.New(rand.NewPCG(42, 0)))
	b, fb, _ := LasVegas(20, 12, rand.New(rand.NewPCG(42, 0)))
	if !slices.Equal(a, b) || fa != fb {
		t.Errorf("LasVegas with one seed gave %v (%d failures) and %v (%d failures)", a, fa, b, fb)
	}
	for _, c := range []struct{ n, k int }{{0, 0}, {2, 1}, {3, 0}, {8, -1}, {8, 9}} {
		if _, _, err := LasVegas(c.n, c.k, rng); err == nil {
			t.Errorf("LasVegas(%d, %d) = nil error, want one", c.n, c.k)
		}
	}
}

// TestLasVegasUntil: stop sees every failure and can end the search, in
// the random rows or in the backtracking; without stopping, the search is
// LasVegas's, draw for draw.
func TestLasVegasUntil(t *testing.T) {
	var seen []int
	_, failures, err := LasVegasUntil(8, 8, rand.New(rand.NewPCG(5, 5)), func(f int) bool {
		seen = append(seen, f)
		return f == 3
	})
	if !errors.Is(err, ErrStopped) || failures != 3 || !slices.Equal(seen, []int{0, 1, 1, 2, 2, 3}) {
		t.Errorf("LasVegasUntil stopped at 3 failures: err %v, failures %d, stop saw %v", err, failures, seen)
	}
	// k=0 on n=60: plain backtracking, far beyond 65536 steps.
	calls := 0
	if _, _, err := LasVegasUntil(60, 0, rand.New(rand.NewPCG(5, 5)), func(int) bool { calls++; return calls == 2 }); !errors.Is(err, ErrStopped) || calls != 2 {
		t.Errorf("LasVegasUntil(60, 0) = %v after %d calls of stop, want ErrStopped after 2", err, calls)
	}
	a, fa, _ := LasVegas(30, 18, rand.New(rand.NewPCG(9, 9)))
	b, fb, err := LasVegasUntil(30, 18, rand.New(rand.NewPCG(9, 9)), func(int) bool { return false })
	if err != nil || !slices.Equal(a, b) || fa != fb {
		t.Errorf("LasVegasUntil without stopping gave %v (%d failures, %v), LasVegas %v (%d)", b, fb, err, a, fa)
	}
}

func TestLasVegasK(t *testing.T) {
	for _, c := range []struct{ n, k int }{{1, 0}, {4, 0}, {5, 1}, {8, 4}, {12, 7}, {20, 12}, {50, 30}, {51, 31}, {100, 80}, {1_000_000, 999_980}} {
		if got := LasVegasK(c.n); got != c.k {
			t.Errorf("LasVegasK(%d) = %d, want %d", c.n, got, c.k)
		}
	}
}

func TestStudyLasVegas(t *testing.T) {
	s1, err := StudyLasVegas(12, 6, 50, rand.New(rand.NewPCG(3, 4)))
	if err != nil {
		t.Fatal(err)
	}
	s2, _ := StudyLasVegas(12, 6, 50, rand.New(rand.NewPCG(3, 4)))
	if s1.N != 12 || s1.K != 6 || s1.Trials != 50 || s1.MeanTime <= 0 {
		t.Errorf("StudyLasVegas(12, 6, 50) = %+v", s1)
	}
	if s1.MeanFailures != s2.MeanFailures {
		t.Errorf("same seed, mean failures %v and %v", s1.MeanFailures, s2.MeanFailures)
	}
	if _, err := StudyLasVegas(12, 6, 0, rand.New(rand.NewPCG(3, 4))); err == nil {
		t.Error("StudyLasVegas with 0 trials = nil error, want one")
	}
}

func TestBadInputNamesTheRange(t *testing.T) {
	for _, n := range []int{-1, 0, MaxN + 1} {
		if _, err := Count(n); err == nil || !strings.Contains(err.Error(), "1..32") {
			t.Errorf("Count(%d) = %v, want an error naming 1..32", n, err)
		}
		if _, err := NewPlan(n, 1, KindCount); err == nil || !strings.Contains(err.Error(), "1..32") {
			t.Errorf("NewPlan(%d, 1) = %v, want an error naming 1..32", n, err)
		}
		for range Solutions(n, nil) {
			t.Errorf("Solutions(%d) yielded something", n)
		}
	}
	for _, kind := range []Kind{KindCount, KindAll, KindUnique} {
		maxd := MaxDepth(12, kind)
		for _, d := range []int{-1, maxd + 1} {
			_, err := NewPlan(12, d, kind)
			if want := fmt.Sprintf("0..%d", maxd); err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("NewPlan(12, %d, %v) = %v, want an error naming %s", d, kind, err, want)
			}
		}
	}
	if _, err := NewPlan(8, 1, Kind(9)); err == nil {
		t.Error("NewPlan with kind 9 = nil error, want one")
	}
	bad := []Task{
		{Prefix: []int{99}},
		{Prefix: []int{-1}},
		{Prefix: []int{0, 1}},
		{Prefix: slices.Repeat([]int{0}, 40)},
	}
	for _, task := range bad {
		if _, err := CountTask(8, task); err == nil {
			t.Errorf("CountTask(8, %v) = nil error, want one", task.Prefix)
		}
	}
	if _, err := CountTask(40, Task{}); err == nil {
		t.Error("CountTask(40) = nil error, want one")
	}
}

func TestCountsAddOverflow(t *testing.T) {
	c := Counts{Total: 1<<64 - 1}
	if _, err := c.Add(Counts{Total: 1}); err == nil {
		t.Error("Add overflowing Total = nil error, want one")
	}
	got, err := Counts{1, 2, 3}.Add(Counts{10, 20, 30})
	if err != nil || got != (Counts{11, 22, 33}) {
		t.Errorf("Add = %v, %v; want {11 22 33}", got, err)
	}
}

func TestFingerprint(t *testing.T) {
	a, _ := NewPlan(10, 2, KindCount)
	b, _ := NewPlan(10, 3, KindCount)
	c, _ := NewPlan(10, 2, KindAll)
	if a.Fingerprint() == b.Fingerprint() || a.Fingerprint() == c.Fingerprint() {
		t.Error("plans that differ share a fingerprint")
	}
	a2, _ := NewPlan(10, 2, KindCount)
	if a.Fingerprint() != a2.Fingerprint() {
		t.Error("the same plan has two fingerprints")
	}
}

func TestSolutionsAllocateOncePerCall(t *testing.T) {
	allocs := testing.AllocsPerRun(5, func() {
		k := 0
		for range Solutions(10, nil) {
			k++
		}
		if k != 724 {
			t.Fatalf("Solutions(10) gave %d, want 724", k)
		}
	})
	if allocs > 4 {
		t.Errorf("listing 724 solutions made %v allocations, want a few per call", allocs)
	}
}
