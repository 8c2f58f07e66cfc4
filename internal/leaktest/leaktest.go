// Package leaktest fails a test whose goroutines outlive it:
//
//	func TestServer(t *testing.T) {
//		leaktest.Check(t) // first: notes the goroutines running now
//		...
//	}
//
// At cleanup it looks for goroutines that were not there at the start
// (go.uber.org/goleak, which matches goroutines by their stacks rather
// than comparing counts, so one that ended and another that leaked do not
// cancel out), waiting up to Timeout for them to end, then reports each
// leaked goroutine's stack.
package leaktest

import (
	"testing"
	"time"

	"go.uber.org/goleak"
)

// Timeout bounds how long Check waits for goroutines to end: servers and
// clients on loopback stop in milliseconds; a slow, loaded CI machine may
// take seconds.
const Timeout = 10 * time.Second

// wait is Timeout, shorter in this package's own test.
var wait = Timeout

// Check fails t if goroutines started during it are still running
// Timeout after it ended.
func Check(t testing.TB) {
	t.Helper()
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() {
		deadline := time.Now().Add(wait)
		for {
			err := goleak.Find(ignore) // retries for a fraction of a second itself
			if err == nil {
				return
			}
			if time.Now().After(deadline) {
				t.Errorf("goroutines outlived the test: %v", err)
				return
			}
		}
	})
}
