package browsertest

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
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

func TestColours(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 8, 8))
	for y := range 8 {
		for x := range 8 {
			img.Set(x, y, color.RGBA{uint8(x * 30), uint8(y * 30), 0, 255})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	if n, err := Colours(buf.Bytes()); n != 16 || err != nil { // every second pixel of every second row
		t.Errorf("Colours(8x8 gradient) = %d, %v; want 16", n, err)
	}
	if _, err := Colours([]byte("not a png")); err == nil {
		t.Error("Colours(garbage) gave no error")
	}
}

func TestSaveArtifact(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "made")
	t.Setenv("NQUEENS_ARTIFACTS", dir)
	p := SaveArtifact(t, "a.txt", []byte("x"))
	if b, err := os.ReadFile(filepath.Join(dir, "a.txt")); p != filepath.Join(dir, "a.txt") || string(b) != "x" || err != nil {
		t.Errorf("SaveArtifact wrote %s: %q, %v; want %s/a.txt holding x", p, b, err, dir)
	}
}
