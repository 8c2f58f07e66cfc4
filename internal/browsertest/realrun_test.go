package browsertest_test

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/hashicorp/go-hclog"

	"github.com/nqueens/nqueens/coordinator"
	"github.com/nqueens/nqueens/status"
	"github.com/nqueens/nqueens/worker"
)

// realRunTimeout bounds the real N=15 run of TestDashboardRealRun: about
// 2 s on two cores, several times that under the race detector.
const realRunTimeout = 45 * time.Second

// N=15 from DESIGN.md §5, the oracle of the real run.
const (
	n15Total  = 2279184
	n15Unique = 285053
)

// pageWatch records, inside the page, what the dashboard showed between
// two looks of the test: every #pct text in order, the most worker rows
// at once and their names. A MutationObserver sees each render, so a
// state that lasted less than a poll is not missed.
const pageWatch = `(() => {
  window.seen = {pct: [], rows: 0, names: {}};
  const look = () => {
    const p = document.getElementById("pct").textContent;
    if (window.seen.pct[window.seen.pct.length - 1] !== p) window.seen.pct.push(p);
    const rows = document.querySelectorAll("#workers tr.worker");
    window.seen.rows = Math.max(window.seen.rows, rows.length);
    for (const r of rows) window.seen.names[r.querySelector(".wname").textContent] = r.querySelector(".wsub").textContent;
  };
  new MutationObserver(look).observe(document.body, {subtree: true, childList: true, characterData: true});
  look();
  return true;
})()`

// seenOnPage is what pageWatch recorded.
type seenOnPage struct {
	Pct   []string          `json:"pct"`
	Rows  int               `json:"rows"`
	Names map[string]string `json:"names"` // worker name -> its address line
}

// TestDashboardRealRun, in a browser on a real cluster: a
// coordinator.Job of N=15 with no embedded workers, two worker.Run
// sessions joining it over loopback gRPC, and the dashboard in headless
// Chromium. The page shows both workers' rows, progress that advances,
// and at the end the known total.
func TestDashboardRealRun(t *testing.T) {
	ctx := browser(t)
	cfg := coordinator.NewConfig(15)
	cfg.Workers, cfg.Listen, cfg.Depth = 0, "127.0.0.1:0", 5 // 22216 tasks: seconds to watch
	job, err := coordinator.New(cfg, hclog.NewNullLogger())
	if err != nil {
		t.Fatal(err)
	}
	base := serve(t, status.NewHandler(job, status.Options{Interval: 100 * time.Millisecond}))
	runCtx, cancelRun := context.WithTimeout(context.Background(), realRunTimeout)
	type result struct {
		sum coordinator.Summary
		err error
	}
	ran := make(chan result, 1)
	var running sync.WaitGroup // the job and its two workers
	defer func() { cancelRun(); running.Wait() }()
	running.Go(func() { s, err := job.Run(runCtx); ran <- result{s, err} })

	// The page first, then the workers: it sees the run from 0%.
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS("#pct"))); err != nil {
		t.Fatal(err)
	}
	if ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](pageWatch)); !ok || err != nil {
		t.Fatalf("installing the page watch: %v", err)
	}
	for _, name := range []string{"alpha", "beta"} {
		running.Go(func() {
			err := worker.Run(runCtx, worker.Config{Join: job.Addr(), Slots: 1, Name: name}, hclog.NewNullLogger())
			if err != nil {
				t.Errorf("worker %s: %v", name, err)
			}
		})
	}

	// The watch counts rows as they render, so even a run that ends
	// between two polls cannot hide them; checkSeen says what was missing.
	if err := waitFor(ctx, `window.seen.rows >= 2 || document.getElementById("final-count").textContent !== ""`); err != nil {
		t.Fatalf("the page showed neither 2 worker rows nor an end: %v", err)
	}
	screenshot(t, ctx, "dashboard-real-running.png")
	if err := waitFor(ctx, `document.getElementById("final-count").textContent === "`+strconv.Itoa(n15Total)+`"`); err != nil {
		t.Fatalf("the page did not show the final count %d: %v (shows %q)", n15Total, err, pageText(ctx, "final-count"))
	}
	r := <-ran
	if r.err != nil || r.sum.Solutions != n15Total || r.sum.Unique != n15Unique || !r.sum.Complete {
		t.Errorf("Run = %+v, %v; want %d solutions, %d fundamental, complete", r.sum, r.err, n15Total, n15Unique)
	}
	shot := screenshot(t, ctx, "dashboard-real-done.png")
	if n := colours(t, shot); n < 200 {
		t.Errorf("the screenshot has %d distinct colours, want at least 200 (a blank page?)", n)
	}
	events, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("events").innerText`))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"alpha: 127.0.0.1:", "beta: 127.0.0.1:", ", 1 slot\n", "done"} {
		if !strings.Contains(strings.ToLower(events+"\n"), want) {
			t.Errorf("the recent events do not show %q:\n%s", want, events)
		}
	}
	seen, err := chromedp.Run(ctx, chromedp.Evaluate[seenOnPage](`window.seen`))
	if err != nil {
		t.Fatal(err)
	}
	checkSeen(t, seen)
}

// checkSeen checks what the page showed during the run: two rows, each a
// worker's name over its loopback address, and progress that rose through
// at least one value strictly between 0% and 100%, never falling: the
// server holds its highest fraction when the estimate of the total grows
// (50.1% fell to 43.6% here).
func checkSeen(t *testing.T, seen seenOnPage) {
	t.Helper()
	if seen.Rows != 2 || len(seen.Names) != 2 {
		t.Errorf("the page showed at most %d worker rows, names %v; want 2, alpha and beta", seen.Rows, seen.Names)
	}
	for _, name := range []string{"alpha", "beta"} {
		if addr := seen.Names[name]; !strings.HasPrefix(addr, "127.0.0.1:") {
			t.Errorf("worker %s's row says %q under its name, want its address 127.0.0.1:PORT", name, addr)
		}
	}
	var pcts []float64
	for _, p := range seen.Pct {
		v, err := strconv.ParseFloat(strings.TrimSuffix(p, "%"), 64)
		if err != nil || !strings.HasSuffix(p, "%") {
			t.Fatalf("#pct showed %q, not a percentage (all: %q)", p, seen.Pct)
		}
		pcts = append(pcts, v)
	}
	between := 0
	for i, v := range pcts {
		if i > 0 && v < pcts[i-1] {
			t.Errorf("progress went back from %v%% to %v%% (all: %q)", pcts[i-1], v, seen.Pct)
		}
		if v > 0 && v < 100 {
			between++
		}
	}
	if between == 0 || pcts[len(pcts)-1] != 100 {
		t.Errorf("#pct showed %q: want it to pass through values between 0%% and 100%% and end at 100%%", seen.Pct)
	}
	t.Logf("#pct showed %d values: %q", len(seen.Pct), seen.Pct)
}
