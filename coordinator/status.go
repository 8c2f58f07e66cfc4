package coordinator

import (
	"time"

	"github.com/nqueens/nqueens/coordinator/internal/sched"
)

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

// ListingStatus is the progress of writing a listing's solutions once every
// task is in.
type ListingStatus struct {
	Writing        bool
	Written, Total uint64
}

// WorkerStatus is one attached worker session.
type WorkerStatus = sched.WorkerStatus

// EventKind names what happened in an Event.
type EventKind = sched.EventKind

// The kinds of Event.
const (
	EventJoin       = sched.EventJoin
	EventLeave      = sched.EventLeave
	EventExpire     = sched.EventExpire
	EventQuarantine = sched.EventQuarantine
	EventConflict   = sched.EventConflict
	EventDone       = sched.EventDone
	EventFailed     = sched.EventFailed
)

// Event is one thing an operator wants to see in a job's recent history.
type Event = sched.Event
