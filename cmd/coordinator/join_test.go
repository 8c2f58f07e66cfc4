package main

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCrashResumeJoin is the crash test of a count by the quadrant join:
// N=17 on two embedded workers, SIGKILLed three times and resumed; the
// last run is exact, its unique by Burnside's lemma from the total.
func TestCrashResumeJoin(t *testing.T) {
	crashResume(t, 17, 95815104, 11977939, "--engine", "join")
}

// TestResumeOtherEngineRefused: a journal of a join count is not resumed
// as a backtracking one, nor the other way round: one line, exit 2.
func TestResumeOtherEngineRefused(t *testing.T) {
	coordBin, _ := binaries(t)
	for _, c := range []struct{ first, resume, want string }{
		{"join", "backtrack", "--engine backtrack contradicts"},
		{"backtrack", "join", "--engine join contradicts"},
	} {
		state := filepath.Join(t.TempDir(), "job.state")
		run := exec.Command(coordBin, "--n", "12", "--workers", "1", "--engine", c.first, "--state", state, "--json")
		if out, err := run.CombinedOutput(); err != nil {
			t.Fatalf("--engine %s: %v\n%s", c.first, err, out)
		}
		again := exec.Command(coordBin, "--resume", "--state", state, "--engine", c.resume, "--workers", "1")
		var stderr bytes.Buffer
		again.Stderr = &stderr
		err := again.Run()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("resume of a %s journal with --engine %s: %v, stderr %q; want exit 2 and %q", c.first, c.resume, err, stderr.String(), c.want)
		}
	}
}

// TestWorkerMemoryFlag reads the sizes --worker-memory takes, Kubernetes'
// spelling too, and refuses the rest.
func TestWorkerMemoryFlag(t *testing.T) {
	for in, want := range map[string]int64{"1073741824": 1 << 30, "1GiB": 1 << 30, "128Mi": 128 << 20, "512MiB": 512 << 20, "64K": 64 << 10, "2Gi": 2 << 30} {
		var v int64
		if err := (bytesFlag{&v}).Set(in); err != nil || v != want {
			t.Errorf("--worker-memory %s = %d, %v; want %d", in, v, err, want)
		}
	}
	for _, in := range []string{"", "0", "-1Gi", "12x", "1.5GiB", "99999999999Gi"} {
		var v int64
		if err := (bytesFlag{&v}).Set(in); err == nil {
			t.Errorf("--worker-memory %q accepted as %d", in, v)
		}
	}
}
