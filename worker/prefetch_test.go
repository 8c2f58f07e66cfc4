package worker

import (
	"testing"
	"time"
)

// TestPrefetchFixed: for tasks of a microsecond and a round trip of a
// millisecond the reserve grows past its minimum, unless it is fixed
// (Config.FixedPrefetch): then each finished lease gives back one credit
// and the credits granted stay slots + minimum.
func TestPrefetchFixed(t *testing.T) {
	for _, fixed := range []bool{false, true} {
		p := newPrefetch(1, 2, fixed)
		for k := range uint64(20) {
			if !p.lease(1) {
				t.Fatalf("fixed %v: lease %d refused with %d granted", fixed, k, p.granted)
			}
			p.resultSent(k)
			p.sent[k] = time.Now().Add(-time.Millisecond)
			p.acked(k)
			p.done(time.Microsecond)
		}
		if grown := p.granted > 3; grown == fixed {
			t.Errorf("fixed %v: %d credits granted after 20 short tasks; want 3 only when fixed", fixed, p.granted)
		}
	}
}
