package main

import (
	"bytes"
	"context"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/nqueens/nqueens/auth"
	"github.com/nqueens/nqueens/auth/authtest"
	"github.com/nqueens/nqueens/coordinator"
	"github.com/nqueens/nqueens/internal/version"
)

// TestExitCodes: bad input is one clear line on stderr and the documented
// exit status.
func TestExitCodes(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	// A port that refuses connections: bound, then closed.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := l.Addr().String()
	l.Close()
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{}, 2, "--join HOST:PORT is required"},
		{[]string{"--join", "nohost"}, 2, `--join "nohost": want HOST:PORT (address nohost: missing port in address)`},
		{[]string{"--join", "localhost:99999"}, 2, `--join "localhost:99999": port "99999" is not a number in 1..65535`},
		{[]string{"--join", "localhost:http"}, 2, `port "http" is not a number`},
		{[]string{"--join", refused, "--slots", "0"}, 2, "--slots 0 must be at least 1"},
		{[]string{"--join", refused, "--bogus"}, 2, "flag provided but not defined"},
		{[]string{"--join", refused, "--log-level", "loud"}, 2, "--log-level"},
		{[]string{"--join", refused, "--join-timeout", "300ms", "--log-level", "off"}, 1, "cannot join coordinator at " + refused + " within 300ms"},
		{[]string{"--join", refused, "--health-listen", busy.Addr().String(), "--log-level", "off"}, 1, "address already in use"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), tc.args, &stdout, &stderr)
		if code != tc.code || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("worker %s: exit %d, stderr %q; want exit %d and %q", strings.Join(tc.args, " "), code, stderr.String(), tc.code, tc.want)
		}
		if strings.Count(strings.TrimSpace(stderr.String()), "\n") > 0 {
			t.Errorf("worker %s: want one line on stderr, got:\n%s", strings.Join(tc.args, " "), stderr.String())
		}
	}
}

func TestHelp(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"-h"}, &stdout, &stderr); code != 0 {
		t.Fatalf("worker -h: exit %d", code)
	}
	for _, flag := range []string{"-join", "-slots", "-name", "-token", "-join-timeout", "-health-listen", "-log-level", "-log-json", "-tls-ca", "-version", "GOMAXPROCS", "Exit status"} {
		if !strings.Contains(stdout.String(), flag) {
			t.Errorf("worker -h does not mention %s", flag)
		}
	}
}

// TestVersion: --version prints one line naming the build and exits 0,
// whatever else is on the command line.
func TestVersion(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"--version", "--join", "127.0.0.1:1"}, &stdout, &stderr)
	if want := version.String("worker") + "\n"; code != 0 || stdout.String() != want || stderr.Len() != 0 {
		t.Errorf("worker --version: exit %d, stdout %q, stderr %q; want exit 0 and %q", code, stdout.String(), stderr.String(), want)
	}
}

// TestRefusedToken: a worker with a wrong or missing token is refused at
// once (Unauthenticated is not retried), exits 1 with one line that does
// not show the token, and gets no lease.
func TestRefusedToken(t *testing.T) {
	sopts, err := auth.Config{Token: auth.NewToken("s3cret-token")}.ServerOptions()
	if err != nil {
		t.Fatal(err)
	}
	cfg := coordinator.NewConfig(10)
	cfg.Workers, cfg.ServerOptions = 0, sopts
	job, err := coordinator.New(cfg, hclog.NewNullLogger())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan coordinator.Summary, 1)
	go func() {
		s, _ := job.Run(ctx)
		done <- s
	}()
	addr := job.Addr()
	t.Setenv("NQUEENS_TOKEN", "")
	for _, tc := range []struct{ name, token string }{{"wrong token", "guess"}, {"no token", ""}} {
		args := []string{"--join", addr, "--join-timeout", "10s", "--log-level", "off"}
		if tc.token != "" {
			args = append(args, "--token", tc.token)
		}
		var stdout, stderr bytes.Buffer
		start := time.Now()
		code := run(context.Background(), args, &stdout, &stderr)
		if code != 1 || !strings.Contains(stderr.String(), "cannot join") || strings.Count(strings.TrimSpace(stderr.String()), "\n") > 0 {
			t.Errorf("%s: exit %d, stderr %q; want exit 1 and one refusal line", tc.name, code, stderr.String())
		}
		if strings.Contains(stderr.String(), "s3cret") {
			t.Errorf("%s: the token leaked: %q", tc.name, stderr.String())
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s: refused after %v; Unauthenticated must not be retried until --join-timeout", tc.name, d)
		}
	}
	// With logging on, the refusal is logged at Error with its reason, and
	// still without the token.
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"--join", addr, "--token", "guess"}, &stdout, &stderr); code != 1 ||
		len(grepLines(stderr.String(), "[ERROR] worker: join refused: addr="+addr+" code=Unauthenticated error=")) != 1 || strings.Contains(stderr.String(), "s3cret") {
		t.Errorf("wrong token, logging at info: exit %d, stderr:\n%s\nwant exit 1 and one error line \"join refused\" with code=Unauthenticated", code, stderr.String())
	}
	cancel()
	if s := <-done; s.Committed != 0 || s.Requeued != 0 || s.Workers != 0 || s.Leased != 0 {
		t.Errorf("refused workers got work: %+v", s)
	}
}

// TestRefusedCertificate: against a coordinator with mutual TLS and a
// token, a worker with the right token but a client certificate from
// another CA, or with no client certificate, cannot join and exits 1; a
// worker with the wrong token but a good certificate is refused too. The
// coordinator hands out no lease. A worker with both right then joins and
// finishes the job, so the refusals were not a broken setup.
func TestRefusedCertificate(t *testing.T) {
	dir := t.TempDir()
	ca, err := authtest.NewCA("cluster ca")
	if err != nil {
		t.Fatal(err)
	}
	caFile, err := ca.WriteCA(dir)
	if err != nil {
		t.Fatal(err)
	}
	srvCert, srvKey, err := ca.Issue(dir, "coordinator", "127.0.0.1", "localhost")
	if err != nil {
		t.Fatal(err)
	}
	goodCert, goodKey, err := ca.Issue(dir, "worker", "worker")
	if err != nil {
		t.Fatal(err)
	}
	otherDir := t.TempDir()
	other, err := authtest.NewCA("stranger ca")
	if err != nil {
		t.Fatal(err)
	}
	badCert, badKey, err := other.Issue(otherDir, "worker", "worker")
	if err != nil {
		t.Fatal(err)
	}

	sopts, err := auth.Config{Token: auth.NewToken("s3cret-token"), CertFile: srvCert, KeyFile: srvKey, CAFile: caFile}.ServerOptions()
	if err != nil {
		t.Fatal(err)
	}
	cfg := coordinator.NewConfig(8)
	cfg.Workers, cfg.ServerOptions = 0, sopts
	job, err := coordinator.New(cfg, hclog.NewNullLogger())
	if err != nil {
		t.Fatal(err)
	}
	type ended struct {
		s   coordinator.Summary
		err error
	}
	done := make(chan ended, 1)
	go func() {
		s, err := job.Run(context.Background())
		done <- ended{s, err}
	}()
	addr := job.Addr()
	t.Setenv("NQUEENS_TOKEN", "")
	base := []string{"--join", addr, "--join-timeout", "1s", "--log-level", "off", "--tls-ca", caFile, "--slots", "1"}
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"certificate of another CA", []string{"--token", "s3cret-token", "--tls-cert", badCert, "--tls-key", badKey}},
		{"no client certificate", []string{"--token", "s3cret-token"}},
		{"wrong token, good certificate", []string{"--token", "guess", "--tls-cert", goodCert, "--tls-key", goodKey}},
	} {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), append(slices.Clone(base), tc.args...), &stdout, &stderr)
		if code != 1 || !strings.Contains(stderr.String(), "cannot join") || strings.Count(strings.TrimSpace(stderr.String()), "\n") > 0 {
			t.Errorf("%s: exit %d, stderr %q; want exit 1 and one refusal line", tc.name, code, stderr.String())
		}
	}
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), append(slices.Clone(base), "--token", "s3cret-token", "--tls-cert", goodCert, "--tls-key", goodKey), &stdout, &stderr); code != 0 {
		t.Errorf("worker with the right token and certificate: exit %d, stderr %q", code, stderr.String())
	}
	e := <-done
	if e.err != nil || e.s.Solutions != 92 {
		t.Fatalf("coordinator: %v, %d solutions; want 92", e.err, e.s.Solutions)
	}
	if e.s.Workers != 1 || e.s.Leased != uint64(e.s.Tasks) || e.s.Requeued != 0 {
		t.Errorf("workers %d, leased %d of %d tasks, requeued %d: refused workers got leases", e.s.Workers, e.s.Leased, e.s.Tasks, e.s.Requeued)
	}
}

// grepLines returns the lines of text that contain s.
func grepLines(text, s string) []string {
	var out []string
	for line := range strings.Lines(text) {
		if strings.Contains(line, s) {
			out = append(out, line)
		}
	}
	return out
}
