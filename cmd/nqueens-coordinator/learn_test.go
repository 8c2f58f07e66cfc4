package main

import (
	"bytes"
	"context"
	"image/gif"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// pngWidth is the width of the PNG at path.
func pngWidth(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cfg, err := png.DecodeConfig(f)
	if err != nil {
		t.Fatal(err)
	}
	return cfg.Width
}

// TestLabelsFlag runs N=8 through the cluster without --labels, with it and
// with --labels=chess: the labelled pictures are wider (the rank band), the
// chess one numbers its ranks the other way (another picture of the same
// size), the listing is the same.
func TestLabelsFlag(t *testing.T) {
	dir := t.TempDir()
	var listings, pngs [3]string
	var widths [3]int
	for i, extra := range [][]string{nil, {"--labels"}, {"--labels=chess"}} {
		out := filepath.Join(dir, string(rune('a'+i)))
		args := append([]string{"--n", "8", "--workers", "1", "--progress", "off", "--log-level", "off",
			"--solutions", "-", "--format", "board", "--png", out, "--limit", "2"}, extra...)
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), args, &stdout, &stderr); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr.String())
		}
		listings[i] = stdout.String()
		pngs[i] = filepath.Join(out, "solution-0001.png")
		widths[i] = pngWidth(t, pngs[i])
	}
	if listings[0] != listings[1] || listings[0] != listings[2] {
		t.Errorf("--labels changed the board listing")
	}
	if widths[1] <= widths[0] || widths[2] != widths[1] {
		t.Errorf("pictures are %d (letters), %d (chess) and %d (plain) pixels wide: want the labelled ones wider, alike", widths[1], widths[2], widths[0])
	}
	letters, err := os.ReadFile(pngs[1])
	if err != nil {
		t.Fatal(err)
	}
	chess, err := os.ReadFile(pngs[2])
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(letters, chess) {
		t.Errorf("--labels=chess drew the same picture as --labels")
	}
	var stderr bytes.Buffer
	code := run(context.Background(), []string{"--n", "8", "--labels=roman"}, &bytes.Buffer{}, &stderr)
	if code != 2 || strings.Count(stderr.String(), "\n") != 1 || !strings.Contains(stderr.String(), "roman") {
		t.Errorf("--labels=roman: exit %d, stderr %q; want 2 and one line naming it", code, stderr.String())
	}
}

// TestTraceFlag films N=4 through the command: it runs without a cluster,
// exits 0, and the GIF has one frame per step (78, counted in package
// trace's tests by an independent backtracker).
func TestTraceFlag(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.gif")
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"--n", "4", "--trace", path}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if want := "N=4: trace of the backtracker, 78 steps, 2 solutions, written to " + path + "\n"; stdout.String() != want {
		t.Errorf("stdout %q, want %q", stdout.String(), want)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	g, err := gif.DecodeAll(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Image) != 78 {
		t.Errorf("trace of N=4 has %d frames, want 78", len(g.Image))
	}
	stdout.Reset()
	if code := run(context.Background(), []string{"--n", "8", "--trace", path, "--trace-steps", "40"}, &stdout, &stderr); code != 0 ||
		!strings.Contains(stdout.String(), "first 40 of 17868 steps") {
		t.Errorf("--trace-steps 40: exit %d, stdout %q", code, stdout.String())
	}
	for _, args := range [][]string{
		{"--n", "13", "--trace", path},
		{"--n", "4", "--trace", "t.png"},
		{"--n", "4", "--trace", path, "--trace-steps", "0"},
		{"--n", "4", "--trace", path, "--trace-until", "-1"},
		{"--n", "4", "--trace-until", "2"},
	} {
		var stderr bytes.Buffer
		code := run(context.Background(), args, &bytes.Buffer{}, &stderr)
		if code != 2 || strings.Count(stderr.String(), "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want 2 and one line", args, code, stderr.String())
		}
	}
}
