package sched

import (
	"sort"
	"time"

	"github.com/nqueens/nqueens/solver"
)

// What the scheduler keeps for the people watching a job: an estimate of
// the work, the time with workers, recent events. None of it decides
// anything; all of it is guarded by scheduler.mu.

// workEstimate estimates the search work of a plan in nodes. Tasks differ
// in size by orders of magnitude, but tasks that share their first border
// value (Prefix[0]) are alike, so the uncommitted work of a group is
// estimated from the nodes per unit of the group's committed tasks (or of
// all committed tasks while the group has none). A plan's task weighs one
// unit; a split shares its task's weight among its children, so splitting
// changes no estimate.
type workEstimate struct {
	starts    []int       // the first plan task of each group, in order (solver.Plan.LeadingStarts)
	store     *taskStore  // a split's child's group and units are in its record
	planTasks int         // the plan's tasks, one unit each
	groups    []workGroup // by Prefix[0]
	all       workGroup   // every committed task
	done      float64     // nodes committed by this run
}

type workGroup struct {
	units     float64 // units of the tasks this run must do (restored ones excluded)
	committed float64 // units of the committed tasks with their nodes known (restored included)
	nodes     float64 // their nodes
	fresh     float64 // units committed by this run
	freshN    float64 // their nodes
	timed     int     // tasks with a measured duration
	timedU    float64 // their units
	timedS    float64 // their seconds
}

// newWorkEstimate groups p's tasks by their first value: the plan keeps a
// group's tasks together, so a group is a range of indices and nothing is
// kept per task of the plan.
func newWorkEstimate(p solver.Plan, store *taskStore) workEstimate {
	w := workEstimate{starts: p.LeadingStarts(), planTasks: p.Len(), store: store}
	w.groups = make([]workGroup, len(w.starts))
	for g, first := range w.starts {
		end := w.planTasks
		if g+1 < len(w.starts) {
			end = w.starts[g+1]
		}
		w.groups[g].units = float64(end - first)
	}
	w.all.units = float64(w.planTasks)
	return w
}

// groupOf returns task idx's group.
func (w *workEstimate) groupOf(idx int) *workGroup {
	if idx >= w.planTasks {
		return &w.groups[w.store.at(idx).group]
	}
	return &w.groups[sort.Search(len(w.starts), func(g int) bool { return w.starts[g] > idx })-1]
}

// weightOf returns task idx's units.
func (w *workEstimate) weightOf(idx int) float64 {
	if idx >= w.planTasks {
		return float64(w.store.at(idx).weight)
	}
	return 1
}

// child returns the group and units of each of the k children of task
// parent.
func (w *workEstimate) child(parent, k int) (group uint8, units float32) {
	if parent >= w.planTasks {
		group = w.store.at(parent).group
	} else {
		group = uint8(sort.Search(len(w.starts), func(g int) bool { return w.starts[g] > parent }) - 1)
	}
	return group, float32(w.weightOf(parent) / float64(k))
}

// commit records a committed task's nodes; restored tasks teach the
// estimate but are not work of this run.
func (w *workEstimate) commit(idx int, nodes uint64, restored bool) {
	w.add(idx, nodes, restored, 1)
	if !restored {
		w.done += float64(nodes)
	}
}

// uncommit takes back a task of this run committed with nodes (its
// committer was quarantined).
func (w *workEstimate) uncommit(idx int, nodes uint64) {
	w.add(idx, nodes, false, -1)
	w.done -= float64(nodes)
}

func (w *workEstimate) add(idx int, nodes uint64, restored bool, sign float64) {
	u := w.weightOf(idx) * sign
	g := w.groupOf(idx)
	for _, x := range []*workGroup{g, &w.all} {
		if nodes > 0 {
			x.committed += u
			x.nodes += sign * float64(nodes)
		}
		if restored {
			x.units -= u
		} else {
			x.fresh += u
			x.freshN += sign * float64(nodes)
		}
	}
}

// measure records that task idx took seconds.
func (w *workEstimate) measure(idx int, seconds float64) {
	u := w.weightOf(idx)
	for _, x := range []*workGroup{w.groupOf(idx), &w.all} {
		x.timed++
		x.timedU += u
		x.timedS += seconds
	}
}

// seconds estimates the duration of task idx: its units times the
// measured seconds per unit of its group (or of every group), or, before
// minDurationSamples tasks are measured, its share of board seconds.
func (w *workEstimate) seconds(idx int, board float64) float64 {
	u := w.weightOf(idx)
	for _, x := range []*workGroup{w.groupOf(idx), &w.all} {
		if x.timed >= minDurationSamples && x.timedU > 0 {
			return u * x.timedS / x.timedU
		}
	}
	return u * board / float64(max(w.planTasks, 1))
}

// totals returns the work done by this run and the estimated work of the
// whole run (the plan less its restored tasks), both in nodes.
func (w *workEstimate) totals() (done, total float64) {
	mean := 1.0
	if w.all.committed > 0 {
		mean = w.all.nodes / w.all.committed
	}
	for _, g := range w.groups {
		m := mean
		if g.committed > 1e-9 {
			m = g.nodes / g.committed
		}
		total += g.freshN + max(g.units-g.fresh, 0)*m
	}
	return w.done, max(total, w.done)
}

// busyClock adds up the time during which at least one worker is attached:
// rates and ETAs divide by it, not by the time spent waiting for workers.
type busyClock struct {
	since time.Time // when the current busy spell began (zero: idle)
	total time.Duration
}

// set tells the clock how many workers are attached now.
func (b *busyClock) set(now time.Time, live int) {
	switch {
	case live > 0 && b.since.IsZero():
		b.since = now
	case live == 0 && !b.since.IsZero():
		b.total += now.Sub(b.since)
		b.since = time.Time{}
	}
}

// at is the busy time up to now.
func (b *busyClock) at(now time.Time) time.Duration {
	if b.since.IsZero() {
		return b.total
	}
	return b.total + now.Sub(b.since)
}

// eventLog keeps the last maxEvents events.
type eventLog struct {
	clock Clock
	buf   []Event
	seq   uint64
}

func (e *eventLog) add(kind EventKind, worker, detail string) {
	e.seq++
	ev := Event{Seq: e.seq, Time: e.clock.Now(), Kind: kind, Worker: worker, Detail: detail}
	if len(e.buf) == maxEvents {
		copy(e.buf, e.buf[1:])
		e.buf = e.buf[:maxEvents-1]
	}
	e.buf = append(e.buf, ev)
}

// after returns a copy of the kept events with Seq > seq.
func (e *eventLog) after(seq uint64) []Event {
	var out []Event
	for _, ev := range e.buf {
		if ev.Seq > seq {
			out = append(out, ev)
		}
	}
	return out
}

// EventsAfter returns the kept events with Seq > after.
func (s *Scheduler) EventsAfter(after uint64) []Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.events.after(after)
}

// Progress is what the scheduler knows of the job, copied under its lock:
// Job.Status turns it into a Status.
type Progress struct {
	Tasks, DeepestSplit, Committed int // leaf tasks, the deepest split, those committed
	Restored                       int // committed by an earlier run
	Queued, Leased                 int // waiting, and on a worker now
	PeakWorkers                    int // most sessions attached at once
	PeakLive                       int // most tasks held at once (Tree.PeakLive)
	Solutions, Unique, Nodes       uint64
	Stats                          Stats
	Busy                           time.Duration // time with a worker attached
	WorkDone, WorkTotal            float64       // estimated nodes: done so far, in the plan
	Workers                        []WorkerStatus
	Done                           bool  // every task committed (and verified), or the job failed
	Err                            error // the job failed
}

// Status returns a snapshot of the job.
func (s *Scheduler) Status() Progress {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := Progress{
		Tasks: s.leavesLocked(), DeepestSplit: s.sp.deepest, Committed: s.committed,
		Restored: s.restored, PeakWorkers: s.peak, PeakLive: s.store.peak,
		Solutions: s.solutions, Unique: s.unique, Nodes: s.nodes, Stats: s.stats,
		Busy: s.busy.at(s.opt.Clock.Now()), Done: s.finishedLocked(), Err: s.err,
	}
	for _, sess := range s.sessions {
		for _, l := range sess.held {
			if !l.verify { // a verification's task is committed already
				p.Leased += l.run
			}
		}
		if sess.live() {
			p.Workers = append(p.Workers, sess.statusLocked())
		}
	}
	p.Queued = p.Tasks - p.Committed - p.Leased
	p.WorkDone, p.WorkTotal = s.work.totals()
	return p
}

// finishedLocked reports whether done is closed.
func (s *Scheduler) finishedLocked() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

func (sess *Session) statusLocked() WorkerStatus {
	return WorkerStatus{
		ID: sess.id, Name: sess.name, Addr: sess.addr, Version: sess.version,
		Slots: sess.slots, Leases: len(sess.held), Tasks: sess.tasks, Nodes: sess.nodes,
		Joined: sess.joined, LastSeen: time.Unix(0, sess.lastSeen.Load()),
	}
}

// WorkerStatus is one attached worker session.
type WorkerStatus struct {
	ID, Name string
	Addr     string // the peer address of its Work stream
	Version  string // the build it said it runs (Join), "" if it did not say
	Slots    int
	Leases   int    // live leases now
	Tasks    uint64 // tasks it committed
	Nodes    uint64 // nodes of the tasks it committed
	Joined   time.Time
	LastSeen time.Time // its last message (a heartbeat, a batch or a result)
}

// EventKind names what happened in an Event.
type EventKind string

// The kinds of Event.
const (
	EventJoin       EventKind = "join"       // a worker attached
	EventLeave      EventKind = "leave"      // a worker's session ended
	EventExpire     EventKind = "expire"     // a lease ran out without a heartbeat
	EventQuarantine EventKind = "quarantine" // a worker was caught lying
	EventConflict   EventKind = "conflict"   // a result disagreed with a committed one
	EventDone       EventKind = "done"       // every task committed
	EventFailed     EventKind = "failed"     // the job failed
)

// Event is one thing an operator wants to see in a job's recent history.
// Seq grows by one per event, so a reader asks Job.Events(after) for what
// it has not seen.
type Event struct {
	Seq    uint64
	Time   time.Time
	Kind   EventKind
	Worker string // the worker's name, "" if none
	Detail string
}

// maxEvents is how many recent events a job keeps: enough for a dashboard's
// history, bounded whatever a flapping cluster does.
const maxEvents = 256

// Tree is the shape of the job's task tree over the run: the tasks made
// (the plan's and every split's children), the most that were live at
// once and those live now (store.go), and the splits collapsed.
type Tree struct {
	Made, PeakLive, Live, Collapsed int
}

// Tree returns the task tree's shape.
func (s *Scheduler) Tree() Tree {
	s.mu.Lock()
	defer s.mu.Unlock()
	return Tree{Made: s.store.len(), PeakLive: s.store.peak, Live: s.store.live, Collapsed: s.collapses}
}
