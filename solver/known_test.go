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
