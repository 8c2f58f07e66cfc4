package main

import (
	"bytes"
	"testing"

	"github.com/nqueens/nqueens/internal/version"
)

func TestVersionFlag(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run([]string{"--version"}, &stdout, &stderr); code != 0 {
		t.Fatalf("healthprobe --version = %d, want 0; stderr: %s", code, stderr.String())
	}
	if got, want := stdout.String(), version.String("healthprobe")+"\n"; got != want {
		t.Errorf("healthprobe --version printed %q, want %q", got, want)
	}
}
