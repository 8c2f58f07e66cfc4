package main

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFlagsFromEnvironment: every flag is also NQUEENS_<FLAG>:
// N and the workers from the environment give N=6's 4 solutions, the
// command line wins over the environment, and a bad value or a value
// under a minimum is the same one-line usage error as on the command
// line, naming the variable when its text does not parse.
func TestFlagsFromEnvironment(t *testing.T) {
	t.Setenv("NQUEENS_N", "6")
	t.Setenv("NQUEENS_WORKERS", "1")
	t.Setenv("NQUEENS_JSON", "true")
	t.Setenv("NQUEENS_LOG_LEVEL", "off")
	t.Setenv("NQUEENS_TOKEN", "")
	for _, tc := range []struct {
		args      []string
		solutions uint64
	}{{nil, 4}, {[]string{"--n", "8"}, 92}} {
		code, stdout, stderr := runCmd(tc.args...)
		var sum struct {
			N, Workers int
			Solutions  uint64
		}
		if code != 0 || json.Unmarshal([]byte(stdout), &sum) != nil || sum.Solutions != tc.solutions || sum.Workers != 1 {
			t.Errorf("coordinator %v with NQUEENS_N=6: exit %d, stdout %q, stderr %q; want %d solutions on 1 worker",
				tc.args, code, stdout, stderr, tc.solutions)
		}
	}
	t.Setenv("NQUEENS_LEASE", "5ns")
	checkUsage(t, nil, "--lease 5ns is too short: at least 100ms")
	t.Setenv("NQUEENS_LEASE", "")
	t.Setenv("NQUEENS_N", "six")
	checkUsage(t, nil, `$NQUEENS_N="six": parse error (see coordinator -h)`)
	// The subcommands read no environment: --format means csv|jsonl there.
	t.Setenv("NQUEENS_FORMAT", "board")
	t.Setenv("NQUEENS_STATE", "")
	if code, _, stderr := runCmd("export"); code != 2 || stderr != "coordinator export: --state FILE is required\n" {
		t.Errorf("coordinator export with NQUEENS_FORMAT=board: exit %d, stderr %q; want the missing --state", code, stderr)
	}
}

// TestTokenFile: --token-file reads the token of a mounted Secret (its
// newline dropped); --token on the command line wins over
// $NQUEENS_TOKEN_FILE and --token-file over $NQUEENS_TOKEN; both on the
// command line is refused. A run with the token from a file finishes:
// its embedded workers join with that token.
func TestTokenFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "token")
	if err := os.WriteFile(file, []byte("s3cret-from-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("NQUEENS_TOKEN", "")
	token := func(args ...string) string {
		t.Helper()
		_, lo, err := parseFlags(append([]string{"--n", "8"}, args...), io.Discard, io.Discard)
		if err != nil {
			t.Fatalf("parseFlags(%v): %v", args, err)
		}
		return lo.token.Reveal()
	}
	if got := token("--token-file", file); got != "s3cret-from-file" {
		t.Errorf("--token-file: token %q, want s3cret-from-file", got)
	}
	t.Setenv("NQUEENS_TOKEN_FILE", file)
	if got := token("--token", "typed"); got != "typed" {
		t.Errorf("--token typed with $NQUEENS_TOKEN_FILE: token %q, want typed", got)
	}
	t.Setenv("NQUEENS_TOKEN_FILE", "")
	t.Setenv("NQUEENS_TOKEN", "from-env")
	if got := token("--token-file", file); got != "s3cret-from-file" {
		t.Errorf("--token-file with $NQUEENS_TOKEN: token %q, want the file's", got)
	}
	t.Setenv("NQUEENS_TOKEN", "")
	checkUsage(t, []string{"--n", "8", "--token", "x", "--token-file", file}, "--token and --token-file both set on the command line: give one")
	checkUsage(t, []string{"--n", "8", "--token-file", filepath.Join(dir, "none")}, "--token-file: open "+filepath.Join(dir, "none")+": no such file or directory")

	code, stdout, stderr := runCmd("--n", "8", "--workers", "2", "--token-file", file, "--json", "--log-level", "off")
	if code != 0 || !strings.Contains(stdout, `"solutions":92`) {
		t.Errorf("a run with --token-file: exit %d, stdout %q, stderr %q; want 92 solutions", code, stdout, stderr)
	}
}
