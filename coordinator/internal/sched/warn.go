package sched

import (
	"github.com/hashicorp/go-hclog"

	"github.com/nqueens/nqueens/internal/loglimit"
)

// Warnings one worker can cause are rate-limited: a client
// that sends rejected results in a loop would otherwise write thousands of
// WARN lines a second. Each session may log WarnBurst warnings at once and
// one every WarnEvery after that; the ones it could not log are counted
// and summarised in one line when it may log again, and when it ends.
const (
	WarnBurst = loglimit.Burst
	WarnEvery = loglimit.Every
)

// warnLimiter logs one session's warnings within the rate (a
// loglimit.Limiter on the scheduler's clock). Safe for concurrent use: the
// Work handler and the scheduler both warn.
type warnLimiter struct{ l *loglimit.Limiter }

func newWarnLimiter(log hclog.Logger, clock Clock) *warnLimiter {
	return &warnLimiter{loglimit.New(log, clock.Now).WithSummary("warnings suppressed")}
}

// warn logs msg at WARN level if the session's rate allows, or counts it.
func (w *warnLimiter) warn(msg string, args ...any) { w.l.Log(hclog.Warn, msg, args...) }

// flush logs the count of warnings still suppressed.
func (w *warnLimiter) flush() { w.l.Flush() }
