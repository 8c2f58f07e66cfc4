package coordinator

import "time"

// Status is a snapshot of a running job for the people watching it: the
// status server (/api/status, /metrics, the dashboard) and the progress
// display read it, never the scheduler's own state. Job.Status makes one
// under the scheduler's lock; everything in it is a copy.
type Status struct {
	// Summary holds the --json fields so far (Complete false until the end).
	Summary Summary

	Queued, Leased int // tasks waiting, and tasks on a worker now (Summary.Committed are done)
	Restored       int // tasks committed by an earlier run and read from the journal

	Workers []WorkerStatus // the sessions attached now, by join order

	Started time.Time     // when the job started
	Busy    time.Duration // time with at least one worker attached: rates and ETAs use it

	// WorkDone and WorkTotal estimate the search work in nodes: done so far
	// (restored tasks excluded) and in the whole plan. Tasks differ in size
	// by orders of magnitude, so progress and ETA go by work, not tasks.
	WorkDone, WorkTotal float64

	Listing ListingStatus // listing runs: the final write of the solutions

	// Recent holds the latest few solutions streamed (listing runs), as
	// 1-based columns of rows 1..N, newest last.
	Recent [][]int

	Done bool // every task committed (or the job failed: Summary.Error)
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

// ListingStatus is the progress of writing a listing's solutions once every
// task is in.
type ListingStatus struct {
	Writing        bool
	Written, Total uint64
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
