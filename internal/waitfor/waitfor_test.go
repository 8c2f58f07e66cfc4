package waitfor

import (
	"sync"
	"testing"
	"time"
)

// TestGroup: a group that ends in time is reported ended, one that does
// not is reported after the deadline, not before.
func TestGroup(t *testing.T) {
	var wg sync.WaitGroup
	wg.Go(func() { time.Sleep(5 * time.Millisecond) })
	if !Group(&wg, time.Minute) {
		t.Error("a group that ends in 5 ms: not ended within a minute")
	}
	release := make(chan struct{})
	wg.Go(func() { <-release })
	start := time.Now()
	if Group(&wg, 20*time.Millisecond) {
		t.Error("a blocked group reported ended")
	}
	if d := time.Since(start); d < 20*time.Millisecond {
		t.Errorf("gave up after %v, before the 20 ms deadline", d)
	}
	close(release)
	wg.Wait()
}
