package status

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"time"
)

// How long a worker may stay silent (no heartbeat, batch or result)
// before the dashboard calls it late, then silent: heartbeats come every
// few seconds, so late is one missed, silent several.
const (
	LateAfter   = 5.0  // seconds
	SilentAfter = 20.0 // seconds
)

// DefaultPageWorkers is how many worker rows the dashboard gets with each
// status message: with a thousand workers, every row every second to
// every open page would be most of the coordinator's work for the page
// and more than a person reads. The page shows the summary by state
// (APIWorkerStates) and these rows, the silent and the slowest first.
const DefaultPageWorkers = 50

// APIWorkerStates counts the attached workers by state, over all of them
// whatever rows are sent.
type APIWorkerStates struct {
	Total   int `json:"total"`   // attached workers
	Working int `json:"working"` // heard from within LateAfter seconds
	Late    int `json:"late"`    // silent for LateAfter to SilentAfter seconds
	Silent  int `json:"silent"`  // silent for more than SilentAfter seconds
	Idle    int `json:"idle"`    // holding no lease (the end of a job, or starved)
	Shown   int `json:"shown"`   // rows in workers_attached
}

// workerStates counts ws by state.
func workerStates(ws []APIWorker) APIWorkerStates {
	st := APIWorkerStates{Total: len(ws), Shown: len(ws)}
	for _, w := range ws {
		switch {
		case w.SilentSeconds > SilentAfter:
			st.Silent++
		case w.SilentSeconds > LateAfter:
			st.Late++
		default:
			st.Working++
		}
		if w.Leases == 0 {
			st.Idle++
		}
	}
	return st
}

// silence ranks a worker's state: silent 0, late 1, working 2.
func silence(w APIWorker) int {
	switch {
	case w.SilentSeconds > SilentAfter:
		return 0
	case w.SilentSeconds > LateAfter:
		return 1
	}
	return 2
}

// TopWorkers keeps the k rows a person should look at first: the silent,
// then the late (the longest silent first), then the slowest by nodes per
// second; ties by name. k < 0 keeps every row (still in that order).
// WorkerStates still counts all of them; its Shown says how many rows
// are left.
func (a *APIStatus) TopWorkers(k int) {
	ws := a.WorkersAttached
	slices.SortStableFunc(ws, func(x, y APIWorker) int {
		if c := cmp.Compare(silence(x), silence(y)); c != 0 {
			return c
		}
		if silence(x) < 2 {
			if c := cmp.Compare(y.SilentSeconds, x.SilentSeconds); c != 0 {
				return c
			}
		}
		if c := cmp.Compare(x.NodesPerSec, y.NodesPerSec); c != 0 {
			return c
		}
		return cmp.Compare(x.Name, y.Name)
	})
	if k >= 0 && len(ws) > k {
		a.WorkersAttached = ws[:k:k]
	}
	a.WorkerStates.Shown = len(a.WorkersAttached)
}

// maxWorkerRows bounds ?workers=K: more rows than any coordinator holds
// sessions (coordinator.DefaultMaxWorkers is 16384) mean all of them.
const maxWorkerRows = 1 << 20

// workerRows reads ?workers=K of r: K rows (TopWorkers), "all" for every
// row, def when absent. Anything else is an error for a 400.
func workerRows(r interface{ FormValue(string) string }, def int) (int, error) {
	v := r.FormValue("workers")
	switch v {
	case "":
		return def, nil
	case "all":
		return -1, nil
	}
	k, err := strconv.Atoi(v)
	if err != nil || k < 0 || k > maxWorkerRows {
		return 0, fmt.Errorf("workers=%q: want a number of rows or all", v)
	}
	return k, nil
}

// APIWorkers is the "workers" message of /events, sent with each status
// message to a stream that asked for rows (?workers=K, K > 0, or all):
// the rows TopWorkers keeps, as changes to what the stream sent before.
// The first is Full (every kept row); after it, Rows holds only the rows
// that are new or whose worker did something (a heartbeat, a batch, a
// result, a lease) and Gone the ids of rows no longer kept (the worker
// left, or others took its place). A page keeps the rows by id, applies
// each message, and works out each row's silence and rate from Now, the
// server's clock (LastSeen and Nodes over Joined, as APIWorker's own
// fields are), so an idle worker's row is not sent again just because
// time passed. A page that reconnects gets a Full message again.
type APIWorkers struct {
	Full bool        `json:"full"`
	Now  time.Time   `json:"now"`
	Rows []APIWorker `json:"rows"`
	Gone []string    `json:"gone"` // ids (APIWorker.ID) of rows to drop
}

// rowKey names a row from one message to the next: its session's id, or
// its name for a Source that gives none.
func rowKey(w APIWorker) string {
	if w.ID != "" {
		return w.ID
	}
	return w.Name
}

// sameRow reports whether a and b say the same of a worker, leaving out
// NodesPerSec and SilentSeconds: they follow from the other fields and the
// clock, and change every second for every worker.
func sameRow(a, b APIWorker) bool {
	return a.Name == b.Name && a.ID == b.ID && a.Address == b.Address && a.Version == b.Version &&
		a.Slots == b.Slots && a.Leases == b.Leases && a.Tasks == b.Tasks && a.Nodes == b.Nodes &&
		a.Joined.Equal(b.Joined) && a.LastSeen.Equal(b.LastSeen)
}

// workerDiff is what one /events stream has sent of the worker rows, so
// that it sends only what changed (APIWorkers).
type workerDiff struct {
	sent map[string]APIWorker // by rowKey; nil before the first message
}

// next returns the message that brings a page holding d.sent to rows, and
// remembers rows as sent.
func (d *workerDiff) next(rows []APIWorker, now time.Time) APIWorkers {
	m := APIWorkers{Full: d.sent == nil, Now: now, Rows: []APIWorker{}, Gone: []string{}}
	kept := make(map[string]APIWorker, len(rows))
	for _, w := range rows {
		k := rowKey(w)
		kept[k] = w
		if old, ok := d.sent[k]; !ok || !sameRow(old, w) {
			m.Rows = append(m.Rows, w)
		}
	}
	for k := range d.sent {
		if _, ok := kept[k]; !ok {
			m.Gone = append(m.Gone, k)
		}
	}
	slices.Sort(m.Gone)
	d.sent = kept
	return m
}
