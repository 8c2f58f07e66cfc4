package browsertest_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/nqueens/nqueens/internal/browsertest"
	"github.com/nqueens/nqueens/trace"
)

// pageState is what the page shows: the step on the board, every square's
// classes (row by row) and the caption's second line.
const pageState = `[document.getElementById("board").dataset.step,
  [...document.querySelectorAll("#board .sq")].map(e => e.className).join(","),
  document.getElementById("detail").textContent,
  document.getElementById("play").textContent].join("|")`

// pageStep is how long the trace page shows a step while playing
// (package trace's stepDelay, in centiseconds, times ten).
const pageStep = 350 * time.Millisecond

type shown struct {
	step           int
	squares        []string
	detail, button string
}

func TestHTMLStepButtonAdvancesTheBoard(t *testing.T) {
	tr, err := trace.Record(4, trace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "t.html")
	if err := trace.Write(path, tr); err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, ref := range []string{"src=", "<link", "@import", "https:"} {
		if bytes.Contains(page, []byte(ref)) {
			t.Errorf("the page has %q: it must be self-contained", ref)
		}
	}
	var details []string
	tr.Frames(func(f trace.Frame) bool { details = append(details, f.Detail()); return true })

	ctx := browsertest.New(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(browsertest.FileURL(t, path))); err != nil {
		t.Fatal(err)
	}
	read := func() shown {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Evaluate[string](pageState))
		if err != nil {
			t.Fatal(err)
		}
		parts := strings.Split(s, "|")
		if len(parts) != 4 {
			t.Fatalf("page state %q", s)
		}
		step, _ := strconv.Atoi(parts[0])
		return shown{step, strings.Split(parts[1], ","), parts[2], parts[3]}
	}
	has := func(s shown, r, c int, class string) bool {
		return strings.Contains(" "+s.squares[r*4+c]+" ", " "+class+" ")
	}
	before := read()
	if before.step != 1 || len(before.squares) != 16 || !has(before, 0, 0, "q") || before.detail != details[0] {
		t.Fatalf("page opens on %+v, want step 1 with a queen on (1,1), %q", before, details[0])
	}
	shot, err := browsertest.Screenshot(ctx, "#board")
	if err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("step"))); err != nil {
		t.Fatal(err)
	}
	after := read()
	// Step 2 tries (2,1), in the first queen's column: a conflict.
	if after.step != 2 || !has(after, 1, 0, "conf") || !has(after, 0, 0, "attacker") || after.detail != details[1] {
		t.Errorf("after Step the page shows %+v, want step 2, a conflict at (2,1), %q", after, details[1])
	}
	if strings.Join(after.squares, ",") == strings.Join(before.squares, ",") {
		t.Errorf("Step did not change the board")
	}
	shot2, err := browsertest.Screenshot(ctx, "#board")
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(shot, shot2) {
		t.Errorf("the board looks the same after Step")
	}
	// Play runs on by itself; Pause stops it.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("play"))); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(browsertest.Timeout / 2)
	for read().step < 5 {
		if time.Now().After(deadline) {
			t.Fatalf("Play did not advance past step %d", read().step)
		}
		time.Sleep(50 * time.Millisecond) // polling the page's own clock
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("play"))); err != nil {
		t.Fatal(err)
	}
	paused := read()
	if paused.button != "Play" {
		t.Errorf("after Pause the button says %q", paused.button)
	}
	time.Sleep(3 * pageStep)
	if got := read().step; got != paused.step {
		t.Errorf("paused on step %d, the page went on to %d", paused.step, got)
	}
}

// TestSVGPlaysInABrowser opens the SVG trace in Chromium: exactly one frame
// is visible at a time, and the CSS animation moves on without a script.
func TestSVGPlaysInABrowser(t *testing.T) {
	tr, err := trace.Record(4, trace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "t.svg")
	if err := trace.Write(path, tr); err != nil {
		t.Fatal(err)
	}
	ctx := browsertest.New(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(browsertest.FileURL(t, path))); err != nil {
		t.Fatal(err)
	}
	const visible = `[...document.querySelectorAll("g.frame")].filter(g => getComputedStyle(g).visibility === "visible").map(g => g.dataset.step).join(",")`
	read := func() string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Evaluate[string](visible))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	first := read()
	if strings.Contains(first, ",") || first == "" {
		t.Fatalf("frames visible at the start: %q, want exactly one", first)
	}
	deadline := time.Now().Add(browsertest.Timeout / 2)
	for {
		now := read()
		if strings.Contains(now, ",") {
			t.Fatalf("frames %s visible at once", now)
		}
		if now != first && now != "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the SVG stays on frame %s", first)
		}
		time.Sleep(100 * time.Millisecond) // polling the animation's own clock
	}
}
