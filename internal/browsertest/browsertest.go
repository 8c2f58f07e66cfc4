// Package browsertest runs pages in a real headless Chromium for tests,
// through the DevTools protocol (github.com/chromedp/chromedp):
//
//	func TestPage(t *testing.T) {
//		ctx := browsertest.New(t) // skips t when no Chromium is installed
//		if err := chromedp.Do(ctx, chromedp.Navigate(browsertest.FileURL(t, "page.html"))); err != nil { ... }
//		title, err := chromedp.Run(ctx, chromedp.Title())
//		...
//	}
//
// The browser is found by Find ($NQUEENS_CHROMIUM, then chromium,
// chromium-browser, google-chrome on $PATH); it runs headless, without a
// GPU, and without its sandbox when the test runs as root (a container's
// usual case, where the sandbox cannot start). Each New is one browser
// process, ended at the test's cleanup. SaveArtifact keeps a screenshot
// where CI collects it ($NQUEENS_ARTIFACTS), and Colours tells a page
// that drew something from a blank one.
//
// It is its own module, holding the browser tests of the dashboard
// (package status) and of the trace pages (package trace) too, so that
// chromedp, a test-only dependency, stays out of the main go.mod. Run
// them with
//
//	(cd internal/browsertest && go test ./...)
package browsertest

import (
	"bytes"
	"context"
	"image/png"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Timeout bounds one test's whole browser session: starting Chromium on a
// loaded two-core machine takes seconds, a page of ours well under one.
const Timeout = 60 * time.Second

// candidates are the names a Chromium binary goes by.
var candidates = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "headless-shell"}

// Find returns the path of a Chromium binary, or "" when there is none:
// $NQUEENS_CHROMIUM when set, else the first of chromium, chromium-browser,
// google-chrome, google-chrome-stable and headless-shell on $PATH.
func Find() string {
	if p := os.Getenv("NQUEENS_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range candidates {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// AllocatorOptions are the flags the browser at path starts with: headless,
// no GPU, no first-run screens, a fixed window, and no sandbox as root.
func AllocatorOptions(path string) []chromedp.ExecAllocatorOption {
	opts := append([]chromedp.ExecAllocatorOption{}, chromedp.DefaultExecAllocatorOptions[:]...) // headless, no first run
	opts = append(opts,
		chromedp.ExecPath(path),
		chromedp.DisableGPU,
		chromedp.WindowSize(1024, 768),
	)
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox)
	}
	return opts
}

// New starts a headless Chromium for t and returns a context to run
// chromedp actions in (chromedp.Do, chromedp.Run), bounded by Timeout. It
// skips t, saying why, when no browser is installed; the browser ends at
// t's cleanup. Options in extra come after AllocatorOptions' and so win
// over them (chromedp.WindowSize(1280, 900) for a wider page).
func New(t testing.TB, extra ...chromedp.ExecAllocatorOption) context.Context {
	t.Helper()
	path := Find()
	if path == "" {
		t.Skip("no Chromium binary found (install chromium, or set NQUEENS_CHROMIUM): browser test skipped")
	}
	opts := append(AllocatorOptions(path), extra...)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	bctx, cancelBrowser := chromedp.NewContext(actx)
	// The first action starts the browser; its context must not time out
	// (that would stop the browser), so the bound goes on the one returned.
	started := make(chan error, 1)
	go func() { started <- chromedp.Do(bctx) }()
	select {
	case err := <-started:
		if err != nil {
			cancelBrowser()
			cancelAlloc()
			t.Fatalf("start %s: %v", path, err)
		}
	case <-time.After(Timeout):
		cancelBrowser()
		cancelAlloc()
		t.Fatalf("start %s: no answer in %v", path, Timeout)
	}
	ctx, cancel := context.WithTimeout(bctx, Timeout)
	t.Cleanup(func() {
		cancel()
		cancelBrowser()
		cancelAlloc()
	})
	return ctx
}

// FileURL is the file:// URL of path (made absolute).
func FileURL(t testing.TB, path string) string {
	t.Helper()
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	return (&url.URL{Scheme: "file", Path: abs}).String()
}

// Screenshot returns a PNG of the element matching sel (a CSS selector)
// as the page shows it now.
func Screenshot(ctx context.Context, sel string) ([]byte, error) {
	return chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS(sel)))
}

// SaveArtifact writes b to name under $NQUEENS_ARTIFACTS when set (made if
// missing), so CI or a person can look at it after the run, else under
// t's temporary directory; it logs and returns the path.
func SaveArtifact(t testing.TB, name string, b []byte) string {
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

// Colours counts the distinct colours of a PNG, sampling every second
// pixel of every second row: a blank or broken page has a handful, a page
// with text, gradients and pictures hundreds.
func Colours(pngData []byte) (int, error) {
	img, err := png.Decode(bytes.NewReader(pngData))
	if err != nil {
		return 0, err
	}
	seen := map[[4]uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			r, g, bl, a := img.At(x, y).RGBA()
			seen[[4]uint32{r >> 8, g >> 8, bl >> 8, a >> 8}] = true
		}
	}
	return len(seen), nil
}
