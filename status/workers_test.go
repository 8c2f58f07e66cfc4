package status

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
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

	resp, err := http.Get(base + "/events")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 4<<20)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok || !strings.Contains(data, `"worker_states"`) {
			continue
		}
		var ev APIStatus
		if err := json.Unmarshal([]byte(data), &ev); err != nil {
			t.Fatal(err)
		}
		if n := rowNames(ev.WorkersAttached); len(n) != DefaultPageWorkers || n[0] != "w0902" || ev.WorkerStates.Total != 1000 {
			t.Errorf("/events status: %d rows from %v, %d workers; want %d from w0902 of 1000", len(n), n[:min(len(n), 3)], ev.WorkerStates.Total, DefaultPageWorkers)
		}
		break
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
