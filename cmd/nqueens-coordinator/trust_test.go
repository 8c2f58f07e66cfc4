package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"testing"

	"github.com/nqueens/nqueens/coordinator"
)

// TestVerifyFractionFlag: without --verify-fraction, remote workers on a
// board with no published count get the default share verified; an
// explicit --verify-fraction applies to every worker and replaces it, and
// --verify-fraction 0 turns verification off.
func TestVerifyFractionFlag(t *testing.T) {
	for _, tc := range []struct {
		args        []string
		all, remote float64
	}{
		{nil, 0, coordinator.DefaultRemoteVerifyFraction},
		{[]string{"--verify-fraction", "0"}, 0, 0},
		{[]string{"--verify-fraction", "0.5"}, 0.5, 0.5},
	} {
		o, _, err := parseFlags(append([]string{"--n", "28"}, tc.args...), io.Discard, io.Discard)
		if err != nil {
			t.Fatalf("parseFlags(%v): %v", tc.args, err)
		}
		if o.VerifyFraction != tc.all || o.RemoteVerifyFraction != tc.remote {
			t.Errorf("%v: verify fraction %v, remote workers' %v; want %v and %v", tc.args, o.VerifyFraction, o.RemoteVerifyFraction, tc.all, tc.remote)
		}
	}
}

// TestJSONTrust: --json says the total was compared with the published
// count, how much of it was verified and that the node count did not
// saturate.
func TestJSONTrust(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"--n", "8", "--workers", "2", "--verify-fraction", "1", "--json", "--log-level", "off"}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var got map[string]any
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatalf("stdout is not one JSON object: %v\n%s", err, stdout.String())
	}
	want := map[string]any{"checked_against_published": true, "nodes_saturated": false,
		"verified_solutions": 92.0, "verified_fraction": 1.0, "verified_solutions_fraction": 1.0}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("--json %q = %v, want %v", k, got[k], v)
		}
	}
}
