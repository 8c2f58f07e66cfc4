package status

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
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
