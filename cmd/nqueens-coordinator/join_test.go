package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nqueens/nqueens/solver"
)

// longJoin runs TestJoinWorkerKilled at N=18 instead of 17.
var longJoin = flag.Bool("long-join", false, "run the join's worker-kill test at N=18 (about 10-20 s of a 2-core machine)")

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

// TestJoinWorkerKilled: a join count on two worker processes, one
// SIGKILLed once tasks are committed; its leases go back to the queue and
// the count (and Burnside's fundamental count) stays exact. N=17, or 18
// with -long-join.
func TestJoinWorkerKilled(t *testing.T) {
	coordBin, workBin := binaries(t)
	n := 17
	if *longJoin {
		n = 18
	}
	want, _ := solver.Known(n)
	logs := &lineWatcher{}
	progressed := logs.on(`progress: tasks_done=([1-9]\d*)`)
	coord, _, stdout, addr := startCoordinator(t, coordBin, logs, "--n", strconv.Itoa(n), "--workers", "0", "--listen", "127.0.0.1:0",
		"--engine", "join", "--json", "--progress", "log", "--progress-interval", "50ms", "--lease", "5s")
	workers := make([]*exec.Cmd, 2)
	for i := range workers {
		w := exec.Command(workBin, "--join", addr, "--slots", "1", "--name", fmt.Sprintf("w%d", i), "--join-timeout", "10s")
		if err := w.Start(); err != nil {
			t.Fatal(err)
		}
		defer w.Process.Kill()
		workers[i] = w
	}
	select {
	case <-progressed:
	case <-time.After(e2eTimeout):
		t.Fatalf("no progress:\n%s", logs)
	}
	if err := workers[0].Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if err := waitProcFor(coord, 3*time.Minute); err != nil {
		t.Fatalf("coordinator: %v\n%s", err, logs)
	}
	var got struct {
		Solutions, Unique uint64
		Engine            string
		Complete          bool
		Requeued          uint64
	}
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatalf("stdout %q: %v", stdout.String(), err)
	}
	if got.Solutions != want.Total || got.Unique != want.Unique || !got.Complete || got.Engine != "join" {
		t.Errorf("coordinator said %s; want %d solutions, %d fundamental, complete, engine join", stdout.String(), want.Total, want.Unique)
	}
	t.Logf("n=%d: %d leases taken back", n, got.Requeued)
	workers[0].Wait()
	if err := waitProc(workers[1]); err != nil {
		t.Errorf("the worker that was not killed: %v", err)
	}
}
