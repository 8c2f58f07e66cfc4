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
