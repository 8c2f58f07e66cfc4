package listing

import (
	"runtime"
	"testing"
	"time"
)

// leakTimeout bounds how long checkLeaks waits for goroutines to end.
const leakTimeout = 10 * time.Second

// checkLeaks fails the test if goroutines started during it outlive it.
func checkLeaks(t *testing.T) {
	t.Helper()
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		deadline := time.Now().Add(leakTimeout)
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
