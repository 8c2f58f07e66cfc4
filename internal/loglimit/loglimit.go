// Package loglimit bounds what a process logs on a peer's say: text a
// peer sent is cut to a few hundred bytes, and lines a peer can cause at
// will are rate-limited, so a hostile or broken peer cannot fill the disk
// or drown the lines that matter (a 1 MiB drain reason was
// one 4 MB line; 100,000 bad Acks were 66,667 WARN lines).
package loglimit

import (
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/hashicorp/go-hclog"
)

// MaxText is the most bytes of a peer's text that Text keeps.
const MaxText = 256

// Text returns s cut to MaxText bytes (on a rune boundary) with a note of
// how much was cut, or s itself when it is short enough.
func Text(s string) string {
	if len(s) <= MaxText {
		return s
	}
	cut := MaxText
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "… (" + strconv.Itoa(len(s)-cut) + " bytes more)"
}

// Default rate of a Limiter: Burst lines at once, then one per Every.
const (
	Burst = 10
	Every = time.Second
)

// Limiter logs lines at a bounded rate: Burst at once, then one per
// Every; the lines it drops are counted and reported in one line when it
// may log again, and by Flush. Safe for concurrent use.
type Limiter struct {
	log     hclog.Logger
	now     func() time.Time
	summary string // the message of the line that counts dropped ones

	mu      sync.Mutex
	tokens  float64
	last    time.Time
	dropped int
}

// New returns a Limiter writing to log; now is its clock (nil: time.Now).
func New(log hclog.Logger, now func() time.Time) *Limiter {
	if now == nil {
		now = time.Now
	}
	return &Limiter{log: log, now: now, summary: "log lines dropped (rate limit)", tokens: Burst, last: now()}
}

// WithSummary sets the message of the line that reports dropped lines
// (a count field follows it) and returns l.
func (l *Limiter) WithSummary(msg string) *Limiter {
	l.summary = msg
	return l
}

// Log logs msg at level if the rate allows, or counts it as dropped.
func (l *Limiter) Log(level hclog.Level, msg string, args ...any) {
	l.mu.Lock()
	now := l.now()
	if d := now.Sub(l.last); d > 0 {
		l.tokens = min(Burst, l.tokens+d.Seconds()/Every.Seconds())
		l.last = now
	}
	if l.tokens < 1 {
		l.dropped++
		l.mu.Unlock()
		return
	}
	l.tokens--
	dropped := l.dropped
	l.dropped = 0
	l.mu.Unlock()
	if dropped > 0 {
		l.log.Warn(l.summary, "count", dropped)
	}
	l.log.Log(level, msg, args...)
}

// Flush reports the lines dropped since the last line logged.
func (l *Limiter) Flush() {
	l.mu.Lock()
	dropped := l.dropped
	l.dropped = 0
	l.mu.Unlock()
	if dropped > 0 {
		l.log.Warn(l.summary, "count", dropped)
	}
}
