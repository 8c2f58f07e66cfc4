package solver

import "testing"

func TestKnownMatchesCount(t *testing.T) {
	for n := 1; n <= 12; n++ {
		got, err := Count(n)
		if err != nil {
			t.Fatal(err)
		}
		k, ok := Known(n)
		if !ok || k.Total != got.Total || k.Unique != got.Unique {
			t.Errorf("Known(%d) = %+v, %v; Count(%d) = %d, %d", n, k, ok, n, got.Total, got.Unique)
		}
	}
	if k, ok := Known(27); !ok || k.Total != 234907967154122528 {
		t.Errorf("Known(27) = %+v, %v, want 234907967154122528", k, ok)
	}
	for _, n := range []int{0, -1, 28} {
		if _, ok := Known(n); ok {
			t.Errorf("Known(%d) is known, want not", n)
		}
	}
}

// TestAddSaturatesNodes: solution counts that overflow are an error, the
// node count (a measure of work: a whole N=28 run has about 5.7e19 nodes)
// saturates instead.
func TestAddSaturatesNodes(t *testing.T) {
	const max = ^uint64(0)
	got, err := Counts{Total: 2, Nodes: max - 1}.Add(Counts{Total: 4, Nodes: 5})
	if err != nil || got.Total != 6 || got.Nodes != max {
		t.Errorf("Add with nodes past uint64 = %+v, %v; want total 6, nodes %d, no error", got, err, uint64(max))
	}
	if _, err := (Counts{Total: max}).Add(Counts{Total: 1}); err != ErrOverflow {
		t.Errorf("Add with a total past uint64: %v, want ErrOverflow", err)
	}
	if _, err := (Counts{Unique: max}).Add(Counts{Unique: 1}); err != ErrOverflow {
		t.Errorf("Add with a fundamental count past uint64: %v, want ErrOverflow", err)
	}
}
