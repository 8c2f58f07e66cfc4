package status

import (
	"bytes"
	"context"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/nqueens/nqueens/coordinator"
)

// browserTimeout bounds a whole browser test: start Chromium, load the
// page, watch the fake job run to the end.
const browserTimeout = 60 * time.Second

// browser starts headless Chromium (Debian's chromium package) for the
// test, or skips when there is none.
func browser(t *testing.T) context.Context {
	t.Helper()
	var path string
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			path = p
			break
		}
	}
	if path == "" {
		t.Skip("no Chromium binary (apt-get install chromium): the dashboard was not tested in a browser")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.WindowSize(1280, 900))
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox)
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelB := chromedp.NewContext(actx)
	ctx, cancelT := context.WithTimeout(ctx, browserTimeout)
	t.Cleanup(func() { cancelT(); cancelB(); cancelA() })
	return ctx
}

// artifact saves b under $NQUEENS_ARTIFACTS (when set) or the test's
// temporary directory, and returns the path.
func artifact(t *testing.T, name string, b []byte) string {
	t.Helper()
	dir := os.Getenv("NQUEENS_ARTIFACTS")
	if dir == "" {
		dir = t.TempDir()
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("saved %s", p)
	return p
}

// colours counts the distinct colours of a PNG: a blank or broken page has
// a handful, the dashboard hundreds (gradients, text, badges).
func colours(t *testing.T, b []byte) int {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[[4]uint32]bool{}
	bounds := img.Bounds()
	for y := bounds.Min.Y; y < bounds.Max.Y; y += 2 {
		for x := bounds.Min.X; x < bounds.Max.X; x += 2 {
			r, g, bb, a := img.At(x, y).RGBA()
			seen[[4]uint32{r >> 8, g >> 8, bb >> 8, a >> 8}] = true
		}
	}
	return len(seen)
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
	artifact(t, name, shot)
	return shot
}

// TestDashboardInBrowser opens the dashboard of a job that advances: it
// shows both workers, progress that grows, and at the end the final count.
func TestDashboardInBrowser(t *testing.T) {
	ctx := browser(t)
	job := newFakeJob(12)
	base := serve(t, NewHandler(job, Options{Interval: 200 * time.Millisecond}))
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
	base := serve(t, NewHandler(listingJob{job}, Options{Interval: 200 * time.Millisecond}))
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS("#boards img"))); err != nil {
		t.Fatal(err)
	}
	if err := waitFor(ctx, `[...document.querySelectorAll("#boards img")].filter(i => i.complete && i.naturalWidth > 0).length == 4`); err != nil {
		t.Errorf("the 4 boards did not load: %v", err)
	}
	screenshot(t, ctx, "dashboard-listing.png")
}
