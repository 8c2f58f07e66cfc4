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
// process, ended at the test's cleanup.
package browsertest

import (
	"context"
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
// t's cleanup.
func New(t testing.TB) context.Context {
	t.Helper()
	path := Find()
	if path == "" {
		t.Skip("no Chromium binary found (install chromium, or set NQUEENS_CHROMIUM): browser test skipped")
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), AllocatorOptions(path)...)
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
