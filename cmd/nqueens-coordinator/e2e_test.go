package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nqueens/nqueens/journal"
)

// Named timeouts of the end-to-end test.
const (
	buildTimeout = 3 * time.Minute  // go build of both binaries
	e2eTimeout   = 90 * time.Second // the whole cluster run
)

// buildBinaries builds the real coordinator and worker into dir.
func buildBinaries(t *testing.T, dir string) (coord, work string) {
	t.Helper()
	coord, work = filepath.Join(dir, "coordinator"), filepath.Join(dir, "worker")
	for _, b := range []struct{ out, pkg string }{
		{coord, "github.com/nqueens/nqueens/cmd/nqueens-coordinator"},
		{work, "github.com/nqueens/nqueens/cmd/nqueens-worker"},
	} {
		cmd := exec.Command("go", "build", "-o", b.out, b.pkg)
		done := make(chan error, 1)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("go build %s: %v\n%s", b.pkg, err, out.String())
			}
		case <-time.After(buildTimeout):
			cmd.Process.Kill()
			t.Fatalf("go build %s timed out", b.pkg)
		}
	}
	return coord, work
}

var (
	binOnce           sync.Once
	binDir            string
	binCoord, binWork string
	binErr            error
)

// TestMain removes the binaries built for the end-to-end tests.
func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// binaries builds the coordinator and worker once per test run.
func binaries(t *testing.T) (coord, work string) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds binaries; skipped with -short")
	}
	binOnce.Do(func() {
		binDir, binErr = os.MkdirTemp("", "nqueens-e2e-*")
		if binErr == nil {
			binCoord, binWork = buildBinaries(t, binDir)
		}
	})
	if binErr != nil || binCoord == "" {
		t.Fatalf("building binaries failed: %v", binErr)
	}
	return binCoord, binWork
}

// lineWatcher copies a process's stderr into a buffer and signals lines
// that match.
type lineWatcher struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	subs []watch
}

type watch struct {
	re *regexp.Regexp
	ch chan []string
	fn func([]string) // called for every match instead of ch, if set
}

func (w *lineWatcher) on(re string) <-chan []string {
	ch := make(chan []string, 1)
	w.mu.Lock()
	w.subs = append(w.subs, watch{re: regexp.MustCompile(re), ch: ch})
	w.mu.Unlock()
	return ch
}

// onEach calls fn (from the reading goroutine) for every line that
// matches re.
func (w *lineWatcher) onEach(re string, fn func(m []string)) {
	w.mu.Lock()
	w.subs = append(w.subs, watch{re: regexp.MustCompile(re), fn: fn})
	w.mu.Unlock()
}

func (w *lineWatcher) run(r io.Reader) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		w.mu.Lock()
		w.buf.WriteString(line + "\n")
		for _, s := range w.subs {
			if m := s.re.FindStringSubmatch(line); m != nil {
				if s.fn != nil {
					s.fn(m)
					continue
				}
				select {
				case s.ch <- m:
				default:
				}
			}
		}
		w.mu.Unlock()
	}
}

func (w *lineWatcher) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// startCoordinator starts the real coordinator binary and returns it, its
// stdout and the address it listens on. Its stderr goes to logs (a new
// watcher if nil), so a caller registers the lines it waits for before the
// process starts and cannot miss them.
func startCoordinator(t *testing.T, bin string, logs *lineWatcher, args ...string) (*exec.Cmd, *lineWatcher, *bytes.Buffer, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	cerr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if logs == nil {
		logs = &lineWatcher{}
	}
	listening := logs.on(`listening: addr=(\S+)`)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	go logs.run(cerr)
	select {
	case m := <-listening:
		return cmd, logs, &stdout, m[1]
	case <-time.After(e2eTimeout):
		t.Fatalf("coordinator did not listen:\n%s", logs)
	}
	return nil, nil, nil, ""
}

// TestEndToEnd builds the binaries and runs a coordinator with three
// worker processes at N=16 (N=14 ends, in runs of tasks, before the first
// progress line); one worker is SIGKILLed mid-run. The count is
// exact and the coordinator exits 0.
func TestEndToEnd(t *testing.T) {
	coordBin, workBin := binaries(t)

	logs := &lineWatcher{}
	progressed := logs.on(`progress: tasks_done=([1-9]\d*)`)
	coord, _, stdout, addr := startCoordinator(t, coordBin, logs, "--n", "16", "--workers", "0", "--listen", "127.0.0.1:0", "--depth", "5",
		"--json", "--progress", "log", "--progress-interval", "50ms", "--lease", "5s")

	workers := make([]*exec.Cmd, 3)
	wlogs := make([]*bytes.Buffer, 3)
	for i := range workers {
		wlogs[i] = &bytes.Buffer{}
		w := exec.Command(workBin, "--join", addr, "--slots", "1", "--name", fmt.Sprintf("w%d", i), "--join-timeout", "10s")
		w.Stderr = wlogs[i]
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
	killedAt := time.Now()

	done := make(chan error, 1)
	go func() { done <- coord.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("coordinator: %v\n%s", err, logs)
		}
	case <-time.After(e2eTimeout):
		t.Fatalf("coordinator did not finish:\n%s", logs)
	}
	var got struct {
		Solutions, Unique uint64
		Complete          bool
		Conflicts         uint64
		Requeued          uint64
		Tasks             int
		ElapsedSeconds    float64 `json:"elapsed_seconds"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatalf("stdout %q: %v", stdout.String(), err)
	}
	if got.Solutions != 14772512 || got.Unique != 1846955 || !got.Complete || got.Conflicts != 0 {
		t.Errorf("coordinator said %s; want 14772512 solutions, 1846955 fundamental, complete, no conflicts", stdout.String())
	}
	t.Logf("%d tasks in %.2fs; %d leases taken back", got.Tasks, got.ElapsedSeconds, got.Requeued)
	if !strings.Contains(logs.String(), "work stream broken") {
		t.Logf("the killed worker's stream break was not logged (job may have ended first, %v after the kill)", time.Since(killedAt))
	}
	workers[0].Wait()
	for i, w := range workers[1:] {
		if err := w.Wait(); err != nil {
			t.Errorf("worker %d: %v\n%s", i+1, err, wlogs[i+1])
		}
	}
}

// TestSignals: SIGINT makes the coordinator drain its workers and exit 1
// with a partial summary; SIGTERM makes a worker hand its leases back and
// exit 0.
func TestSignals(t *testing.T) {
	coordBin, workBin := binaries(t)
	logs := &lineWatcher{}
	joined := logs.on(`worker joined: .*worker_name=remote`)
	coord, _, stdout, addr := startCoordinator(t, coordBin, logs, "--n", "18", "--workers", "1", "--listen", "127.0.0.1:0",
		"--progress", "log", "--progress-interval", "50ms")
	w := exec.Command(workBin, "--join", addr, "--slots", "1", "--name", "remote", "--log-level", "debug")
	wlog := &lineWatcher{}
	leased := wlog.on(`task leased`)
	handed := wlog.on(`stopping; handing leases back`)
	wpipe, err := w.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	defer w.Process.Kill()
	wdone := make(chan struct{})
	go func() { defer close(wdone); wlog.run(wpipe) }()
	select {
	case <-joined:
	case <-time.After(e2eTimeout):
		t.Fatalf("worker did not join:\n%s", logs)
	}
	select { // it holds a task when the signal comes
	case <-leased:
	case <-time.After(e2eTimeout):
		t.Fatalf("the remote worker was leased no task:\n%s", wlog)
	}
	w.Process.Signal(syscall.SIGTERM)
	<-wdone // all of its stderr, before Wait closes the pipe
	if err := waitProc(w); err != nil {
		t.Errorf("worker after SIGTERM: %v, want exit 0\n%s", err, wlog)
	}
	select {
	case <-handed:
	default:
		t.Errorf("the worker did not hand its leases back:\n%s", wlog)
	}
	coord.Process.Signal(syscall.SIGINT)
	err = waitProc(coord)
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Errorf("coordinator after SIGINT: %v, want exit status 1\n%s", err, logs)
	}
	if !strings.Contains(stdout.String(), "PARTIAL") {
		t.Errorf("coordinator printed %q, want a partial summary", stdout.String())
	}
}

// waitProc waits for a process, bounded by e2eTimeout.
func waitProc(c *exec.Cmd) error { return waitProcFor(c, e2eTimeout) }

// waitProcFor waits for a process up to d, then kills it.
func waitProcFor(c *exec.Cmd, d time.Duration) error {
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(d):
		c.Process.Kill()
		<-done
		return fmt.Errorf("%s did not exit within %v", c.Path, d)
	}
}

// TestResumeAfterKill: a coordinator with --state is SIGKILLed mid-run;
// --resume finishes the job with the exact count, redoing only what was
// not committed.
func TestResumeAfterKill(t *testing.T) {
	coordBin, _ := binaries(t)
	state := filepath.Join(t.TempDir(), "job.state")
	args := []string{"--n", "15", "--workers", "2", "--depth", "5", "--state", state, "--json",
		"--progress", "log", "--progress-interval", "20ms"}
	first := exec.Command(coordBin, args...)
	cerr, err := first.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	logs := &lineWatcher{}
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	defer first.Process.Kill()
	go logs.run(cerr)
	// Kill only once the journal holds a commit: a progress count says
	// tasks were done, not that any is durable yet.
	if !journalHolds(state, e2eTimeout) {
		t.Fatalf("the journal held no commit within %v:\n%s", e2eTimeout, logs)
	}
	first.Process.Signal(syscall.SIGKILL)
	first.Wait()

	second := exec.Command(coordBin, append(args, "--resume")...)
	var stdout, stderr bytes.Buffer
	second.Stdout, second.Stderr = &stdout, &stderr
	if err := second.Start(); err != nil {
		t.Fatal(err)
	}
	if err := waitProc(second); err != nil {
		t.Fatalf("resumed coordinator: %v\n%s", err, stderr.String())
	}
	var got struct {
		Solutions, Unique uint64
		Complete          bool
	}
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatalf("stdout %q: %v", stdout.String(), err)
	}
	if got.Solutions != 2279184 || got.Unique != 285053 || !got.Complete {
		t.Errorf("resumed run said %s; want 2279184 solutions, 285053 fundamental", stdout.String())
	}
	m := regexp.MustCompile(`resuming: .*committed_tasks=(\d+)`).FindStringSubmatch(stderr.String())
	if m == nil || m[1] == "0" {
		t.Errorf("the resumed run restored no committed task:\n%s", stderr.String())
	}
}

// journalHolds waits until the journal at path holds a committed result,
// reading it as a resume would, at most d.
func journalHolds(path string, d time.Duration) bool {
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if rp, err := journal.Read(path); err == nil && len(rp.Records) > 0 {
			return true
		}
	}
	return false
}
