package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/nqueens/nqueens/auth"
	"github.com/nqueens/nqueens/coordinator"
)

// refusedAddr is a loopback port that refuses connections: bound, then closed.
func refusedAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// TestJoinTimeoutZero: --join-timeout 0 is one attempt, not 30 s of
// retries: the worker fails at the first refusal, says so, and never
// logs that it waits to retry.
func TestJoinTimeoutZero(t *testing.T) {
	addr := refusedAddr(t)
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"--join", addr, "--join-timeout", "0", "--log-level", "debug"}, &stdout, &stderr)
	want := "worker: cannot join coordinator at " + addr + " in one attempt (--join-timeout 0): "
	if code != 1 || !strings.Contains(stderr.String(), want) {
		t.Errorf("--join-timeout 0: exit %d, stderr %q; want exit 1 and %q", code, stderr.String(), want)
	}
	if strings.Contains(stderr.String(), "retrying") || strings.Contains(stderr.String(), "waiting for coordinator") {
		t.Errorf("--join-timeout 0 retried:\n%s", stderr.String())
	}
}

// TestFlagsFromEnvironment: the worker's flags from NQUEENS_<FLAG>, the
// command line first; a bad value names the variable.
func TestFlagsFromEnvironment(t *testing.T) {
	addr := refusedAddr(t)
	t.Setenv("NQUEENS_JOIN", addr)
	t.Setenv("NQUEENS_JOIN_TIMEOUT", "0")
	t.Setenv("NQUEENS_LOG_LEVEL", "off")
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), nil, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), addr+" in one attempt") {
		t.Errorf("worker with NQUEENS_JOIN and NQUEENS_JOIN_TIMEOUT=0: exit %d, stderr %q; want one attempt at %s", code, stderr.String(), addr)
	}
	t.Setenv("NQUEENS_SLOTS", "7")
	if o, err := parseFlags([]string{"--slots", "3"}, &stdout); err != nil || o.cfg.Slots != 3 {
		t.Errorf("--slots 3 with NQUEENS_SLOTS=7: slots %d, %v; want 3 (the command line wins)", o.cfg.Slots, err)
	}
	if o, err := parseFlags(nil, &stdout); err != nil || o.cfg.Slots != 7 || o.cfg.Join != addr || !o.cfg.JoinOnce {
		t.Errorf("NQUEENS_SLOTS=7: slots %d, join %q, once %v, %v; want 7, %s, true", o.cfg.Slots, o.cfg.Join, o.cfg.JoinOnce, err, addr)
	}
	t.Setenv("NQUEENS_JOIN_TIMEOUT", "soon")
	stderr.Reset()
	if code := run(context.Background(), nil, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), `$NQUEENS_JOIN_TIMEOUT="soon": parse error`) {
		t.Errorf("NQUEENS_JOIN_TIMEOUT=soon: exit %d, stderr %q; want exit 2 naming the variable", code, stderr.String())
	}
}

// TestTokenFile: a worker whose token is in a file (a mounted Secret,
// with its newline) joins a coordinator that requires it and finishes
// N=8 (92 solutions).
func TestTokenFile(t *testing.T) {
	sopts, err := auth.Config{Token: auth.NewToken("s3cret-token")}.ServerOptions()
	if err != nil {
		t.Fatal(err)
	}
	cfg := coordinator.NewConfig(8)
	cfg.Workers, cfg.ServerOptions = 0, sopts
	job, err := coordinator.New(cfg, hclog.NewNullLogger())
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan coordinator.Summary, 1)
	go func() {
		s, _ := job.Run(context.Background())
		done <- s
	}()
	file := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(file, []byte("s3cret-token\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("NQUEENS_TOKEN", "wrong")
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"--join", job.Addr(), "--token-file", file, "--slots", "1", "--log-level", "off"}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("worker --token-file: exit %d, stderr %q", code, stderr.String())
	}
	if s := <-done; s.Solutions != 92 || !s.Complete {
		t.Errorf("the job: %d solutions, complete %v; want 92", s.Solutions, s.Complete)
	}
}

// TestStayFlags: --stay retries until stopped, so a join timeout beside it
// is refused, from the command line or the environment.
func TestStayFlags(t *testing.T) {
	for _, args := range [][]string{
		{"--join", "127.0.0.1:1", "--stay", "--join-timeout", "1m"},
		{"--join", "127.0.0.1:1", "--stay", "--join-timeout", "0"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), args, &stdout, &stderr)
		if want := "worker: --join-timeout does not apply to --stay, which retries joining until stopped\n"; code != 2 || stderr.String() != want {
			t.Errorf("worker %v: exit %d, stderr %q; want exit 2 and %q", args, code, stderr.String(), want)
		}
	}
	t.Setenv("NQUEENS_STAY", "true")
	if o, err := parseFlags([]string{"--join", "127.0.0.1:1"}, io.Discard); err != nil || !o.cfg.Stay {
		t.Errorf("NQUEENS_STAY=true: stay %v, %v; want on", o.cfg.Stay, err)
	}
}
