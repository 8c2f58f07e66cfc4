package status

import (
	"strconv"
	"time"

	"github.com/nqueens/nqueens/coordinator"
)

// APIStatus is the JSON of /api/status and of each status message on
// /events: every field of the --json summary at the top level, under the
// same names (coordinator.Summary embedded), then what only a running job
// has. Summary already uses "workers" (most workers attached at once) and
// "leased" (leases handed out), so the rows of attached workers are
// "workers_attached" and the task states are "tasks_queued" and
// "tasks_leased".
type APIStatus struct {
	coordinator.Summary

	TasksQueued   int `json:"tasks_queued"`   // tasks waiting
	TasksLeased   int `json:"tasks_leased"`   // tasks on a worker now
	TasksRestored int `json:"tasks_restored"` // tasks read from the journal (--resume)

	// WorkersAttached has a row per attached worker (/api/status), or the
	// rows TopWorkers kept (the dashboard's stream, /api/status?workers=K);
	// WorkerStates counts them all by state either way.
	WorkersAttached []APIWorker     `json:"workers_attached"`
	WorkerStates    APIWorkerStates `json:"worker_states"`
	Slots           int             `json:"slots"` // of the attached workers

	Started   time.Time `json:"started"`
	WorkDone  float64   `json:"work_done"`  // estimated nodes done by this run
	WorkTotal float64   `json:"work_total"` // estimated nodes of this run
	Fraction  float64   `json:"fraction"`   // work done / work total, restored work included, 0..1; never falls on one server
	// EstimateGrew: the estimate of the total grew, so fraction holds its
	// highest value rather than fall (the work was not lost).
	EstimateGrew bool     `json:"estimate_grew,omitempty"`
	NodesPerSec  float64  `json:"nodes_per_second"`
	SolsPerSec   float64  `json:"solutions_per_second"`
	ETASeconds   *float64 `json:"eta_seconds"` // null while unknown or when done

	// Exact repeats the counts as decimal strings: JavaScript reads a JSON
	// number as a float64, which rounds above 2^53 (N=27's total
	// 234907967154122528 would read as ...530). The numbers stay above for
	// readers that parse 64-bit integers.
	Exact APIExact `json:"exact"`

	Listing APIListing `json:"listing"`
	Recent  [][]int    `json:"recent"` // latest solutions of a listing, 1-based columns, newest last
	Done    bool       `json:"done"`
}

// APIWorker is one attached worker session.
type APIWorker struct {
	Name        string    `json:"name"`
	ID          string    `json:"id"`
	Address     string    `json:"address"`
	Version     string    `json:"version"`
	Slots       int       `json:"slots"`
	Leases      int       `json:"leases"`
	Tasks       uint64    `json:"tasks"`
	Nodes       uint64    `json:"nodes"`
	NodesPerSec float64   `json:"nodes_per_second"` // committed nodes since it joined
	Joined      time.Time `json:"joined"`
	LastSeen    time.Time `json:"last_seen"` // its last heartbeat, batch or result
	// SilentSeconds is how long ago LastSeen was, on the server's clock
	// (so a browser's skewed clock does not matter).
	SilentSeconds float64 `json:"silent_seconds"`
}

// APIExact holds the summary's counts as base-10 strings, exact in any
// JSON reader.
type APIExact struct {
	Solutions string `json:"solutions"`
	Unique    string `json:"unique"`
	Nodes     string `json:"nodes"`
	// Completions is set on pinned runs only, as Summary.Completions.
	Completions string `json:"completions,omitempty"`
}

// exactOf writes sum's counts in decimal.
func exactOf(sum coordinator.Summary) APIExact {
	x := APIExact{
		Solutions: strconv.FormatUint(sum.Solutions, 10),
		Unique:    strconv.FormatUint(sum.Unique, 10),
		Nodes:     strconv.FormatUint(sum.Nodes, 10),
	}
	if sum.Completions != nil {
		x.Completions = strconv.FormatUint(*sum.Completions, 10)
	}
	return x
}

// APIListing is the final write of a listing's solutions.
type APIListing struct {
	Writing bool   `json:"writing"`
	Written uint64 `json:"written"`
	Total   uint64 `json:"total"`
}

// NewAPIStatus turns a snapshot into its JSON form; now dates the rates
// and silences of the workers.
func NewAPIStatus(s coordinator.Status, now time.Time) APIStatus {
	e := EstimateOf(s)
	a := APIStatus{
		Summary:     s.Summary,
		TasksQueued: s.Queued, TasksLeased: s.Leased, TasksRestored: s.Restored,
		WorkersAttached: make([]APIWorker, 0, len(s.Workers)),
		Slots:           Slots(s),
		Started:         s.Started,
		WorkDone:        s.WorkDone, WorkTotal: s.WorkTotal, Fraction: e.Fraction,
		NodesPerSec: e.NodesPerSec, SolsPerSec: e.SolsPerSec,
		Exact:   exactOf(s.Summary),
		Listing: APIListing{Writing: s.Listing.Writing, Written: s.Listing.Written, Total: s.Listing.Total},
		Recent:  s.Recent,
		Done:    s.Done,
	}
	if a.BusySeconds == 0 { // a Source that fills Busy only; a finished job's summary holds the final figure
		a.BusySeconds = e.BusySeconds
	}
	if a.Recent == nil {
		a.Recent = [][]int{}
	}
	if e.HasETA {
		v := e.ETA.Seconds()
		a.ETASeconds = &v
	}
	for _, w := range s.Workers {
		a.WorkersAttached = append(a.WorkersAttached, APIWorker{
			Name: w.Name, ID: w.ID, Address: w.Addr, Version: w.Version, Slots: w.Slots, Leases: w.Leases,
			Tasks: w.Tasks, Nodes: w.Nodes, NodesPerSec: workerRate(w, now),
			Joined: w.Joined, LastSeen: w.LastSeen, SilentSeconds: max(now.Sub(w.LastSeen).Seconds(), 0),
		})
	}
	a.WorkerStates = workerStates(a.WorkersAttached)
	return a
}

// APIEvent is one event in JSON.
type APIEvent struct {
	Seq    uint64    `json:"seq"`
	Time   time.Time `json:"time"`
	Kind   string    `json:"kind"`
	Worker string    `json:"worker,omitempty"`
	Detail string    `json:"detail,omitempty"`
}

func apiEvents(evs []coordinator.Event) []APIEvent {
	out := make([]APIEvent, 0, len(evs))
	for _, e := range evs {
		out = append(out, APIEvent{Seq: e.Seq, Time: e.Time, Kind: string(e.Kind), Worker: e.Worker, Detail: e.Detail})
	}
	return out
}
