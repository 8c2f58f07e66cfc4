package solver

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestPinnedPlanCoversTheCompletions draws random valid pin sets for
// N=1..10 (seeded) and every depth: the plan's tasks are row prefixes in
// strictly increasing order that hold the pins, and their completions,
// task after task, are exactly the filter of the full listing, in order;
// the checker accepts that stream.
func TestPinnedPlanCoversTheCompletions(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 30))
	plans := 0
	for n := 1; n <= 10; n++ {
		for range 12 {
			pins, err := ParsePins(n, randomPins(rng, n, 3))
			if err != nil {
				continue
			}
			want := filter(n, pins, nil)
			for depth := 0; depth <= min(MaxDepth(n, KindPinned), n-len(pins)); depth++ {
				p, err := NewPinnedPlan(n, depth, pins)
				if err != nil {
					t.Fatalf("NewPinnedPlan(%d, %d, %v): %v", n, depth, pins, err)
				}
				plans++
				checkPinnedPlan(t, p, want)
			}
		}
	}
	if plans < 100 {
		t.Errorf("only %d plans drawn: draw more", plans)
	}
}

func checkPinnedPlan(t *testing.T, p Plan, want [][]int) {
	t.Helper()
	var got [][]int
	var sum Counts
	for i, task := range p.Tasks {
		if task.Index != i {
			t.Fatalf("%v depth %d: task %d has index %d", p.Pins, p.Depth, i, task.Index)
		}
		if i > 0 && slices.Compare(p.Tasks[i-1].Prefix, task.Prefix) >= 0 {
			t.Fatalf("%v depth %d: task %d %v is not after %v", p.Pins, p.Depth, i, task.Prefix, p.Tasks[i-1].Prefix)
		}
		for _, pin := range p.Pins {
			if pin.Row < len(task.Prefix) && task.Prefix[pin.Row] != pin.Col {
				t.Fatalf("%v: task prefix %v misses pin %v", p.Pins, task.Prefix, pin)
			}
		}
		check := NewPinnedChecker(p.N, p.Pins, task.Prefix)
		c, err := ListPinnedTask(p.N, p.Pins, task, func(cols []int) bool {
			if err := check.Check(cols); err != nil {
				t.Fatalf("%v task %v: checker refused %v: %v", p.Pins, task.Prefix, cols, err)
			}
			got = append(got, slices.Clone(cols))
			return true
		})
		if err != nil {
			t.Fatal(err)
		}
		if cc, err := CountPinnedTask(p.N, p.Pins, task); err != nil || cc != c || c.Unique != 0 {
			t.Fatalf("CountPinnedTask(%d, %v, %v) = %+v, %v; listed %+v", p.N, p.Pins, task.Prefix, cc, err, c)
		}
		sum, _ = sum.Add(c)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) || sum.Total != uint64(len(want)) {
		t.Fatalf("N=%d pins %v depth %d: %d completions %v, want %d %v", p.N, p.Pins, p.Depth, sum.Total, got, len(want), want)
	}
}

func TestPinnedPlanShape(t *testing.T) {
	pins, _ := ParsePins(8, "1:1,3:5")
	// Depth 2 fixes rows 1..4: the second free row is row 4.
	p, err := NewPinnedPlan(8, 2, pins)
	if err != nil {
		t.Fatal(err)
	}
	if p.Kind != KindPinned || p.Kind.String() != "pinned" || len(p.Tasks) == 0 {
		t.Fatalf("plan %+v", p)
	}
	for _, task := range p.Tasks {
		if len(task.Prefix) != 4 || task.Prefix[0] != 0 || task.Prefix[2] != 4 {
			t.Fatalf("task prefix %v: want 4 rows holding (1,1) and (3,5)", task.Prefix)
		}
		if err := CheckPrefix(8, task.Prefix); err != nil {
			t.Fatalf("task prefix %v: %v", task.Prefix, err)
		}
	}
	if one, _ := NewPinnedPlan(8, 0, pins); len(one.Tasks) != 1 || len(one.Tasks[0].Prefix) != 0 {
		t.Errorf("depth 0: %+v, want one task with an empty prefix", one.Tasks)
	}
	for _, tt := range []struct {
		n, depth int
		pins     string
		want     string
	}{
		{4, 3, "1:2,2:4", "depth 3 out of range: with 2 pinned queens on n=4 it must be 0..2"},
		{8, -1, "1:1", "depth -1 out of range"},
		{8, 6, "1:1", "depth 6 out of range"},
	} {
		ps, _ := ParsePins(tt.n, tt.pins)
		if _, err := NewPinnedPlan(tt.n, tt.depth, ps); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("NewPinnedPlan(%d, %d, %s) error = %v, want %q", tt.n, tt.depth, tt.pins, err, tt.want)
		}
	}
	if _, err := NewPinnedPlan(8, 1, Pins{{0, 0}, {1, 1}}); err == nil || !strings.Contains(err.Error(), "diagonal") {
		t.Errorf("attacking pins: error = %v, want the diagonal named", err)
	}
	if _, err := newPinnedPlan(12, 3, Pins{{0, 0}}, 10); err == nil || !strings.Contains(err.Error(), "more than 10 tasks") {
		t.Errorf("over the limit: error = %v", err)
	}
}

func TestPinnedFingerprint(t *testing.T) {
	a, _ := ParsePins(8, "1:1")
	b, _ := ParsePins(8, "1:2")
	pa, _ := NewPinnedPlan(8, 1, a)
	pb, _ := NewPinnedPlan(8, 1, b)
	pa2, _ := NewPinnedPlan(8, 1, slices.Clone(a))
	none, _ := NewPinnedPlan(8, 1, nil)
	if pa.Fingerprint() == pb.Fingerprint() || pa.Fingerprint() == none.Fingerprint() {
		t.Errorf("pins 1:1 and 1:2 (and none) share a fingerprint")
	}
	if pa.Fingerprint() != pa2.Fingerprint() {
		t.Errorf("equal pins, different fingerprints")
	}
	count, _ := NewPlan(8, 1, KindCount)
	if count.Fingerprint() == none.Fingerprint() {
		t.Errorf("a pinned plan shares a counting plan's fingerprint")
	}
}

func TestAutoPinnedDepth(t *testing.T) {
	pins, _ := ParsePins(12, "1:1")
	d := AutoPinnedDepth(12, 2, pins)
	p, err := NewPinnedPlan(12, d, pins)
	if err != nil || d < 1 || len(p.Tasks) < autoTasksPerSlot*2 && d < MaxDepth(12, KindPinned) {
		t.Errorf("AutoPinnedDepth(12, 2, 1:1) = %d: %d tasks, %v", d, len(p.Tasks), err)
	}
	// Every row pinned: no free row to split on.
	full, _ := ParsePins(4, "1:2,2:4,3:1,4:3")
	if d := AutoPinnedDepth(4, 8, full); d != 0 {
		t.Errorf("AutoPinnedDepth with every row pinned = %d, want 0", d)
	}
	if d := AutoPinnedDepth(40, 1, nil); d != 0 {
		t.Errorf("AutoPinnedDepth(40) = %d, want 0", d)
	}
}

func TestPinnedChecker(t *testing.T) {
	pins, _ := ParsePins(8, "1:1")
	k := NewPinnedChecker(8, pins, []int{0, 4})
	if err := k.Check([]int{0, 4, 7, 5, 2, 6, 1, 3}); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		cols []int
		want string
	}{
		{[]int{0, 4, 7, 5, 2, 6, 1, 3}, "not after"},
		{[]int{0, 5, 7, 2, 6, 3, 1, 4}, "outside the task"},
		{[]int{1, 4, 7, 5, 2, 6, 0, 3}, "(1,1) is pinned"},
		{[]int{0, 4}, "2 rows, want 8"},
	} {
		if err := k.Check(tt.cols); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Check(%v) = %v, want %q", tt.cols, err, tt.want)
		}
	}
}

func TestPinnedColumns(t *testing.T) {
	pins, _ := ParsePins(8, "3:5,1:1")
	cols := PinnedColumns(8, pins)
	if want := []uint32{1, 0, 5, 0, 0, 0, 0, 0}; !slices.Equal(cols, want) {
		t.Fatalf("PinnedColumns = %v, want %v", cols, want)
	}
	back, err := PinsFromColumns(8, cols)
	if err != nil || !slices.Equal(back, pins) {
		t.Errorf("PinsFromColumns(%v) = %v, %v; want %v", cols, back, err, pins)
	}
	if PinnedColumns(8, nil) != nil {
		t.Errorf("PinnedColumns of no pins is not empty")
	}
	for _, tt := range []struct {
		cols []uint32
		want string
	}{
		{[]uint32{1, 0}, "2 pinned columns for n=8"},
		{[]uint32{9, 0, 0, 0, 0, 0, 0, 0}, "row 1: pinned column 9 out of range 1..8"},
		{[]uint32{1, 2, 0, 0, 0, 0, 0, 0}, "diagonal"},
	} {
		if _, err := PinsFromColumns(8, tt.cols); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("PinsFromColumns(%v) = %v, want %q", tt.cols, err, tt.want)
		}
	}
}
