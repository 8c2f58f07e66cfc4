package status

import (
	"sync"
	"time"

	"github.com/nqueens/nqueens/coordinator"
)

// Source is what the status server and the progress display read: a
// running job (coordinator.Job) or anything that makes the same snapshots.
// Both methods must be cheap and safe for concurrent use: they are called
// on every scrape, every page update and every bar refresh.
type Source interface {
	// Status returns a snapshot of the job; the caller may keep it.
	Status() coordinator.Status
	// Events returns the events with Seq > after, oldest first (a bounded
	// window of recent ones).
	Events(after uint64) []coordinator.Event
}

// Durable is what a Source with a journal may also tell: how many of the
// committed tasks are on disk (fsynced, restored ones included). Committed
// tasks are counted as a worker's result is accepted, up to one journal
// sync before they are durable; a display shows both so nobody takes the
// one for the other.
type Durable interface {
	DurableTasks() int
}

// durableOf returns src's durable tasks, and false when src has no journal.
func durableOf(src Source, committed int) (int, bool) {
	d, ok := src.(Durable)
	if !ok {
		return 0, false
	}
	return min(d.DurableTasks(), committed), true
}

// Estimate is what a snapshot says about speed and the time left. Rates go
// by Busy time (time with at least one worker attached), so waiting for
// workers does not slow them down, and by work (estimated search nodes),
// not tasks, whose sizes differ by orders of magnitude. Tasks restored
// from a journal are in neither WorkDone nor the elapsed Busy time, so a
// resumed run is not credited with work done in no time.
type Estimate struct {
	Fraction     float64       // work done / work total, restored work included, 0..1 (1 when Done)
	NodesPerSec  float64       // WorkDone / Busy; 0 before any work
	SolsPerSec   float64       // solutions found per Busy second (see EstimateOf)
	ETA          time.Duration // time left at NodesPerSec; valid only when HasETA
	HasETA       bool          // a rate is known and the job is not done
	BusySeconds  float64
	WorkDone     float64
	WorkTotal    float64
	RemainingWrk float64 // WorkTotal - WorkDone, never negative
}

// EstimateOf computes the rates and the ETA of s.
//
// The work left is WorkTotal - WorkDone: both leave out restored tasks
// (coordinator.Status), so after a resume it is this run's work. Solutions
// per second are the node rate times the solutions per node seen so far
// (both counts include restored tasks, their ratio is fair), or for plans
// without node counts the solutions over Busy time when nothing was
// restored; otherwise 0 (unknown).
func EstimateOf(s coordinator.Status) Estimate {
	e := Estimate{BusySeconds: s.Busy.Seconds(), WorkDone: s.WorkDone, WorkTotal: s.WorkTotal}
	e.RemainingWrk = max(s.WorkTotal-s.WorkDone, 0)
	// The fraction counts restored work as done (its nodes are in the
	// summary's, not in WorkDone): a resumed run does not start again at 0%.
	restored := 0.0
	if s.Restored > 0 {
		restored = max(float64(s.Summary.Nodes)-s.WorkDone, 0)
	}
	switch {
	case s.Done:
		e.Fraction = 1
	case s.WorkTotal+restored > 0:
		e.Fraction = min(max((s.WorkDone+restored)/(s.WorkTotal+restored), 0), 1)
	}
	if e.BusySeconds > 0 && s.WorkDone > 0 {
		e.NodesPerSec = s.WorkDone / e.BusySeconds
	}
	switch sum := s.Summary; {
	case e.NodesPerSec > 0 && sum.Nodes > 0:
		e.SolsPerSec = e.NodesPerSec * float64(sum.Solutions) / float64(sum.Nodes)
	case e.BusySeconds > 0 && s.Restored == 0:
		e.SolsPerSec = float64(sum.Solutions) / e.BusySeconds
	}
	if !s.Done && e.NodesPerSec > 0 {
		e.ETA = time.Duration(e.RemainingWrk / e.NodesPerSec * float64(time.Second))
		e.HasETA = true
	}
	return e
}

// Slots is the number of task slots of the attached workers.
func Slots(s coordinator.Status) int {
	n := 0
	for _, w := range s.Workers {
		n += w.Slots
	}
	return n
}

// workerRate is a worker's committed nodes per second since it joined.
func workerRate(w coordinator.WorkerStatus, now time.Time) float64 {
	d := now.Sub(w.Joined).Seconds()
	if d <= 0 || w.Joined.IsZero() {
		return 0
	}
	return float64(w.Nodes) / d
}

// floor keeps the progress one display shows from going backwards: the
// estimate of the total grows as big tasks report their nodes, and a
// fraction that falls would read as lost work. A display
// holds one and passes each fraction through it.
type floor struct {
	mu   sync.Mutex
	high float64
}

// hold returns f, or the highest fraction seen when f is below it, and
// whether it held (the estimate of the total grew).
func (fl *floor) hold(f float64) (float64, bool) {
	fl.mu.Lock()
	defer fl.mu.Unlock()
	if f < fl.high {
		return fl.high, true
	}
	fl.high = f
	return f, false
}
