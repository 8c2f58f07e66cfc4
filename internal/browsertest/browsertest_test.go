package browsertest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
)

func TestNewRunsAPage(t *testing.T) {
	ctx := New(t)
	path := filepath.Join(t.TempDir(), "p.html")
	if err := os.WriteFile(path, []byte(`<!DOCTYPE html><title>t</title><p id="x">6</p><script>document.getElementById("x").textContent = 6 * 7</script>`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(FileURL(t, path))); err != nil {
		t.Fatal(err)
	}
	got, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("x").textContent`))
	if err != nil || got != "42" {
		t.Errorf("the page's script gave %q, %v; want 42", got, err)
	}
	png, err := Screenshot(ctx, "#x")
	if err != nil || len(png) < 8 || string(png[1:4]) != "PNG" {
		t.Errorf("Screenshot(#x) = %d bytes, %v; want a PNG", len(png), err)
	}
}
