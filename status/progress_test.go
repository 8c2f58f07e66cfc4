package status

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/nqueens/nqueens/coordinator"
)

// resumedRun simulates, on a fake clock, a run resumed from a journal: of
// ten tasks whose sizes differ a thousandfold, the earlier run committed
// the first five (Restored); the new run waits idle seconds for a worker,
// which then does rate nodes per second.
type resumedRun struct {
	sizes    []float64 // estimated nodes per task
	restored int
	idle     time.Duration
	rate     float64
}

func (r resumedRun) at(t time.Duration) coordinator.Status {
	var total, restoredWork float64
	for i, s := range r.sizes {
		if i < r.restored {
			restoredWork += s
		} else {
			total += s
		}
	}
	busy := max(t-r.idle, 0)
	done := min(r.rate*busy.Seconds(), total)
	// Tasks committed: restored ones, then this run's in order as the work covers them.
	committed, acc := r.restored, 0.0
	for _, s := range r.sizes[r.restored:] {
		if acc+s > done {
			break
		}
		acc += s
		committed++
	}
	ws := []coordinator.WorkerStatus{}
	if t > r.idle {
		ws = append(ws, coordinator.WorkerStatus{Name: "w", Slots: 1})
	}
	return coordinator.Status{
		Summary:  coordinator.Summary{Tasks: len(r.sizes), Committed: committed, Nodes: uint64(restoredWork + done)},
		Restored: r.restored, Busy: busy, WorkDone: done, WorkTotal: total, Workers: ws, Done: done >= total,
	}
}

// TestETAAfterResume checks the ETA on a fake clock: it ignores the idle
// wait, does not count restored tasks as work done in no time, and goes by
// work, not tasks, so it predicts the true end within a second all along.
func TestETAAfterResume(t *testing.T) {
	r := resumedRun{sizes: []float64{4e9, 2e9, 1e9, 5e8, 1e8, 3e9, 1e9, 8e8, 1e8, 4e6}, restored: 5, idle: 30 * time.Second, rate: 1e8}
	end := r.idle + time.Duration((3e9+1e9+8e8+1e8+4e6)/r.rate*float64(time.Second)) // 79.04 s of work after 30 s idle
	if e := EstimateOf(r.at(10 * time.Second)); e.HasETA || e.NodesPerSec != 0 {
		t.Errorf("while no worker ever came: ETA %v (known %v), rate %v; want unknown", e.ETA, e.HasETA, e.NodesPerSec)
	}
	for _, now := range []time.Duration{31 * time.Second, 40 * time.Second, 55 * time.Second, 70 * time.Second, 79 * time.Second} {
		s := r.at(now)
		e := EstimateOf(s)
		if !e.HasETA {
			t.Fatalf("at %v: no ETA", now)
		}
		if got := now + e.ETA; (got - end).Abs() > time.Second {
			t.Errorf("at %v: ETA %v says the run ends at %v, want %v", now, e.ETA, got, end)
		}
		if math.Abs(e.NodesPerSec-r.rate) > 1 {
			t.Errorf("at %v: rate %.0f nodes/s, want %.0f (idle time and restored work excluded)", now, e.NodesPerSec, r.rate)
		}
		// The old display (elapsed × tasks left / tasks done, restored
		// tasks counted as done) is far off at 31 s: that is the bug.
		if now == 31*time.Second {
			naive := time.Duration(float64(now) * float64(s.Summary.Tasks-s.Summary.Committed) / float64(s.Summary.Committed))
			if (now + naive - end).Abs() < 10*time.Second {
				t.Errorf("the task-count ETA %v is close to the truth; the scenario does not test anything", naive)
			}
		}
	}
	if e := EstimateOf(r.at(end + time.Second)); e.HasETA || e.Fraction != 1 {
		t.Errorf("after the end: ETA known %v, fraction %v; want no ETA and 1", e.HasETA, e.Fraction)
	}
}

func TestFit(t *testing.T) {
	text := strings.Join(BarText(newFakeJob(4).Status()), "  ")
	for _, w := range []int{200, 60, 30, 8, 3} {
		got := fit(text, w)
		if len(got) > w || !strings.HasPrefix(text, got) {
			t.Errorf("fit(%q, %d) = %q, want a prefix of at most %d characters", text, w, got, w)
		}
	}
	if got := fit(text, 14); got != "  0.0%  ETA ?" {
		t.Errorf("fit to 14 = %q, want the work done and the ETA", got)
	}
}

func TestFormatDuration(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{{3 * time.Second, "3.0s"}, {3400 * time.Millisecond, "3.4s"}, {42 * time.Second, "42s"}, {187 * time.Second, "3m07s"}, {7500 * time.Second, "2h05m"}} {
		if got := FormatDuration(tc.d); got != tc.want {
			t.Errorf("FormatDuration(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
}

// syncBuffer is a bytes.Buffer safe for a logger and a test at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

func TestProgressLines(t *testing.T) {
	job := newFakeJob(1000)
	for range 250 {
		job.Advance()
	}
	var out syncBuffer
	p := NewProgress(&out, ProgressLines, 20*time.Millisecond)
	log := hclog.New(&hclog.LoggerOptions{Output: p.Writer(), Level: hclog.Info})
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan struct{})
	go func() { defer close(ran); p.Run(ctx, job, log) }()
	// Wait for three lines (a loaded machine may be slow), then stop.
	deadline := time.Now().Add(10 * time.Second)
	for strings.Count(out.String(), "\n") < 3 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	<-ran
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) < 3 {
		t.Fatalf("%d progress lines in 10s at a 20ms interval, want several:\n%s", len(lines), out.String())
	}
	for _, want := range []string{"progress:", "work_percent=25.0", "tasks_done=10", "eta=", "workers=2"} {
		if !strings.Contains(lines[0], want) {
			t.Errorf("progress line %q lacks %q", lines[0], want)
		}
	}
}

// TestProgressHelper is the program TestProgressOnTerminal runs in tmux:
// a fake job advancing for about two seconds, a bar, and log lines.
func TestProgressHelper(t *testing.T) {
	if os.Getenv("NQUEENS_PROGRESS_HELPER") != "1" {
		t.Skip("runs only inside TestProgressOnTerminal")
	}
	job := newFakeJob(40)
	p := NewProgress(os.Stderr, ProgressBar, 0)
	log := hclog.New(&hclog.LoggerOptions{Output: p.Writer(), Level: hclog.Info, Name: "coordinator"})
	done := make(chan struct{})
	go func() {
		defer close(done)
		p.Run(context.Background(), job, log)
	}()
	for i := 1; i <= 40; i++ {
		time.Sleep(50 * time.Millisecond)
		job.Advance()
		if i%4 == 0 {
			log.Info("worker joined", "name", fmt.Sprintf("logline-%02d", i/4))
		}
	}
	<-done
	log.Info("finished", "name", "logline-final")
	fmt.Fprintln(os.Stdout, "N=15: 2279184 solutions")
}

// TestProgressOnTerminal runs TestProgressHelper on a real terminal (tmux)
// and reads the screen while it runs and after: every log line stands on
// its own line, above the bar, and no line holds both.
func TestProgressOnTerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a terminal")
	}
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux not installed: the terminal display was not tested")
	}
	sock := "nqueens-progress-" + strconv.Itoa(os.Getpid()) + "-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	tm := func(args ...string) (string, error) {
		out, err := exec.Command(tmux, append([]string{"-L", sock, "-f", "/dev/null"}, args...)...).CombinedOutput()
		return string(out), err
	}
	cmd := fmt.Sprintf("NQUEENS_PROGRESS_HELPER=1 %s -test.run='^TestProgressHelper$' -test.v=false; echo HELPER-EXITED; sleep 60", os.Args[0])
	if out, err := tm("new-session", "-d", "-s", "p", "-x", "160", "-y", "50", cmd); err != nil {
		t.Fatalf("tmux new-session: %v: %s", err, out)
	}
	defer tm("kill-server")
	var screens []string
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		// The visible screen (50 rows hold it all): tmux's history also
		// keeps what a clear-to-end-of-screen at the top row wiped
		// (scroll-on-clear), which a terminal no longer shows.
		screen, err := tm("capture-pane", "-p", "-t", "p")
		if err != nil {
			t.Fatalf("tmux capture-pane: %v", err)
		}
		screens = append(screens, screen)
		if strings.Contains(screen, "HELPER-EXITED") {
			break
		}
		time.Sleep(120 * time.Millisecond)
	}
	final := screens[len(screens)-1]
	if !strings.Contains(final, "HELPER-EXITED") {
		t.Fatalf("the helper did not end in 30s; screen:\n%s", final)
	}
	checkScreens(t, screens)
	// At the end: every log line in order, the bar gone, the answer last.
	var logs []string
	for _, line := range strings.Split(final, "\n") {
		if i := strings.Index(line, "logline-"); i >= 0 {
			logs = append(logs, line[i:])
		}
		if strings.Contains(line, "nodes/s") {
			t.Errorf("the bar is still on the screen after the end: %q", line)
		}
	}
	want := []string{"logline-01", "logline-02", "logline-03", "logline-04", "logline-05", "logline-06", "logline-07", "logline-08", "logline-09", "logline-10", "logline-final"}
	if strings.Join(logs, ",") != strings.Join(want, ",") {
		t.Errorf("log lines on the screen %v, want %v; screen:\n%s", logs, want, final)
	}
	if i, j := strings.Index(final, "logline-final"), strings.Index(final, "N=15: 2279184 solutions"); j < i || i < 0 {
		t.Errorf("the answer is not below the log lines; screen:\n%s", final)
	}
}

// checkScreens wants, on every screen, log lines and the bar on lines of
// their own, at most one bar, below every log line; and a bar on one.
func checkScreens(t *testing.T, screens []string) {
	t.Helper()
	sawBar := false
	for _, screen := range screens {
		lastLog, bar, bars := -1, -1, 0
		for i, line := range strings.Split(screen, "\n") {
			isLog, isBar := strings.Contains(line, "logline-") || strings.Contains(line, "[INFO]"), strings.Contains(line, "nodes/s")
			sawBar = sawBar || isBar
			switch {
			case isLog && isBar:
				t.Errorf("a log line and the bar share a line: %q", line)
			case isLog:
				lastLog = i
			case isBar:
				bars++
				bar = i
			}
		}
		if bar >= 0 && lastLog > bar {
			t.Errorf("the bar is above a log line:\n%s", screen)
		}
		if bars > 1 {
			t.Errorf("%d bars on one screen, want at most 1:\n%s", bars, screen)
		}
	}
	if !sawBar {
		t.Errorf("no capture showed the bar; last screen:\n%s", screens[len(screens)-1])
	}
}
