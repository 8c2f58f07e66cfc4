package status

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// events streams server-sent events until the client goes or the server
// stops: "status" (an APIStatus whose workers_attached is empty: the
// rows go apart) at once and every Interval; with it, to a stream that
// asked for rows, "workers" (an APIWorkers: the ?workers=K rows that
// TopWorkers keeps, DefaultPageWorkers when absent, all with "all", none
// with 0), the first in full and then only the rows that changed and the
// ids of those gone; and "event" (an APIEvent) for each new event as it
// happens (polled every eventPoll), after ?after=SEQ when given (a page
// that reconnects has the earlier ones). The page asks for rows only
// while it shows the list. Streams beyond MaxStreams get 503; EventSource
// retries by itself.
func (h *handler) events(w http.ResponseWriter, r *http.Request) {
	rows, err := workerRows(r, DefaultPageWorkers)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var last uint64
	if v := r.FormValue("after"); v != "" {
		if last, err = strconv.ParseUint(v, 10, 64); err != nil {
			http.Error(w, fmt.Sprintf("after=%q: want an event's seq", v), http.StatusBadRequest)
			return
		}
	}
	select {
	case h.streams <- struct{}{}:
		defer func() { <-h.streams }()
	default:
		w.Header().Set("Retry-After", "5")
		http.Error(w, "too many open dashboards", http.StatusServiceUnavailable)
		return
	}
	rc := http.NewResponseController(w)
	rc.SetWriteDeadline(time.Time{}) // a stream outlives the server's WriteTimeout
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	fmt.Fprintf(w, "retry: 2000\n\n")
	var diff workerDiff
	// A page that opens late still shows the recent history.
	send := func() error {
		evs := h.src.Events(last)
		for _, e := range apiEvents(evs) {
			if err := sse(w, "event", e); err != nil {
				return err
			}
			last = e.Seq
		}
		return rc.Flush()
	}
	status := func() error {
		a := h.snapshot()
		a.TopWorkers(rows)
		if rows != 0 {
			if err := sse(w, "workers", diff.next(a.WorkersAttached, h.opts.Now())); err != nil {
				return err
			}
		}
		a.WorkersAttached = []APIWorker{}
		if err := sse(w, "status", a); err != nil {
			return err
		}
		return rc.Flush()
	}
	if status() != nil || send() != nil {
		return
	}
	tick, poll := time.NewTicker(h.opts.Interval), time.NewTicker(min(eventPoll, h.opts.Interval))
	defer tick.Stop()
	defer poll.Stop()
	for {
		var err error
		select {
		case <-r.Context().Done():
			return
		case <-poll.C:
			err = send()
		case <-tick.C:
			err = status()
		}
		if err != nil {
			return
		}
	}
}

// sse writes one server-sent event whose data is v in JSON (one line: JSON
// escapes newlines inside strings).
func sse(w http.ResponseWriter, name string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
	return err
}
