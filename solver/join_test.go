package solver

import (
	"fmt"
	"slices"
	"testing"
)

func TestJoinTotal(t *testing.T) {
	for _, k := range known {
		if k.n > 15 && !*long {
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

func BenchmarkJoinTotal(b *testing.B) {
	for _, n := range []int{14, 16} {
		b.Run(fmt.Sprint("N=", n), func(b *testing.B) {
			for b.Loop() {
				if _, err := joinTotal(n); err != nil {
					b.Fatal(err)
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
