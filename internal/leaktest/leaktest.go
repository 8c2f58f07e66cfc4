// Package leaktest fails a test whose goroutines outlive it:
//
//	func TestServer(t *testing.T) {
//		leaktest.Check(t) // first: counts the goroutines running now
//		...
//	}
//
// At cleanup it waits up to Timeout for the count to come back down, then
// reports every goroutine's stack.
package leaktest

import (
	"runtime"
	"testing"
	"time"
)

// Timeout bounds how long Check waits for goroutines to end: servers and
// clients on loopback stop in milliseconds; a slow, loaded CI machine may
// take seconds.
const Timeout = 10 * time.Second

// Check fails t if goroutines started during it are still running
// Timeout after it ended.
func Check(t testing.TB) {
	t.Helper()
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		deadline := time.Now().Add(Timeout)
		for runtime.NumGoroutine() > before {
			if time.Now().After(deadline) {
				buf := make([]byte, 1<<20)
				buf = buf[:runtime.Stack(buf, true)]
				t.Errorf("%d goroutines before the test, %d after:\n%s", before, runtime.NumGoroutine(), buf)
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	})
}
