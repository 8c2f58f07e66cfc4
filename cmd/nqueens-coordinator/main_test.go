package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"strings"
	"testing"
)

// TestExitCodes runs the command in-process on bad input: one clear line on
// stderr, the documented exit status, never a stack trace.
func TestExitCodes(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	for _, tc := range []struct {
		args []string
		code int
		want string // in stderr
	}{
		{[]string{"--n", "33"}, 2, "--n 33 out of range 1..32"},
		{[]string{"--n", "0"}, 2, "--n 0 out of range 1..32"},
		{[]string{}, 2, "--n N is required"},
		{[]string{"--n", "8", "--depth", "9"}, 2, "--depth 9 out of range: for n=8 it must be 0.."},
		{[]string{"--n", "8", "--depth", "x"}, 2, "invalid value"},
		{[]string{"--n", "8", "--format", "jpeg", "--solutions", "-"}, 2, `unknown format "jpeg"`},
		{[]string{"--n", "8", "--bogus"}, 2, "flag provided but not defined: -bogus"},
		{[]string{"--n", "8", "extra"}, 2, `unexpected argument "extra"`},
		{[]string{"--n", "8", "--log-level", "loud"}, 2, "--log-level"},
		{[]string{"--n", "8", "--first", "--method", "guess"}, 2, "unknown --method"},
		{[]string{"--n", "8", "--listen", busy.Addr().String(), "--log-level", "off"}, 1, "address already in use"},
		{[]string{"--n", "8", "--listen", "8080"}, 2, `--listen "8080": want HOST:PORT`},
		{[]string{"--n", "8", "--listen", "localhost:99999"}, 2, `--listen "localhost:99999": port "99999" is not a number in 0..65535`},
		{[]string{"--n", "8", "--first", "--method", "lasvegas", "--k", "many"}, 2, `--k "many": want a number of rows or auto`},
		{[]string{"study", "nosuch"}, 2, "unknown study"},
		{[]string{"--n", "8", "--resume"}, 2, "--resume needs --state FILE"},
		{[]string{"--n", "8", "--verify-fraction", "2"}, 2, "--verify-fraction 2 out of range 0..1"},
		{[]string{"--n", "8", "--max-message-rate", "-1"}, 2, "--max-message-rate -1 must be positive"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), tc.args, &stdout, &stderr)
		if code != tc.code || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("coordinator %s: exit %d, stderr %q; want exit %d and %q", strings.Join(tc.args, " "), code, stderr.String(), tc.code, tc.want)
		}
		if lines := strings.Count(strings.TrimSpace(stderr.String()), "\n"); lines > 0 || strings.Contains(stderr.String(), "goroutine") {
			t.Errorf("coordinator %s: stderr has %d lines, want one:\n%s", strings.Join(tc.args, " "), lines+1, stderr.String())
		}
	}
}

func TestHelp(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"-h"}, &stdout, &stderr); code != 0 {
		t.Fatalf("coordinator -h: exit %d", code)
	}
	for _, flag := range []string{"-n", "-workers", "-listen", "-depth", "-lease", "-json", "-solutions", "-format",
		"-png", "-svg", "-sheet", "-limit", "-unique", "-first", "-method", "-k", "-seed", "-token", "-tls-cert",
		"-log-level", "-log-json", "Exit status", "study lasvegas"} {
		if !strings.Contains(stdout.String(), flag) {
			t.Errorf("coordinator -h does not mention %s", flag)
		}
	}
	if c := strings.Count(stdout.String(), "Usage:"); c != 1 {
		t.Errorf("coordinator -h printed the usage %d times, want once", c)
	}
	stdout.Reset()
	if code := run(context.Background(), []string{"--n", "8", "--typo"}, &stdout, &stderr); code != 2 || stdout.Len() > 0 {
		t.Errorf("coordinator --typo: exit %d, stdout %q; want exit 2 and nothing on stdout", code, stdout.String())
	}
}

// TestJSON runs a small job in-process and checks the --json fields that
// scripts rely on.
func TestJSON(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"--n", "8", "--workers", "2", "--json", "--log-level", "off"}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var got map[string]any
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatalf("stdout is not one JSON object: %v\n%s", err, stdout.String())
	}
	for _, k := range []string{"n", "solutions", "unique", "tasks", "depth", "workers", "nodes", "elapsed_seconds", "conflicts"} {
		if _, ok := got[k]; !ok {
			t.Errorf("--json lacks %q: %s", k, stdout.String())
		}
	}
	if got["solutions"] != 92.0 || got["unique"] != 12.0 || got["workers"] != 2.0 {
		t.Errorf("--json = %s, want 92 solutions, 12 fundamental, 2 workers", stdout.String())
	}
}

func TestFirst(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"--n", "8", "--first"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if got := strings.Fields(stdout.String()); len(got) != 8 {
		t.Errorf("--first printed %q, want one line of 8 columns", stdout.String())
	}
	stdout.Reset()
	args := []string{"--n", "12", "--first", "--method", "lasvegas", "--k", "6", "--seed", "7"}
	run(context.Background(), args, &stdout, &stderr)
	first := stdout.String()
	stdout.Reset()
	run(context.Background(), args, &stdout, &stderr)
	if first == "" || stdout.String() != first {
		t.Errorf("lasvegas with a fixed seed printed %q then %q; want the same solution", first, stdout.String())
	}
}
