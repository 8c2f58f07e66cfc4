package solver

import (
	"reflect"
	"sync"
	"testing"
)

// TestTripleMemo: the memo gives framesOf's answer for every triple of
// N=4..12, the same record on the next call, and concurrent counts
// through a cold memo are exact.
func TestTripleMemo(t *testing.T) {
	for n := 4; n <= 12; n++ {
		for a := range n {
			for c := range n {
				for d := range n {
					want := framesOf(n, a, c, d)
					got := memoFramesOf(n, a, c, d)
					if !reflect.DeepEqual(*got, want) {
						t.Fatalf("n=%d (%d,%d,%d): memo %+v, framesOf %+v", n, a, c, d, *got, want)
					}
					if again := memoFramesOf(n, a, c, d); again != got {
						t.Fatalf("n=%d (%d,%d,%d): a second lookup made a new record", n, a, c, d)
					}
				}
			}
		}
	}
	const n = 13 // not used above: its memo starts cold
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			if c, err := Count(n); err != nil || c.Total != 73712 || c.Unique != 9233 {
				t.Errorf("concurrent Count(%d) = %+v, %v; want 73712, 9233", n, c, err)
			}
		})
	}
	wg.Wait()
}
