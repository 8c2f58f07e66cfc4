package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/nqueens/nqueens/internal/version"
)

func TestVersionFlag(t *testing.T) {
	var stdout, stderr bytes.Buffer
	// No --join: --version answers before the required flags are checked.
	if code := run(context.Background(), []string{"--version"}, &stdout, &stderr); code != 0 {
		t.Fatalf("worker --version = %d, want 0; stderr: %s", code, stderr.String())
	}
	if got, want := stdout.String(), version.String("worker")+"\n"; got != want {
		t.Errorf("worker --version printed %q, want %q", got, want)
	}
}
