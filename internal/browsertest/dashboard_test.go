package browsertest_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/nqueens/nqueens/coordinator"
	"github.com/nqueens/nqueens/internal/browsertest"
	"github.com/nqueens/nqueens/status"
)

// browser starts headless Chromium (browsertest.New) for the test, in a
// window wide enough for the dashboard's two-column layout, or skips when
// there is none.
func browser(t *testing.T) context.Context {
	t.Helper()
	return browsertest.New(t, chromedp.WindowSize(1280, 900))
}

// colours counts the distinct colours of a PNG (browsertest.Colours): a
// blank or broken page has a handful, the dashboard hundreds (gradients,
// text, badges).
func colours(t *testing.T, b []byte) int {
	t.Helper()
	n, err := browsertest.Colours(b)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// pageText is the text of the element with id, as the page shows it.
func pageText(ctx context.Context, id string) string {
	s, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById(`+strconv.Quote(id)+`).textContent`))
	return s
}

// waitFor polls a JavaScript predicate in the page until it is true.
func waitFor(ctx context.Context, pred string) error {
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](pred, chromedp.WithPollingInterval(50*time.Millisecond)))
	return err
}

// screenshot takes a PNG of the whole page once the bar's CSS transition
// (0.8 s) has ended.
func screenshot(t *testing.T, ctx context.Context, name string) []byte {
	t.Helper()
	time.Sleep(900 * time.Millisecond)
	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	browsertest.SaveArtifact(t, name, shot)
	return shot
}

// TestDashboardInBrowser opens the dashboard of a job that advances: it
// shows both workers, progress that grows, and at the end the final count.
func TestDashboardInBrowser(t *testing.T) {
	ctx := browser(t)
	job := newFakeJob(12)
	base := serve(t, status.NewHandler(job, status.Options{Interval: 200 * time.Millisecond}))
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS("#workers tr.worker"))); err != nil {
		t.Fatal(err)
	}
	rows, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#workers tr.worker").length`))
	if err != nil || rows != 2 {
		t.Errorf("the page shows %d worker rows (%v), want 2", rows, err)
	}
	advance := func(n int) {
		for range n {
			job.Advance()
		}
	}
	advance(3)
	if err := waitFor(ctx, `document.getElementById("pct").textContent === "25.0%"`); err != nil {
		t.Fatalf("progress did not reach 25.0%% (3 of 12 steps): %v (shows %q)", err, pageText(ctx, "pct"))
	}
	advance(4)
	if err := waitFor(ctx, `document.getElementById("pct").textContent === "58.3%"`); err != nil {
		t.Fatalf("progress did not advance to 58.3%% (7 of 12): %v (shows %q)", err, pageText(ctx, "pct"))
	}
	screenshot(t, ctx, "dashboard-running.png")
	advance(5)
	if err := waitFor(ctx, `document.getElementById("final-count").textContent === "`+strconv.Itoa(fakeTotal)+`"`); err != nil {
		t.Fatalf("the page did not show the final count %d: %v (shows %q)", fakeTotal, err, pageText(ctx, "final-count"))
	}
	shot := screenshot(t, ctx, "dashboard-done.png")
	if n := colours(t, shot); n < 200 {
		t.Errorf("the screenshot has %d distinct colours, want at least 200 (a blank page?)", n)
	}
	body, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.innerText`))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"2279184", "alpha", "beta", "EXPIRE", "DONE"} {
		if !strings.Contains(body, want) {
			t.Errorf("the finished page does not show %q:\n%s", want, body)
		}
	}
}

// listingJob is a finished N=8 listing with recent solutions.
type listingJob struct{ *fakeJob }

func (l listingJob) Status() coordinator.Status {
	s := l.fakeJob.Status()
	s.Summary.N, s.Summary.Kind, s.Summary.Solutions, s.Summary.Unique = 8, "all", 46, 6
	s.Recent = [][]int{{1, 5, 8, 6, 3, 7, 2, 4}, {1, 6, 8, 3, 7, 4, 2, 5}, {1, 7, 4, 6, 8, 2, 5, 3}, {2, 4, 6, 8, 3, 1, 7, 5}}
	return s
}

// TestDashboardBoards checks a listing's latest solutions are drawn: the
// images load from /board.svg and have a size.
func TestDashboardBoards(t *testing.T) {
	ctx := browser(t)
	job := newFakeJob(4)
	job.Advance()
	job.Advance()
	base := serve(t, status.NewHandler(listingJob{job}, status.Options{Interval: 200 * time.Millisecond}))
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS("#boards img"))); err != nil {
		t.Fatal(err)
	}
	if err := waitFor(ctx, `[...document.querySelectorAll("#boards img")].filter(i => i.complete && i.naturalWidth > 0).length == 4`); err != nil {
		t.Errorf("the 4 boards did not load: %v", err)
	}
	screenshot(t, ctx, "dashboard-listing.png")
}

// TestDashboardExactCounts feeds the page N=27's counts, above 2^53: the
// first render (from the page's template) shows 3/4 of them, the event
// stream then brings the totals, and the page shows every digit of both
// (a float64 would show 234907967154122530 and 29363495934315696).
func TestDashboardExactCounts(t *testing.T) {
	ctx := browser(t)
	job := bigJob{newFakeJob(2)}
	job.Advance()
	base := serve(t, status.NewHandler(job, status.Options{Interval: 100 * time.Millisecond}))
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS("#workers tr.worker"))); err != nil {
		t.Fatal(err)
	}
	job.Advance()
	if err := waitFor(ctx, `document.getElementById("final-count").textContent === "`+n27Total+`"`); err != nil {
		t.Fatalf("the page did not show the total %s: %v (shows %q)", n27Total, err, pageText(ctx, "final-count"))
	}
	for id, want := range map[string]string{"solutions": n27Total, "unique": n27Unique} {
		if got := pageText(ctx, id); got != want {
			t.Errorf("#%s shows %q, want %q", id, got, want)
		}
	}
	title, err := chromedp.Run(ctx, chromedp.Title())
	if err != nil || !strings.HasSuffix(title, n27Total) {
		t.Errorf("the title is %q (%v), want it to end with %s", title, err, n27Total)
	}
	text := pageText(ctx, "final-text")
	if !strings.Contains(text, n27Unique+" fundamental") {
		t.Errorf("#final-text is %q, want %s fundamental", text, n27Unique)
	}
}

// TestDashboardThousandWorkers: with a thousand workers the page says how
// many are in each state, shows 50 rows, the silent first, and stays live
// (the stream's next messages still arrive).
func TestDashboardThousandWorkers(t *testing.T) {
	ctx := browser(t)
	base := serve(t, newManyHandler())
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS("#workers tr.worker"))); err != nil {
		t.Fatal(err)
	}
	if err := waitFor(ctx, `document.getElementById("conn").textContent.startsWith("live")`); err != nil {
		t.Fatalf("the page never went live: %v (shows %q)", err, pageText(ctx, "conn"))
	}
	want := "992 working · 5 late · 3 silent · 100 idle · showing the 50 silent and slowest of 1000"
	if got := pageText(ctx, "wstates"); got != want {
		t.Errorf("#wstates shows %q, want %q", got, want)
	}
	if got := pageText(ctx, "nworkers"); got != "1000" {
		t.Errorf("#nworkers shows %q, want 1000", got)
	}
	rows, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#workers tr.worker").length`))
	if err != nil || rows != 50 {
		t.Errorf("%d worker rows (%v), want 50", rows, err)
	}
	first, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector("#workers tr.worker .wname").textContent`))
	if err != nil || first != "w0902" {
		t.Errorf("the first row is %q (%v), want w0902, the longest silent", first, err)
	}
	// Later status messages still arrive: "live · updated HH:MM:SS" moves on.
	before := pageText(ctx, "conn")
	if err := waitFor(ctx, `document.getElementById("conn").textContent !== `+strconv.Quote(before)); err != nil {
		t.Errorf("no status message after %q: %v", before, err)
	}
	screenshot(t, ctx, "dashboard-1000-workers.png")
}
