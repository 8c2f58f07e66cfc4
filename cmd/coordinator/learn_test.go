package main

import (
	"bytes"
	"context"
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

// TestLabelsFlag runs N=8 through the cluster with and without --labels:
// the labelled pictures are wider (the rank band), the listing the same.
func TestLabelsFlag(t *testing.T) {
	dir := t.TempDir()
	var listings [2]string
	var widths [2]int
	for i, extra := range [][]string{nil, {"--labels"}} {
		out := filepath.Join(dir, string(rune('a'+i)))
		args := append([]string{"--n", "8", "--workers", "1", "--progress", "off", "--log-level", "off",
			"--solutions", "-", "--format", "board", "--png", out, "--limit", "2"}, extra...)
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), args, &stdout, &stderr); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr.String())
		}
		listings[i] = stdout.String()
		widths[i] = pngWidth(t, filepath.Join(out, "solution-0001.png"))
	}
	if listings[0] != listings[1] {
		t.Errorf("--labels changed the board listing")
	}
	if widths[1] <= widths[0] {
		t.Errorf("labelled picture is %d pixels wide, unlabelled %d: want wider", widths[1], widths[0])
	}
	var stderr bytes.Buffer
	code := run(context.Background(), []string{"--n", "8", "--labels=roman"}, &bytes.Buffer{}, &stderr)
	if code != 2 || strings.Count(stderr.String(), "\n") != 1 || !strings.Contains(stderr.String(), "roman") {
		t.Errorf("--labels=roman: exit %d, stderr %q; want 2 and one line naming it", code, stderr.String())
	}
}
