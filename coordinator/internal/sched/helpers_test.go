package sched

import (
	"sync"
	"testing"
	"time"

	"github.com/nqueens/nqueens/internal/leaktest"
)

// checkLeaks fails the test if goroutines started during it outlive it.
func checkLeaks(t *testing.T) {
	t.Helper()
	leaktest.Check(t)
}

// fakeClock is a Clock that moves only when told.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{now: time.Unix(1_000_000, 0)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// eventTimeout bounds the wait for one expected event: a hang fails the
// test instead of the whole run.
const eventTimeout = 20 * time.Second

// known is DESIGN.md §5: solutions and fundamental solutions.
var known = []struct{ total, unique uint64 }{
	{}, {1, 1}, {0, 0}, {0, 0}, {2, 1}, {10, 2}, {4, 1}, {40, 6}, {92, 12}, {352, 46},
	{724, 92}, {2680, 341}, {14200, 1787}, {73712, 9233}, {365596, 45752}, {2279184, 285053}, {14772512, 1846955},
}
