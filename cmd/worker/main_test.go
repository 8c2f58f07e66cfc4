package main

import (
	"bytes"
	"context"
	"net"
	"strings"
	"testing"
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
	for _, flag := range []string{"-join", "-slots", "-name", "-token", "-join-timeout", "-health-listen", "-log-level", "-log-json", "-tls-ca", "Exit status"} {
		if !strings.Contains(stdout.String(), flag) {
			t.Errorf("worker -h does not mention %s", flag)
		}
	}
}
