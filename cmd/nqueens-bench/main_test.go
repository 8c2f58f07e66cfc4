package main

import (
	"bytes"
	"io"
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

// TestEngines counts with each engine and checks the counts, and that auto
// says what it chose.
func TestEngines(t *testing.T) {
	for _, c := range []struct{ engine, n, want, log string }{
		{"join", "12", "12 14200 1787", ""},
		{"backtrack", "12", "12 14200 1787", ""},
		{"auto", "11", "11 2680 341", "engine backtrack"},
		{"auto", "16", "16 14772512 1846955", "engine join"},
	} {
		var stdout, log bytes.Buffer
		if err := runLog([]string{"--n", c.n, "--threads", "2", "--engine", c.engine}, &stdout, &log); err != nil {
			t.Fatalf("nqbench --engine %s --n %s: %v", c.engine, c.n, err)
		}
		if !strings.HasPrefix(stdout.String(), c.want+" ") {
			t.Errorf("nqbench --engine %s --n %s printed %q, want %s SECONDS", c.engine, c.n, stdout.String(), c.want)
		}
		if !strings.Contains(log.String(), c.log) {
			t.Errorf("nqbench --engine %s --n %s logged %q, want %q in it", c.engine, c.n, log.String(), c.log)
		}
	}
	if err := runLog([]string{"--engine", "fast"}, io.Discard, io.Discard); err == nil {
		t.Error("nqbench --engine fast = nil error, want one")
	}
}

// TestHelp: -h prints the usage on stdout and exits 0 (it
// exited 2 with the flag package's "flag: help requested").
func TestHelp(t *testing.T) {
	var stdout bytes.Buffer
	if err := run([]string{"-h"}, &stdout); err != nil {
		t.Fatalf("nqbench -h = %v, want nil (exit 0)", err)
	}
	for _, want := range []string{"Usage: nqueens-bench", "nqueens-bench cluster", "-threads", "Examples:"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("nqbench -h does not say %q:\n%s", want, stdout.String())
		}
	}
	if err := run([]string{"--n", "8", "extra"}, &stdout); err == nil || !strings.Contains(err.Error(), `unexpected argument "extra"`) {
		t.Errorf("nqbench --n 8 extra = %v, want the stray argument refused", err)
	}
}
