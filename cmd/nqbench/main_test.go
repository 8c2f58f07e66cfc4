package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/nqueens/nqueens/internal/version"
)

func TestVersionFlag(t *testing.T) {
	var stdout bytes.Buffer
	if err := run([]string{"--version"}, &stdout); err != nil {
		t.Fatalf("nqbench --version = %v, want nil", err)
	}
	if got, want := stdout.String(), version.String("nqbench")+"\n"; got != want {
		t.Errorf("nqbench --version printed %q, want %q", got, want)
	}
}

func TestCount(t *testing.T) {
	var stdout bytes.Buffer
	if err := run([]string{"--n", "10", "--threads", "2"}, &stdout); err != nil {
		t.Fatal(err)
	}
	if f := strings.Fields(stdout.String()); len(f) != 4 || f[1] != "724" || f[2] != "92" {
		t.Errorf("nqbench --n 10 printed %q, want 10 724 92 SECONDS", stdout.String())
	}
}
