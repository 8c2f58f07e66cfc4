package browsertest_test

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/nqueens/nqueens/coordinator"
	"github.com/nqueens/nqueens/status"
)

// rowsJob is a fakeJob whose attached workers the test sets (as
// status/workers_test.go's).
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

// set changes the workers at once.
func (j *rowsJob) set(f func(ws []coordinator.WorkerStatus) []coordinator.WorkerStatus) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.workers = f(j.workers)
}

// tableRow is a worker row as the page shows it.
type tableRow struct {
	Name  string `json:"name"`
	Tasks string `json:"tasks"`
}

// readTable is the page's worker table, top to bottom.
const readTable = `[...document.querySelectorAll("#workers tr.worker")].map(r => ({name: r.querySelector(".wname").textContent, tasks: r.children[3].textContent}))`

// streamCounts is window.nqueensStream: what the page's stream brought.
type streamCounts struct {
	Messages int `json:"messages"`
	Full     int `json:"full"`
	Rows     int `json:"rows"`
	Gone     int `json:"gone"`
}

// TestDashboardWorkerDeltas: the page builds its worker table from the
// stream's deltas. After the full first message, nothing is resent for
// workers that did nothing; when one sends a result, one leaves and one
// joins, the page gets those three changes alone and its table is right
// (the new figures, the row gone, the new row, the rest in order). Hiding
// the list stops the rows; showing it again starts from a full message.
func TestDashboardWorkerDeltas(t *testing.T) {
	ctx := browser(t)
	now := time.Now()
	w := func(name string, nodes uint64) coordinator.WorkerStatus {
		return coordinator.WorkerStatus{ID: "id-" + name, Name: name, Addr: "127.0.0.1:1", Slots: 1, Leases: 1,
			Tasks: nodes / 1000, Nodes: nodes, Joined: now.Add(-time.Minute), LastSeen: now}
	}
	job := &rowsJob{fakeJob: newFakeJob(4), workers: []coordinator.WorkerStatus{w("a", 1000), w("b", 2000), w("c", 3000), w("d", 4000), w("e", 5000)}}
	base := serve(t, status.NewHandler(job, status.Options{Interval: 100 * time.Millisecond}))
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS("#workers tr.worker"))); err != nil {
		t.Fatal(err)
	}
	if err := waitFor(ctx, `window.nqueensStream.messages >= 5`); err != nil {
		t.Fatalf("the page got no workers messages: %v", err)
	}
	counts := func() streamCounts {
		c, err := chromedp.Run(ctx, chromedp.Evaluate[streamCounts](`window.nqueensStream`))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	if c := counts(); c.Full != 1 || c.Rows != 5 || c.Gone != 0 {
		t.Errorf("after %d messages with nothing changed the page got %+v; want 1 full message of 5 rows and nothing since", c.Messages, c)
	}
	job.set(func(ws []coordinator.WorkerStatus) []coordinator.WorkerStatus {
		ws[1].Tasks, ws[1].Nodes, ws[1].LastSeen = 77, 9000, time.Now() // b sent a result: now the fastest
		ws = slices.Delete(ws, 2, 3)                                    // c left
		return append(ws, w("f", 500))                                  // f joined, the slowest
	})
	want := []tableRow{{"f", "0"}, {"a", "1"}, {"d", "4"}, {"e", "5"}, {"b", "77"}}
	wantJS := `JSON.stringify(` + readTable + `) === ` + strconv.Quote(mustJSON(t, want))
	if err := waitFor(ctx, wantJS); err != nil {
		got, _ := chromedp.Run(ctx, chromedp.Evaluate[[]tableRow](readTable))
		t.Fatalf("the table after the deltas is %v, want %v (%v)", got, want, err)
	}
	if c := counts(); c.Full != 1 || c.Rows != 7 || c.Gone != 1 {
		t.Errorf("the page got %+v; want the full message of 5 rows, then b and f (7 rows) and c gone", c)
	}
	screenshot(t, ctx, "dashboard-deltas.png")

	if err := chromedp.Do(ctx, chromedp.Click("#wtoggle")); err != nil {
		t.Fatal(err)
	}
	if err := waitFor(ctx, `document.getElementById("wstates").textContent.endsWith("list hidden")`); err != nil {
		t.Errorf("the summary does not say the list is hidden: %v (%q)", err, pageText(ctx, "wstates"))
	}
	before := counts()
	job.set(func(ws []coordinator.WorkerStatus) []coordinator.WorkerStatus { ws[0].Tasks = 2; return ws })
	conn := pageText(ctx, "conn")
	if err := waitFor(ctx, `document.getElementById("conn").textContent !== `+strconv.Quote(conn)); err != nil {
		t.Fatalf("no status message with the list hidden: %v", err)
	}
	time.Sleep(300 * time.Millisecond) // three more status messages
	if c := counts(); c != before {
		t.Errorf("with the list hidden the page still got worker rows: %+v, then %+v", before, c)
	}
	if err := chromedp.Do(ctx, chromedp.Click("#wtoggle")); err != nil {
		t.Fatal(err)
	}
	want[1].Tasks = "2"
	if err := waitFor(ctx, `window.nqueensStream.full === 2 && JSON.stringify(`+readTable+`) === `+strconv.Quote(mustJSON(t, want))); err != nil {
		got, _ := chromedp.Run(ctx, chromedp.Evaluate[[]tableRow](readTable))
		t.Errorf("shown again, the table is %v after %+v; want %v from a second full message", got, counts(), want)
	}
	if n := strings.Count(pageText(ctx, "workers"), "waiting"); n != 0 {
		t.Errorf("the table still says it is waiting for workers")
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
