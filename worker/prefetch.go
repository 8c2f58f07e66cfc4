package worker

import (
	"math"
	"sync"
	"time"
)

// maxPrefetchPerSlot caps the leases a worker holds in reserve per slot:
// enough to hide a round trip behind tasks a hundred times shorter, few
// enough that a worker that dies takes little work down with it.
const maxPrefetchPerSlot = 64

// ewmaWeight is the weight of the newest sample in the running means.
const ewmaWeight = 0.2

// prefetch sizes the reserve of leased tasks waiting beyond the busy
// slots, so a slot that frees starts its next task at once instead of
// idling for a round trip: the reserve covers twice the round trip
// (measured from a Result being queued to its Ack, so it includes the
// Result's linger and the journal's fsync window) at the pace tasks finish
// (measured from their durations), at least the configured minimum, at
// most maxPrefetchPerSlot per slot. Twice, because the mean hides the
// slow round trips, and a dry reserve idles every slot. A fixed reserve
// stays at the minimum (Config.FixedPrefetch). Safe for concurrent use.
type prefetch struct {
	slots, min int
	fixed      bool

	mu      sync.Mutex
	task    float64              // mean task duration, seconds (0: none yet)
	rtt     float64              // mean Result-to-Ack time, seconds (0: none yet)
	sent    map[uint64]time.Time // task key -> when its Result was queued
	granted int                  // credits granted and not yet given back by a finished lease
	held    int                  // leases assigned and not yet finished: never more than granted
}

func newPrefetch(slots, min int, fixed bool) *prefetch {
	return &prefetch{slots: slots, min: min, fixed: fixed, sent: make(map[uint64]time.Time), granted: slots + min}
}

// initial is the credits of the first Ready.
func (p *prefetch) initial() int { return p.slots + p.min }

// reserveLocked is the reserve wanted now.
func (p *prefetch) reserveLocked() int {
	if p.fixed || p.task <= 0 || p.rtt <= 0 {
		return p.min
	}
	want := int(math.Ceil(2*float64(p.slots)*p.rtt/p.task)) + 1
	return max(p.min, min(want, maxPrefetchPerSlot*p.slots))
}

// done records that a lease ended (ran for d, or 0 if it never ran) and
// returns the credits to grant for it: one, plus or minus what brings the
// reserve to its wanted size.
func (p *prefetch) done(d time.Duration) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if d > 0 {
		p.task = ewma(p.task, d.Seconds())
	}
	p.granted--
	p.held--
	give := max(0, p.slots+p.reserveLocked()-p.granted)
	p.granted += give
	return give
}

// lease takes n credits for n new leases; it reports false, taking none,
// when they would be more than the credits granted: a coordinator that
// assigns beyond them would make the worker run without bound (issue 23 D1).
func (p *prefetch) lease(n int) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n > p.granted-p.held {
		return false
	}
	p.held += n
	return true
}

// resultSent notes when the Result of the task with key k was queued.
func (p *prefetch) resultSent(k uint64) {
	p.mu.Lock()
	if len(p.sent) < maxPrefetchPerSlot*p.slots+p.slots {
		p.sent[k] = time.Now()
	}
	p.mu.Unlock()
}

// acked records the Ack of the task with key k.
func (p *prefetch) acked(k uint64) {
	p.mu.Lock()
	if t, ok := p.sent[k]; ok {
		delete(p.sent, k)
		p.rtt = ewma(p.rtt, time.Since(t).Seconds())
	}
	p.mu.Unlock()
}

// ewma adds sample x to the running mean m (the first sample sets it).
func ewma(m, x float64) float64 {
	if m == 0 {
		return x
	}
	return m + ewmaWeight*(x-m)
}
