package sched

import (
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
)

// Warnings one worker can cause are rate-limited: a client
// that sends rejected results in a loop would otherwise write thousands of
// WARN lines a second. Each session may log WarnBurst warnings at once and
// one every WarnEvery after that; the ones it could not log are counted
// and summarised in one line when it may log again, and when it ends.
const (
	WarnBurst = 10
	WarnEvery = time.Second
)

// warnLimiter logs one session's warnings within the rate. Safe for
// concurrent use: the Work handler and the scheduler both warn.
type warnLimiter struct {
	log   hclog.Logger
	clock Clock

	mu         sync.Mutex
	tokens     float64
	last       time.Time
	suppressed int
}

func newWarnLimiter(log hclog.Logger, clock Clock) *warnLimiter {
	return &warnLimiter{log: log, clock: clock, tokens: WarnBurst, last: clock.Now()}
}

// warn logs msg at WARN level if the session's rate allows, or counts it.
func (w *warnLimiter) warn(msg string, args ...any) {
	w.mu.Lock()
	now := w.clock.Now()
	if d := now.Sub(w.last); d > 0 {
		w.tokens = min(WarnBurst, w.tokens+d.Seconds()/WarnEvery.Seconds())
		w.last = now
	}
	if w.tokens < 1 {
		w.suppressed++
		w.mu.Unlock()
		return
	}
	w.tokens--
	suppressed := w.suppressed
	w.suppressed = 0
	w.mu.Unlock()
	if suppressed > 0 {
		w.log.Warn("warnings suppressed", "count", suppressed)
	}
	w.log.Warn(msg, args...)
}

// flush logs the count of warnings still suppressed.
func (w *warnLimiter) flush() {
	w.mu.Lock()
	suppressed := w.suppressed
	w.suppressed = 0
	w.mu.Unlock()
	if suppressed > 0 {
		w.log.Warn("warnings suppressed", "count", suppressed)
	}
}
