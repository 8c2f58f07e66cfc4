package status

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nqueens/nqueens/coordinator"
)

// manyWorkers is the size of the big fake cluster.
const manyWorkers = 1000

// manyJob is the fake job with a thousand attached workers: worker i has
// committed i+1 units of nodes since it joined 100 s ago (so w0000 is the
// slowest), every tenth holds no lease (idle), w0500..w0504 were last
// heard from 6..10 s ago (late) and w0900..w0902 21..23 s ago (silent).
type manyJob struct{ *fakeJob }

func (m manyJob) Status() coordinator.Status {
	s := m.fakeJob.Status()
	now := m.start.Add(100 * time.Second)
	s.Workers = make([]coordinator.WorkerStatus, manyWorkers)
	for i := range s.Workers {
		seen := now
		switch {
		case i >= 500 && i < 505:
			seen = now.Add(-time.Duration(6+i-500) * time.Second)
		case i >= 900 && i < 903:
			seen = now.Add(-time.Duration(21+i-900) * time.Second)
		}
		leases := 1
		if i%10 == 9 {
			leases = 0
		}
		s.Workers[i] = coordinator.WorkerStatus{ID: fmt.Sprintf("x%d", i), Name: fmt.Sprintf("w%04d", i), Addr: "10.0.0.1:40000",
			Version: "v1.2.3 (rev abc)", Slots: 2, Leases: leases, Tasks: uint64(i), Nodes: uint64(i+1) * 1e6,
			Joined: m.start, LastSeen: seen}
	}
	return s
}

// newManyHandler serves manyJob with the clock at its 100th second.
func newManyHandler() http.Handler {
	job := manyJob{newFakeJob(4)}
	return NewHandler(job, Options{Interval: 100 * time.Millisecond, Now: func() time.Time { return job.start.Add(100 * time.Second) }})
}

// wantStates is manyJob's count by state.
var wantStates = APIWorkerStates{Total: 1000, Working: 992, Late: 5, Silent: 3, Idle: 100}

// wantFirst are the first rows TopWorkers keeps of manyJob: the silent
// (longest first), the late (longest first), then the slowest.
var wantFirst = []string{"w0902", "w0901", "w0900", "w0504", "w0503", "w0502", "w0501", "w0500", "w0000", "w0001", "w0002"}

func rowNames(ws []APIWorker) []string {
	var out []string
	for _, w := range ws {
		out = append(out, w.Name)
	}
	return out
}

// TestWorkersAtScale: with a thousand workers, /api/status keeps every
// row, ?workers=50 and the dashboard's stream carry 50, the silent and the
// slowest first, and the count by state is over all thousand either way.
func TestWorkersAtScale(t *testing.T) {
	base := serve(t, newManyHandler())
	var full, top APIStatus
	_, fullBody := get(t, http.DefaultClient, base+"/api/status")
	_, topBody := get(t, http.DefaultClient, base+"/api/status?workers=50")
	if err := json.Unmarshal(fullBody, &full); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(topBody, &top); err != nil {
		t.Fatal(err)
	}
	want := wantStates
	want.Shown = 1000
	if len(full.WorkersAttached) != 1000 || full.WorkerStates != want {
		t.Errorf("/api/status: %d rows, states %+v; want 1000 rows and %+v", len(full.WorkersAttached), full.WorkerStates, want)
	}
	want.Shown = 50
	names := rowNames(top.WorkersAttached)
	if len(names) != 50 || top.WorkerStates != want || strings.Join(names[:len(wantFirst)], " ") != strings.Join(wantFirst, " ") {
		t.Errorf("/api/status?workers=50: %d rows starting %v, states %+v; want 50 starting %v and %+v", len(names), names[:min(len(names), 12)], top.WorkerStates, wantFirst, want)
	}
	if names[49] != "w0041" {
		t.Errorf("the 50th row is %s, want w0041 (the 42nd slowest after 8 silent or late)", names[49])
	}
	t.Logf("/api/status: %d bytes with every row, %d with 50", len(fullBody), len(topBody))
	if len(topBody)*10 > len(fullBody) {
		t.Errorf("50 rows take %d bytes, more than a tenth of the %d of 1000", len(topBody), len(fullBody))
	}

	st := openStream(t, base+"/events")
	var ws APIWorkers
	st.next(t, "workers", &ws)
	var ev APIStatus
	st.next(t, "status", &ev)
	if n := rowNames(ws.Rows); !ws.Full || len(n) != DefaultPageWorkers || n[0] != "w0902" {
		t.Errorf("/events workers: full %v, %d rows from %v; want a full message of %d from w0902", ws.Full, len(n), n[:min(len(n), 3)], DefaultPageWorkers)
	}
	if len(ev.WorkersAttached) != 0 || ev.WorkerStates != want {
		t.Errorf("/events status: %d rows, states %+v; want none (they go in workers messages) and %+v", len(ev.WorkersAttached), ev.WorkerStates, want)
	}
	for _, q := range []string{"workers=-1", "workers=lots"} {
		if r, _ := get(t, http.DefaultClient, base+"/api/status?"+q); r.StatusCode != http.StatusBadRequest {
			t.Errorf("/api/status?%s: %d, want 400", q, r.StatusCode)
		}
	}
}

// BenchmarkStatusMessage is the coordinator's work for one dashboard's
// status message with a thousand workers: every row (as before) and the
// top 50 the page gets now.
func BenchmarkStatusMessage(b *testing.B) {
	job := manyJob{newFakeJob(4)}
	now := job.start.Add(100 * time.Second)
	for _, rows := range []int{-1, DefaultPageWorkers} {
		b.Run(fmt.Sprintf("rows=%d", rows), func(b *testing.B) {
			st := job.Status()
			for b.Loop() {
				a := NewAPIStatus(st, now)
				a.TopWorkers(rows)
				if _, err := json.Marshal(a); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// stream reads the server-sent events of one /events response.
type stream struct {
	resp *http.Response
	sc   *bufio.Scanner
}

// openStream GETs url, a /events address, for the test's lifetime.
func openStream(t *testing.T, url string) *stream {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", url, resp.Status)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 4<<20)
	return &stream{resp, sc}
}

// message returns the next message's name and data.
func (s *stream) message(t *testing.T) (string, []byte) {
	t.Helper()
	name := ""
	for s.sc.Scan() {
		line := s.sc.Text()
		if v, ok := strings.CutPrefix(line, "event: "); ok {
			name = v
		} else if v, ok := strings.CutPrefix(line, "data: "); ok {
			return name, []byte(v)
		}
	}
	t.Fatalf("the stream ended: %v", s.sc.Err())
	return "", nil
}

// next decodes the next message called name into v, skipping others.
func (s *stream) next(t *testing.T, name string, v any) {
	t.Helper()
	for {
		got, data := s.message(t)
		if got != name {
			continue
		}
		if err := json.Unmarshal(data, v); err != nil {
			t.Fatalf("%s message %s: %v", name, data, err)
		}
		return
	}
}

// rowsJob is a fakeJob whose attached workers the test sets.
type rowsJob struct {
	*fakeJob
	mu      sync.Mutex
	workers []coordinator.WorkerStatus
}

func (j *rowsJob) Status() coordinator.Status {
	s := j.fakeJob.Status()
	j.mu.Lock()
	defer j.mu.Unlock()
	s.Workers = slices.Clone(j.workers)
	return s
}

// set changes the workers at once, so one message carries all the change.
func (j *rowsJob) set(f func(ws []coordinator.WorkerStatus) []coordinator.WorkerStatus) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.workers = f(j.workers)
}

// TestEventsWorkerDeltas reads the real /events stream of a job whose
// workers change: the first workers message holds every row; after it
// a worker that did nothing is not sent again, though the clock moves
// its silence and rate on; a worker that sent a result is, with its new
// figures; one that left is in gone; one that joined comes whole. A page
// that asks for no rows (?workers=0) gets no workers messages, and a new
// stream starts again from a full message.
func TestEventsWorkerDeltas(t *testing.T) {
	start := time.Now().Add(-time.Minute)
	w := func(id string, tasks uint64) coordinator.WorkerStatus {
		return coordinator.WorkerStatus{ID: id, Name: "name-" + id, Addr: "127.0.0.1:1", Slots: 1, Leases: 1,
			Tasks: tasks, Nodes: tasks * 1000, Joined: start, LastSeen: start.Add(30 * time.Second)}
	}
	job := &rowsJob{fakeJob: newFakeJob(4), workers: []coordinator.WorkerStatus{w("a", 1), w("b", 2), w("c", 3)}}
	base := serve(t, NewHandler(job, Options{Interval: 20 * time.Millisecond}))
	st := openStream(t, base+"/events")
	var m APIWorkers
	st.next(t, "workers", &m)
	if got := rowNames(m.Rows); !m.Full || strings.Join(got, " ") != "name-a name-b name-c" || len(m.Gone) != 0 {
		t.Fatalf("first workers message: full %v, rows %v, gone %v; want a full message of a, b, c", m.Full, got, m.Gone)
	}
	for i := range 3 { // 60 ms: every row's silence and rate have moved
		st.next(t, "workers", &m)
		if m.Full || len(m.Rows) != 0 || len(m.Gone) != 0 {
			t.Fatalf("workers message %d with nothing changed: full %v, rows %v, gone %v; want an empty delta", i+2, m.Full, rowNames(m.Rows), m.Gone)
		}
	}
	job.set(func(ws []coordinator.WorkerStatus) []coordinator.WorkerStatus {
		ws[1].Tasks, ws[1].Nodes, ws[1].LastSeen = 5, 5000, time.Now()
		return ws[:2] // c leaves
	})
	for m.Full || len(m.Rows)+len(m.Gone) == 0 { // a message may have been on its way
		st.next(t, "workers", &m)
	}
	if len(m.Rows) != 1 || m.Rows[0].ID != "b" || m.Rows[0].Tasks != 5 || !slices.Equal(m.Gone, []string{"c"}) {
		t.Errorf("after b sent a result and c left: rows %+v, gone %v; want only b with 5 tasks, gone [c]", m.Rows, m.Gone)
	}
	job.set(func(ws []coordinator.WorkerStatus) []coordinator.WorkerStatus { return append(ws, w("d", 0)) })
	for len(m.Rows) == 0 || m.Rows[0].ID == "b" {
		st.next(t, "workers", &m)
	}
	if got := rowNames(m.Rows); strings.Join(got, " ") != "name-d" || len(m.Gone) != 0 {
		t.Errorf("after d joined: rows %v, gone %v; want only d", got, m.Gone)
	}

	again := openStream(t, base+"/events?workers=all")
	again.next(t, "workers", &m)
	if got := rowNames(m.Rows); !m.Full || len(got) != 3 {
		t.Errorf("a new stream's first workers message: full %v, rows %v; want a full message of a, b, d", m.Full, got)
	}
	none := openStream(t, base+"/events?workers=0")
	for statuses := 0; statuses < 3; {
		name, data := none.message(t)
		switch name {
		case "workers":
			t.Fatalf("?workers=0 got a workers message: %s", data)
		case "status":
			statuses++
		}
	}
}

// TestEventsAfter: ?after=SEQ leaves out the events a reconnecting page
// has; a bad one is a 400.
func TestEventsAfter(t *testing.T) {
	base := serve(t, NewHandler(newFakeJob(4), Options{Interval: 20 * time.Millisecond}))
	st := openStream(t, base+"/events?workers=0&after=1")
	var e APIEvent
	st.next(t, "event", &e)
	if e.Seq != 2 {
		t.Errorf("the first event after 1 has seq %d, want 2", e.Seq)
	}
	if r, _ := get(t, http.DefaultClient, base+"/events?after=x"); r.StatusCode != http.StatusBadRequest {
		t.Errorf("/events?after=x: %d, want 400", r.StatusCode)
	}
}
