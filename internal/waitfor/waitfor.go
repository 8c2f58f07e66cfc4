// Package waitfor waits for things with a deadline: shutdown paths that
// must not hang on a goroutine that never ends.
package waitfor

import (
	"sync"
	"time"
)

// Group waits for wg at most d and reports whether it ended. When it did
// not, one goroutine keeps waiting for wg and ends with it.
func Group(wg *sync.WaitGroup, d time.Duration) bool {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-done:
		return true
	case <-t.C:
		return false
	}
}
