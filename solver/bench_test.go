package solver

import (
	"fmt"
	"testing"
)

// BenchmarkCount counts whole boards on one goroutine and reports search
// nodes per second; the hot loop allocates nothing (0 allocs/op).
func BenchmarkCount(b *testing.B) {
	for _, k := range known {
		if k.n < 14 || k.n > 17 {
			continue
		}
		b.Run(fmt.Sprintf("N=%d", k.n), func(b *testing.B) {
			c, _ := Count(k.n) // fills the triple memo, outside the measurement
			for b.Loop() {
				var err error
				if c, err = Count(k.n); err != nil {
					b.Fatal(err)
				}
			}
			if c.Total != k.total || c.Unique != k.unique {
				b.Fatalf("Count(%d) = %d, %d; want %d, %d", k.n, c.Total, c.Unique, k.total, k.unique)
			}
			b.ReportMetric(float64(c.Nodes)*float64(b.N)/b.Elapsed().Seconds(), "nodes/s")
			b.ReportMetric(float64(c.Nodes), "nodes/op")
		})
	}
}

// BenchmarkCountTotalOnly is BenchmarkCount without the leaf checks that
// find the fundamental solutions of symmetric frames: the difference is
// what the fundamental count costs.
func BenchmarkCountTotalOnly(b *testing.B) {
	for _, k := range known {
		if k.n < 14 || k.n > 17 {
			continue
		}
		b.Run(fmt.Sprintf("N=%d", k.n), func(b *testing.B) {
			var c Counts
			for b.Loop() {
				var err error
				if c, err = countPrefix(k.n, nil, false); err != nil {
					b.Fatal(err)
				}
			}
			if c.Total != k.total {
				b.Fatalf("total-only count of %d = %d, want %d", k.n, c.Total, k.total)
			}
			b.ReportMetric(float64(c.Nodes)*float64(b.N)/b.Elapsed().Seconds(), "nodes/s")
		})
	}
}

// plainCount is the classic mirror-halved bitmask counter (somers.c in Go),
// kept here as the yardstick for nodes per second.
func plainCount(n int) (total, nodes uint64) {
	all := uint32(1)<<n - 1
	var sc, sl, sr, sa [MaxN + 1]uint32
	for c0 := 0; c0 < (n+1)/2; c0++ {
		w := uint64(2)
		if n%2 == 1 && c0 == n/2 {
			w = 1
		}
		b := uint32(1) << c0
		sp := 0
		sc[0], sl[0], sr[0] = b, b<<1, b>>1
		sa[0] = all &^ (sc[0] | sl[0] | sr[0])
		var t uint64
		for sp >= 0 {
			a := sa[sp]
			if a == 0 {
				sp--
				continue
			}
			bit := a & -a
			sa[sp] = a ^ bit
			nodes++
			c := sc[sp] | bit
			if c == all {
				t++
				continue
			}
			l, r := (sl[sp]|bit)<<1, (sr[sp]|bit)>>1
			sp++
			sc[sp], sl[sp], sr[sp] = c, l, r
			sa[sp] = all &^ (c | l | r)
		}
		total += w * t
	}
	return total, nodes
}

func BenchmarkPlainCount(b *testing.B) {
	for _, n := range []int{14, 15} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			var nodes uint64
			for b.Loop() {
				_, nodes = plainCount(n)
			}
			b.ReportMetric(float64(nodes)*float64(b.N)/b.Elapsed().Seconds(), "nodes/s")
			b.ReportMetric(float64(nodes), "nodes/op")
		})
	}
}

// BenchmarkSolutions measures the plain enumeration of Solutions: every
// solution yielded, nothing kept (listings go through ListTask; see
// BenchmarkListTask and scripts/bench_listing.sh).
func BenchmarkSolutions(b *testing.B) {
	for _, n := range []int{12, 14} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			var sols int
			for b.Loop() {
				sols = 0
				for range Solutions(n, nil) {
					sols++
				}
			}
			b.ReportMetric(float64(sols)*float64(b.N)/b.Elapsed().Seconds(), "solutions/s")
		})
	}
}

// BenchmarkListTask lists the representatives of whole boards on one
// goroutine: against BenchmarkCount, what recording the board and yielding
// each class costs.
func BenchmarkListTask(b *testing.B) {
	for _, k := range known {
		if k.n < 14 || k.n > 16 {
			continue
		}
		b.Run(fmt.Sprintf("N=%d", k.n), func(b *testing.B) {
			var c Counts
			for b.Loop() {
				var err error
				if c, err = ListTask(k.n, Task{}, func([]int) bool { return true }); err != nil {
					b.Fatal(err)
				}
			}
			if c.Total != k.total || c.Unique != k.unique {
				b.Fatalf("ListTask(%d) = %d, %d; want %d, %d", k.n, c.Total, c.Unique, k.total, k.unique)
			}
			b.ReportMetric(float64(c.Unique)*float64(b.N)/b.Elapsed().Seconds(), "classes/s")
		})
	}
}
