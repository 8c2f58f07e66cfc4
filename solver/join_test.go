package solver

import (
	"fmt"
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
