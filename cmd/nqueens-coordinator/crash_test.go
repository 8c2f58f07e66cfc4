package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/nqueens/nqueens/journal"
)

// crashRunTimeout bounds one coordinator run of the crash test (N=17 on
// two embedded workers takes about 12 s of a 2-core machine).
const crashRunTimeout = 3 * time.Minute

// crashSeed returns the seed of the crash test's kill moments:
// NQUEENS_CRASH_SEED when set (to replay a failure), else the clock.
func crashSeed(t *testing.T) uint64 {
	t.Helper()
	if s := os.Getenv("NQUEENS_CRASH_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("NQUEENS_CRASH_SEED=%q: %v", s, err)
		}
		return v
	}
	return uint64(time.Now().UnixNano())
}

// TestCrashResumeN17: the real coordinator
// counts N=17 on two embedded workers with --state; it is SIGKILLed three
// times at random moments (each when a seeded random number of tasks is
// committed, plus a random delay) and resumed with --resume each time. The
// last run prints 95815104 and exits 0; the journal then holds every task
// exactly once, and the restored task counts never go down (nothing an
// acknowledged commit wrote was lost).
func TestCrashResumeN17(t *testing.T) {
	crashResume(t, 17, 95815104, 11977939)
}

// TestCrashResumeSplits is the crash test on a split-heavy run: N=16 from a plan of depth 1 with a task target of 2 ms, so the
// coordinator splits tasks to depth 6 and more all along the run, and is
// killed between a split and the commits of its children. The journal
// must replay to the same tasks: the last run counts exactly, and the
// journal commits every task that was never split exactly once.
func TestCrashResumeSplits(t *testing.T) {
	crashResume(t, 16, 14772512, 1846955, "--depth", "1", "--task-target", "2ms")
}

// crashResume runs the crash test on an n-board whose counts are total
// and unique, with extra flags.
func crashResume(t *testing.T, n int, total, unique uint64, extra ...string) {
	coordBin, _ := binaries(t)
	seed := crashSeed(t)
	rng := rand.New(rand.NewPCG(seed, uint64(n)))
	t.Logf("kill moments seeded with NQUEENS_CRASH_SEED=%d", seed)

	c := &crashRuns{t: t, bin: coordBin, state: filepath.Join(t.TempDir(), "crash.state"), started: time.Now()}
	c.args = append([]string{"--n", strconv.Itoa(n), "--workers", "2", "--listen", "127.0.0.1:0", "--state", c.state, "--json",
		"--progress", "log", "--progress-interval", "20ms"}, extra...)
	// Kill when a random fraction of the tasks is committed: sorted, so each
	// resumed run has some way to go, and below 80%, so the job is not done
	// before the kill even with a much faster solver. A fraction the run
	// restored already means a kill right after its first progress line,
	// while it is starting up.
	fracs := []float64{0.05 + 0.75*rng.Float64(), 0.05 + 0.75*rng.Float64(), 0.05 + 0.75*rng.Float64()}
	slices.Sort(fracs)
	for kill, frac := range fracs {
		if c.killAt(kill, frac, time.Duration(rng.IntN(100))*time.Millisecond) {
			break // the job ended before the kill: the final resume checks it
		}
	}
	tasks := c.finalResume(total, unique)
	// The journal: every task committed exactly once, and its results alone
	// give the exact count.
	rp, err := journal.Read(c.state)
	if err != nil {
		t.Fatalf("journal at the end: %v", err)
	}
	checkJournalTasks(t, rp, n, total, tasks)
}

// crashRuns is one crash test's coordinator runs on one journal.
type crashRuns struct {
	t        *testing.T
	bin      string
	args     []string
	state    string
	started  time.Time
	restored int // committed tasks the last resume restored
	tasks    int // the tasks the last progress line counted
}

// crashRun is one coordinator process of a crash test.
type crashRun struct {
	cmd        *exec.Cmd
	logs       *lineWatcher
	progressed chan [2]int // tasks done, tasks, from its progress lines
	exited     chan error
}

// start starts run number kill (a resume after the first).
func (c *crashRuns) start(kill int) *crashRun {
	args := c.args
	if kill > 0 {
		args = append(slices.Clone(c.args), "--resume")
	}
	r := &crashRun{cmd: exec.Command(c.bin, args...), logs: &lineWatcher{}, progressed: make(chan [2]int, 64), exited: make(chan error, 1)}
	cerr, err := r.cmd.StderrPipe()
	if err != nil {
		c.t.Fatal(err)
	}
	r.logs.onEach(`progress: tasks_done=(\d+) tasks=(\d+)`, func(m []string) {
		done, _ := strconv.Atoi(m[1])
		total, _ := strconv.Atoi(m[2])
		select {
		case r.progressed <- [2]int{done, total}:
		default:
		}
	})
	if err := r.cmd.Start(); err != nil {
		c.t.Fatal(err)
	}
	go r.logs.run(cerr)
	go func() { r.exited <- r.cmd.Wait() }()
	return r
}

// awaitProgress waits until run kill reports frac of its tasks done, and
// reports whether it finished the job first.
func (c *crashRuns) awaitProgress(r *crashRun, kill int, frac float64) (finished bool) {
	timeout := time.After(crashRunTimeout)
	for {
		select {
		case p := <-r.progressed:
			c.tasks = p[1]
			if float64(p[0]) >= frac*float64(p[1]) {
				return false
			}
		case err := <-r.exited:
			if kill > 0 && err == nil {
				// The kill before came late (splitting makes the task
				// count grow under the fractions): this run finished the
				// job. The final resume checks it.
				c.t.Logf("run %d finished the job before its kill at %.0f%%", kill+1, 100*frac)
				return true
			}
			c.t.Fatalf("run %d ended before its kill at %.0f%% of the tasks: %v\n%s", kill+1, 100*frac, err, r.logs)
		case <-timeout:
			r.cmd.Process.Kill()
			c.t.Fatalf("run %d: no progress to %.0f%% within %v:\n%s", kill+1, 100*frac, crashRunTimeout, r.logs)
		}
	}
}

// killAt runs the coordinator (number kill) until frac of the tasks are
// done, waits delay and SIGKILLs it; it checks that the run restored no
// fewer commits than the one before, and reports whether the job ended
// before the kill.
func (c *crashRuns) killAt(kill int, frac float64, delay time.Duration) (finished bool) {
	t := c.t
	r := c.start(kill)
	if c.awaitProgress(r, kill, frac) {
		return true
	}
	time.Sleep(delay)
	if err := r.cmd.Process.Signal(syscall.SIGKILL); errors.Is(err, os.ErrProcessDone) {
		if err := <-r.exited; err != nil {
			t.Fatalf("run %d ended before its kill: %v\n%s", kill+1, err, r.logs)
		}
		t.Logf("run %d finished the job in the %v before its kill", kill+1, delay)
		return true
	} else if err != nil {
		t.Fatalf("run %d: SIGKILL: %v", kill+1, err)
	}
	<-r.exited
	if m := regexp.MustCompile(`resuming: .*committed_tasks=(\d+)`).FindStringSubmatch(r.logs.String()); kill > 0 {
		if m == nil {
			t.Fatalf("run %d did not resume:\n%s", kill+1, r.logs)
		}
		n, _ := strconv.Atoi(m[1])
		if n < c.restored {
			t.Errorf("run %d restored %d committed tasks, the run before restored %d: commits were lost", kill+1, n, c.restored)
		}
		c.restored = n
	}
	rp, err := journal.Read(c.state)
	if err != nil {
		t.Fatalf("journal after kill %d: %v", kill+1, err)
	}
	t.Logf("kill %d at %.0f%% of %d tasks + %v: journal holds %d tasks (torn tail: %v), %v since the start",
		kill+1, 100*frac, c.tasks, delay, len(rp.Records), rp.Repaired != nil, time.Since(c.started).Round(time.Millisecond))
	return false
}

// finalResume resumes once more to the end: the count must be exact and
// complete. It returns the job's tasks.
func (c *crashRuns) finalResume(total, unique uint64) int {
	t := c.t
	final := exec.Command(c.bin, append(slices.Clone(c.args), "--resume")...)
	var stdout, stderr bytes.Buffer
	final.Stdout, final.Stderr = &stdout, &stderr
	if err := final.Start(); err != nil {
		t.Fatal(err)
	}
	if err := waitProcFor(final, crashRunTimeout); err != nil {
		t.Fatalf("last resumed run: %v, want exit 0\n%s", err, stderr.String())
	}
	var got struct {
		Solutions, Unique uint64
		Tasks, Committed  int
		Complete          bool
	}
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatalf("stdout %q: %v", stdout.String(), err)
	}
	if got.Solutions != total || got.Unique != unique || !got.Complete {
		t.Errorf("after the kills the count is %s; want %d solutions, %d fundamental, complete", stdout.String(), total, unique)
	}
	t.Logf("kills and resumes: %d tasks, %v in all", got.Tasks, time.Since(c.started).Round(time.Millisecond))
	return got.Tasks
}

// checkJournalTasks checks a finished job's journal: every task that was
// never split (tasks of them) is committed exactly once, nothing else is,
// and the results add up to total.
func checkJournalTasks(t *testing.T, rp journal.Replay, n int, total uint64, tasks int) {
	t.Helper()
	if rp.Settings.N != n {
		t.Errorf("journal settings n=%d, want %d", rp.Settings.N, n)
	}
	all := rp.Settings.Tasks
	split := map[int]bool{}
	for _, sp := range rp.Splits {
		split[sp.Parent] = true
		all += sp.Count
	}
	if leaves := all - len(split); leaves != tasks {
		t.Errorf("the journal's plan and splits make %d tasks to commit, the run reported %d", leaves, tasks)
	}
	seen := make(map[int]int, len(rp.Records))
	var sum uint64
	for _, r := range rp.Records {
		seen[r.Index]++
		sum += r.Total
		if seen[r.Index] == 2 {
			t.Errorf("task %d is committed twice in the journal", r.Index)
		}
		if r.Index < 0 || r.Index >= all || split[r.Index] {
			t.Errorf("journal commits task %d, not one of the %d tasks never split", r.Index, tasks)
		}
	}
	if len(seen) != tasks || len(rp.Records) != tasks {
		t.Errorf("journal holds %d records of %d distinct tasks, want each of the %d tasks once", len(rp.Records), len(seen), tasks)
	}
	if sum != total {
		t.Errorf("the journal's results add up to %d solutions, want %d", sum, total)
	}
}
