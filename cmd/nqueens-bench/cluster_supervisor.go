package main

// The supervisor of the coordinator process: build it, start it, find its
// address, follow its log and memory, and collect its CPU time and exit.

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Limits and timeouts of the supervisor.
const (
	// listenTimeout bounds the wait for the coordinator's "listening" line:
	// it builds the whole plan first, seconds for a million tasks.
	listenTimeout = 2 * time.Minute
	// rssEvery is how often the coordinator's VmHWM is read.
	rssEvery = 100 * time.Millisecond
	// stderrTail is how many of the coordinator's last log lines an error
	// quotes.
	stderrTail = 20
	// fileSlack is the open files each process needs beyond one socket per
	// worker: the coordinator's journal, listener and pipes, this
	// process's binaries and the Go runtime's own.
	fileSlack = 256
	// coordinatorPkg is what is built when --coordinator is not given.
	coordinatorPkg = "github.com/nqueens/nqueens/cmd/nqueens-coordinator"
)

// raiseFileLimit lifts RLIMIT_NOFILE to the hard limit, which must be at
// least want: one socket per simulated worker here, and one per worker in
// the coordinator, which inherits the limit. Setting it explicitly keeps Go
// from giving the child process the original, lower soft limit back.
func raiseFileLimit(want int) error {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return fmt.Errorf("file limit: %w", err)
	}
	if lim.Max < uint64(want) {
		return fmt.Errorf("%w: %d workers need %d open files, the hard limit is %d (raise it with ulimit -Hn)", errClusterUsage, want-fileSlack, want, lim.Max)
	}
	lim.Cur = lim.Max
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return fmt.Errorf("file limit: %w", err)
	}
	return nil
}

// buildCoordinator builds the coordinator command into dir; the go tool
// must be on PATH and the working directory inside the module.
func buildCoordinator(ctx context.Context, dir string) (string, error) {
	out := filepath.Join(dir, "coordinator")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out, coordinatorPkg)
	msg, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build %s (run inside the module, or pass --coordinator BIN): %v: %s", coordinatorPkg, err, strings.TrimSpace(string(msg)))
	}
	return out, nil
}

// coordProc is a running coordinator process.
type coordProc struct {
	cmd    *exec.Cmd
	stdout bytes.Buffer // its --json summary
	addrCh chan string  // the bound address, once
	logged chan struct{}
	mu     sync.Mutex
	tail   []string // its last log lines
	peakKB atomic.Int64
	start  time.Time
	wall   time.Duration
	cpu    time.Duration // user + system, once it has exited
	stopRS chan struct{}
}

// listenLine finds the bound address in the coordinator's log line.
var listenLine = regexp.MustCompile(`listening: addr=(\S+)`)

// startCoordinator starts bin with no workers of its own on a free
// loopback port.
func startCoordinator(bin string, cfg clusterConfig) (*coordProc, error) {
	// --split=false: the simulated workers answer from a table of the
	// plan's tasks, so the coordinator must keep them as they are.
	args := []string{"--n", strconv.Itoa(cfg.N), "--depth", strconv.Itoa(cfg.Depth), "--workers", "0", "--split=false",
		"--listen", "127.0.0.1:0", "--progress", "off", "--json"}
	if cfg.State != "" {
		args = append(args, "--state", cfg.State)
	}
	if cfg.Synthetic {
		args = append(args, "--synthetic-load")
	}
	if cfg.MinTasks > 0 { // the last --split wins
		args = append(args, "--split=true", "--min-tasks", strconv.Itoa(cfg.MinTasks))
	}
	c := &coordProc{cmd: exec.Command(bin, args...), addrCh: make(chan string, 1),
		logged: make(chan struct{}), stopRS: make(chan struct{})}
	c.cmd.Stdout = &c.stdout
	stderr, err := c.cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	c.start = time.Now()
	if err := c.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start coordinator: %w", err)
	}
	go c.readLog(stderr)
	go c.sampleRSS()
	return c, nil
}

// readLog keeps the coordinator's last log lines and hands on the bound
// address.
func (c *coordProc) readLog(r io.Reader) {
	defer close(c.logged)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	found := false
	for sc.Scan() {
		line := sc.Text()
		if m := listenLine.FindStringSubmatch(line); m != nil && !found {
			found = true
			c.addrCh <- m[1]
		}
		c.mu.Lock()
		c.tail = append(c.tail, line)
		if len(c.tail) > stderrTail {
			c.tail = c.tail[1:]
		}
		c.mu.Unlock()
	}
}

// sampleRSS records the coordinator's peak resident set (VmHWM) until it
// exits.
func (c *coordProc) sampleRSS() {
	t := time.NewTicker(rssEvery)
	defer t.Stop()
	path := fmt.Sprintf("/proc/%d/status", c.cmd.Process.Pid)
	for {
		if kb, ok := vmHWM(path); ok && kb > c.peakKB.Load() {
			c.peakKB.Store(kb)
		}
		select {
		case <-t.C:
		case <-c.stopRS:
			return
		}
	}
}

// vmHWM reads the VmHWM line of a /proc status file, in KiB.
func vmHWM(path string) (int64, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			f := strings.Fields(rest)
			if len(f) > 0 {
				kb, err := strconv.ParseInt(f[0], 10, 64)
				return kb, err == nil
			}
		}
	}
	return 0, false
}

// listenAddr waits for the coordinator's bound address.
func (c *coordProc) listenAddr(ctx context.Context) (string, error) {
	select {
	case a := <-c.addrCh:
		return a, nil
	case <-c.logged:
		select {
		case a := <-c.addrCh:
			return a, nil
		default:
		}
		c.cmd.Wait()
		return "", fmt.Errorf("coordinator exited before listening: %s", c.lastLog())
	case <-time.After(listenTimeout):
		return "", fmt.Errorf("coordinator did not log its address within %v: %s", listenTimeout, c.lastLog())
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// wait waits for the coordinator to exit; a failed exit comes back with
// its last log lines. The peak memory is the last VmHWM sampled, not
// wait4's maxrss: the kernel starts a child's maxrss at its parent's
// high-water mark when the child execs, so maxrss reported this load
// generator's own memory (165 MB) for a coordinator that peaked at 79.
func (c *coordProc) wait() error {
	err := c.cmd.Wait()
	c.wall = time.Since(c.start)
	c.cpu = c.cmd.ProcessState.UserTime() + c.cmd.ProcessState.SystemTime()
	close(c.stopRS)
	<-c.logged
	if err != nil {
		return fmt.Errorf("coordinator: %v: %s", err, c.lastLog())
	}
	return nil
}

// kill stops the coordinator at once.
func (c *coordProc) kill() { c.cmd.Process.Kill() }

func (c *coordProc) lastLog() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return strings.Join(c.tail, "\n")
}
