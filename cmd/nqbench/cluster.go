package main

// nqbench cluster: a load generator for the coordinator (issue 11, item 4).
// It starts a real coordinator process with no workers of its own, then K
// simulated workers, each on its own gRPC connection from its own loopback
// address, that speak the Work protocol exactly as package worker does but
// answer every Assign at once from a table of the plan's real per-task
// counts. What it measures is therefore the coordinator's own ceiling:
// commits per second, the Result-to-Ack latency, the coordinator's peak
// memory and its journal's size, with no solver CPU in the way.
//
//	nqbench cluster --n 16 --depth 5 --workers 1000 [--state FILE] [--slots S]

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/nqueens/nqueens/coordinator"
	"github.com/nqueens/nqueens/internal/cli"
	"github.com/nqueens/nqueens/internal/waitfor"
	nqueenspb "github.com/nqueens/nqueens/proto/nqueens/v1"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/worker"
)

const clusterUsage = `Usage: nqbench cluster --n N --depth D --workers K [flags]

Starts a real coordinator process (--workers 0) and K simulated workers, each
on its own gRPC connection, that answer every task at once from a table of
the plan's real per-task counts (computed once with the solver and cached).
It measures the coordinator alone and prints one JSON line; the exit status
is 1 when the coordinator's total is not the published count, 2 on bad usage.

With --synthetic every task is answered with total 2, fundamental 1 and no
solver at all, for plans whose real counts cannot be computed here (N=27 at
depth 5 has 988,030 tasks); exact then means the coordinator's total is
2 x tasks and its fundamental count the number of tasks: each task counted
exactly once.

With --runs the workers ask for runs of consecutive tasks, as package
worker does: one Assign and one Result carry up to 256 tasks, so the run
measures what the coordinator spends per task, not per message.

Flags:
`

// Limits and timeouts of the load generator.
const (
	// maxSimWorkers bounds --workers: every simulated worker needs its own
	// loopback source address and a socket on each side.
	maxSimWorkers = 60000
	// maxSimSlots bounds --slots, as the coordinator bounds JoinRequest.slots.
	maxSimSlots = 4096
	// defaultJoins bounds the Joins under way at once (--joins), so a
	// thousand workers reach the coordinator as a fast stream rather than
	// one burst.
	defaultJoins = 64
	// simJoinTimeout bounds one simulated worker's retries of Join.
	simJoinTimeout = 30 * time.Second
	// listenTimeout bounds the wait for the coordinator's "listening" line:
	// it builds the whole plan first, seconds for a million tasks.
	listenTimeout = 2 * time.Minute
	// drainWait bounds how long a drained worker waits for the coordinator
	// to end its stream after closing its own side.
	drainWait = 5 * time.Second
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
	coordinatorPkg = "github.com/nqueens/nqueens/cmd/coordinator"
)

// clusterConfig is the command line of nqbench cluster.
type clusterConfig struct {
	N, Depth, Workers int
	Slots, Prefetch   int
	State             string        // --state of the coordinator ("": no journal)
	Coordinator       string        // coordinator binary ("": go build it)
	Cache             string        // folder of count tables ("": os.UserCacheDir()/nqueens)
	Synthetic         bool          // answer total 2, unique 1 for every task, no table
	Batches           bool          // ask for batched messages, as package worker does
	Runs              bool          // ask for runs of tasks (Ready.runs), as package worker does
	Joins             int           // Joins in flight at once
	MinTasks          int           // the coordinator's --min-tasks (0: the plan's tasks, unsplit)
	Timeout           time.Duration // bound on the whole run
}

// clusterReport is the one JSON line nqbench cluster prints.
type clusterReport struct {
	N                   int     `json:"n"`
	Depth               int     `json:"depth"`
	Tasks               int     `json:"tasks"`
	Workers             int     `json:"workers"`
	Slots               int     `json:"slots"`
	Credits             int     `json:"credits"` // credits each worker grants (slots + prefetch)
	Journal             bool    `json:"journal"`
	Synthetic           bool    `json:"synthetic"`
	Batches             int     `json:"batched_workers"`    // workers whose coordinator agreed to batches
	Runs                bool    `json:"runs"`               // the workers asked for runs of tasks
	Leases              int     `json:"leases"`             // Assigns received (a run is one)
	CommitsPerSecond    float64 `json:"commits_per_second"` // commits / elapsed_seconds
	P50CommitMS         float64 `json:"p50_commit_ms"`
	P99CommitMS         float64 `json:"p99_commit_ms"` // Result sent to its Ack received
	MaxCommitMS         float64 `json:"max_commit_ms"`
	CoordinatorRSSMB    float64 `json:"coordinator_rss_mb"` // peak resident set (VmHWM)
	JournalBytesPerTask float64 `json:"journal_bytes_per_task"`
	ElapsedSeconds      float64 `json:"elapsed_seconds"`           // first Assign to last Ack
	JoinSeconds         float64 `json:"join_seconds"`              // first Assign to the last worker's first Assign
	SteadyCommitsPerSec float64 `json:"steady_commits_per_second"` // commits / time once every worker had its first Assign
	CoordinatorCPU      float64 `json:"coordinator_cpu_seconds"`   // user + system
	CPUPerTaskUS        float64 `json:"coordinator_cpu_us_per_task"`
	LoadgenCPU          float64 `json:"loadgen_cpu_seconds"` // this process's, while the workers ran
	WallSeconds         float64 `json:"wall_seconds"`        // coordinator start to its exit
	Commits             int     `json:"commits"`             // COMMITTED acks received
	NotCommitted        int     `json:"not_committed"`       // any other ack outcome
	Drained             int     `json:"drained"`             // workers that ended on the coordinator's Drain
	Late                int     `json:"late_workers"`        // joined as the job ended, never drained
	JoinAttempts        int     `json:"join_attempts"`
	JoinP99MS           float64 `json:"join_p99_ms"` // first Join call to success, p99 over joined workers
	AcksAfterDrain      int     `json:"acks_after_drain"`
	Total               uint64  `json:"total"`
	Unique              uint64  `json:"unique"`
	Exact               bool    `json:"exact"`
}

// errClusterUsage marks a bad command line (exit 2).
var errClusterUsage = errors.New("usage")

// clusterMain runs nqbench cluster and returns its exit status.
func clusterMain(args []string, stdout, stderr io.Writer) int {
	cfg, err := parseCluster(args, stdout)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err == nil {
		var rep clusterReport
		rep, err = runCluster(context.Background(), cfg, stderr)
		if err == nil {
			line, _ := json.Marshal(rep)
			fmt.Fprintln(stdout, string(line))
			if !rep.Exact {
				want, _ := expected(cfg.N, rep.Tasks, cfg.Synthetic)
				fmt.Fprintf(stderr, "nqbench cluster: total %d, fundamental %d; want %d and %d\n", rep.Total, rep.Unique, want.Total, want.Unique)
				return 1
			}
			return 0
		}
	}
	fmt.Fprintln(stderr, "nqbench cluster:", err)
	if errors.Is(err, errClusterUsage) {
		return 2
	}
	return 1
}

// parseCluster reads and checks the command line.
func parseCluster(args []string, help io.Writer) (clusterConfig, error) {
	var c clusterConfig
	fs := flag.NewFlagSet("nqbench cluster", flag.ContinueOnError)
	fs.IntVar(&c.N, "n", 0, "board size `N` (one with a published count, 1..27)")
	fs.IntVar(&c.Depth, "depth", 0, "plan depth `D` passed to the coordinator (0..7)")
	fs.IntVar(&c.Workers, "workers", 0, "simulated workers `K`, each on its own connection")
	fs.IntVar(&c.Slots, "slots", 1, "slots each simulated worker declares")
	fs.IntVar(&c.Prefetch, "prefetch", 2, "credits each worker grants beyond its slots")
	fs.StringVar(&c.State, "state", "", "journal `FILE` for the coordinator's --state (must not exist)")
	fs.StringVar(&c.Coordinator, "coordinator", "", "coordinator `BIN` to run (default: go build it into a temporary folder)")
	fs.BoolVar(&c.Batches, "batches", true, "ask for AssignBatch and AckBatch and answer with ResultBatch, as package worker does (false: one message per task)")
	fs.BoolVar(&c.Runs, "runs", false, "ask for runs of consecutive tasks, one lease and one Result each, as package worker does; each task then reports 1 µs, so the coordinator sizes runs as for tasks that short")
	fs.IntVar(&c.Joins, "joins", defaultJoins, "Joins in flight at once (the connection is dialled on the first)")
	fs.BoolVar(&c.Synthetic, "synthetic", false, "answer every task with total 2, fundamental 1 instead of its real counts (no solver, no table)")
	fs.IntVar(&c.MinTasks, "min-tasks", 0, "pass --min-tasks `M` to the coordinator, which then splits until at least M tasks are made (needs --synthetic: the split tasks are in no table)")
	fs.StringVar(&c.Cache, "cache", "", "`DIR` of cached count tables (default: the user cache folder's nqueens)")
	fs.DurationVar(&c.Timeout, "timeout", 30*time.Minute, "bound on the whole run")
	if err := cli.Parse(fs, args, help, clusterUsage); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return c, err
		}
		return c, fmt.Errorf("%w: %v (see nqbench cluster -h)", errClusterUsage, err)
	}
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s", errClusterUsage, fmt.Sprintf(format, a...))
	}
	switch {
	case fs.NArg() > 0:
		return c, bad("unexpected argument %q", fs.Arg(0))
	case c.Workers < 1 || c.Workers > maxSimWorkers:
		return c, bad("--workers %d out of range 1..%d", c.Workers, maxSimWorkers)
	case c.Slots < 1 || c.Slots > maxSimSlots:
		return c, bad("--slots %d out of range 1..%d", c.Slots, maxSimSlots)
	case c.Prefetch < 0 || c.Slots+c.Prefetch > maxSimSlots:
		return c, bad("--prefetch %d: want 0..%d", c.Prefetch, maxSimSlots-c.Slots)
	case c.Joins < 1:
		return c, bad("--joins %d must be at least 1", c.Joins)
	case c.MinTasks < 0 || c.MinTasks > 0 && !c.Synthetic:
		return c, bad("--min-tasks %d: want 0, or a count with --synthetic", c.MinTasks)
	case c.Timeout <= 0:
		return c, bad("--timeout %v must be positive", c.Timeout)
	}
	if k, ok := solver.Known(c.N); !ok || k.Total == 0 {
		return c, bad("--n %d: want a board with a published, non-zero count", c.N)
	}
	return c, nil
}

// runCluster runs one load test and returns its report. Progress goes to
// logw as plain lines.
func runCluster(ctx context.Context, cfg clusterConfig, logw io.Writer) (clusterReport, error) {
	ctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	rep := clusterReport{N: cfg.N, Depth: cfg.Depth, Workers: cfg.Workers, Slots: cfg.Slots,
		Credits: cfg.Slots + cfg.Prefetch, Journal: cfg.State != "", Synthetic: cfg.Synthetic, Runs: cfg.Runs}
	if err := raiseFileLimit(cfg.Workers + fileSlack); err != nil {
		return rep, err
	}
	newPlan := solver.NewPlan // the count table needs every prefix
	if cfg.Synthetic {
		newPlan = solver.NewLazyPlan // up to solver.MaxLazyTasks tasks
	}
	plan, err := newPlan(cfg.N, cfg.Depth, solver.KindCount)
	if err != nil {
		return rep, fmt.Errorf("%w: %v", errClusterUsage, err)
	}
	rep.Tasks = plan.Len()
	table := syntheticTable(plan.Len())
	if !cfg.Synthetic {
		if table, err = countTable(cfg.Cache, plan, logw); err != nil {
			return rep, err
		}
	}
	bin := cfg.Coordinator
	if bin == "" {
		dir, err := os.MkdirTemp("", "nqbench-cluster-*")
		if err != nil {
			return rep, err
		}
		defer os.RemoveAll(dir)
		if bin, err = buildCoordinator(ctx, dir); err != nil {
			return rep, err
		}
	}
	fmt.Fprintf(logw, "nqbench cluster: n=%d depth=%d tasks=%d workers=%d journal=%v\n", cfg.N, cfg.Depth, rep.Tasks, cfg.Workers, rep.Journal)
	co, err := startCoordinator(bin, cfg)
	if err != nil {
		return rep, err
	}
	cpu0 := selfCPU()
	sims, sum, err := drive(ctx, co, cfg, plan, table)
	if err != nil {
		return rep, err
	}
	if cfg.MinTasks > 0 { // the tasks to commit are the split tree's leaves
		rep.Tasks = sum.Tasks
		fmt.Fprintf(logw, "nqbench cluster: %d tasks made (%d split), %d committed\n", sum.Tasks+int(sum.Splits), sum.Splits, sum.Committed)
	}
	rep.LoadgenCPU = (selfCPU() - cpu0).Seconds()
	rep.WallSeconds = co.wall.Seconds()
	rep.CoordinatorCPU = co.cpu.Seconds()
	rep.CPUPerTaskUS = co.cpu.Seconds() * 1e6 / float64(max(rep.Tasks, 1))
	rep.CoordinatorRSSMB = float64(co.peakKB.Load()) / 1024
	rep.Total, rep.Unique = sum.Solutions, sum.Unique
	want, _ := expected(cfg.N, rep.Tasks, cfg.Synthetic)
	rep.Exact = sum.Complete && sum.Committed == rep.Tasks && sum.Solutions == want.Total && sum.Unique == want.Unique
	if cfg.State != "" && rep.Tasks > 0 {
		fi, err := os.Stat(cfg.State)
		if err != nil {
			return rep, fmt.Errorf("journal: %w", err)
		}
		rep.JournalBytesPerTask = float64(fi.Size()) / float64(rep.Tasks)
	}
	sims.fill(&rep)
	return rep, nil
}

// drive runs the simulated workers against a started coordinator until it
// exits, and returns the workers' measurements and the coordinator's
// summary. Every goroutine has ended when it returns.
func drive(ctx context.Context, co *coordProc, cfg clusterConfig, plan solver.Plan, table []solver.Counts) (simSet, coordinator.Summary, error) {
	var sum coordinator.Summary
	addr, err := co.listenAddr(ctx)
	if err != nil {
		co.kill()
		return nil, sum, err
	}
	wctx, stopWorkers := context.WithCancel(ctx)
	defer stopWorkers()
	sims := make(simSet, cfg.Workers)
	job := simJob{addr: addr, n: plan.N, depth: plan.Depth, tasks: plan.Len(), fingerprint: plan.Fingerprint(),
		table: table, slots: cfg.Slots, credits: cfg.Slots + cfg.Prefetch, batches: cfg.Batches, runs: cfg.Runs, synthetic: cfg.Synthetic}
	joins := make(chan struct{}, cfg.Joins)
	joining, stopJoining := context.WithCancel(wctx) // ended when the coordinator has exited
	defer stopJoining()
	errs := make(chan error, cfg.Workers)
	var wg sync.WaitGroup
	for i := range sims {
		sims[i] = &simWorker{job: &job, id: i, src: sourceAddr(i)}
		wg.Go(func() {
			if err := sims[i].run(wctx, joining, joins); err != nil {
				errs <- err
				stopWorkers() // one broken worker ends the run
			}
		})
	}
	exited := make(chan error, 1)
	go func() { exited <- co.wait() }()
	var coErr error
	workerFailed := false
	select {
	case coErr = <-exited:
	case <-wctx.Done(): // a worker failed, or the timeout
		// A worker that joins as the job ends finds the port closed: if
		// the coordinator is shutting down, it exits by itself at once.
		select {
		case coErr = <-exited:
		case <-time.After(drainWait):
			co.kill()
			coErr = <-exited
			workerFailed = true
		}
	}
	// Workers still joining when the job ended never get a Drain: they
	// stop at once. Those with a stream read what the coordinator sent
	// before it exited (their Drain, the last Acks), within drainWait: on
	// a slow machine the coordinator can exit before they have read them.
	stopJoining()
	if !waitfor.Group(&wg, drainWait) {
		stopWorkers()
		wg.Wait()
	}
	close(errs)
	switch {
	case ctx.Err() != nil:
		return nil, sum, fmt.Errorf("the run took longer than --timeout %v", cfg.Timeout)
	case workerFailed:
		return nil, sum, <-errs
	case coErr != nil:
		return nil, sum, coErr
	}
	if err := json.Unmarshal(co.stdout.Bytes(), &sum); err != nil {
		return nil, sum, fmt.Errorf("coordinator --json output: %v: %q", err, co.stdout.String())
	}
	return sims, sum, nil
}

// selfCPU is this process's user and system time so far.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

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

// sourceAddr is worker i's own loopback source address, 127.0.0.2 onwards
// with host bytes 0 and 255 skipped: the coordinator bounds unjoined
// connections per source address, and on Linux all of 127.0.0.0/8 is
// loopback.
func sourceAddr(i int) net.IP {
	p := uint32(i) + 1 // 127.0.0.1, position 0, is the coordinator's
	v := 0x7f000000 + p/254*256 + p%254 + 1
	return net.IPv4(byte(v>>24), byte(v>>16), byte(v>>8), byte(v))
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

// simJob is what every simulated worker shares: where to join, the plan it
// must be given, and the answers.
type simJob struct {
	addr            string
	n, depth, tasks int
	fingerprint     uint64
	table           []solver.Counts
	slots, credits  int
	batches         bool // ask for AssignBatch and AckBatch (JoinRequest.batches)
	runs            bool // ask for runs of tasks (Ready.runs)
	synthetic       bool // answer syntheticCounts for a split's children too
}

// simWorker is one simulated worker and what it measured.
type simWorker struct {
	job *simJob
	id  int
	src net.IP

	firstAssign, lastAck time.Time
	latencies            []time.Duration // Result sent to Ack received, per commit
	ackTimes             []int64         // when each commit's Ack came (Unix ns)
	commits, others      int
	leases               int // Assigns received
	drained              bool
	batches              bool // the session used batched messages
	joinAttempts         int
	joinTime             time.Duration // from the first Join call to the one that succeeded
	lateAcks             int           // Acks received after the Drain
}

// run connects, joins and works until the coordinator drains the worker.
// joins bounds the Joins in flight; once joining ends, a worker not yet
// joined gives up.
func (w *simWorker) run(ctx, joining context.Context, joins chan struct{}) error {
	dialer := func(ctx context.Context, addr string) (net.Conn, error) {
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: w.src}}
		return d.DialContext(ctx, "tcp", addr)
	}
	conn, err := grpc.NewClient("passthrough:///"+w.job.addr,
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithKeepaliveParams(worker.KeepaliveParams),
		grpc.WithContextDialer(dialer))
	if err != nil {
		return fmt.Errorf("worker %d: %w", w.id, err)
	}
	defer conn.Close()
	client := nqueenspb.NewCoordinatorServiceClient(conn)
	select {
	case joins <- struct{}{}:
	case <-joining.Done():
		return nil
	}
	jr, err := w.join(joining, client)
	<-joins
	if err != nil && joining.Err() != nil {
		return nil // the job ended before this worker joined
	}
	if err == nil {
		err = w.work(ctx, client, jr)
	}
	if err != nil && ctx.Err() != nil {
		return nil // stopped: the job ended before this worker's Drain
	}
	return err
}

// join calls Join until it succeeds, retrying an unavailable coordinator,
// and checks that the job is the plan the table answers.
func (w *simWorker) join(ctx context.Context, client nqueenspb.CoordinatorServiceClient) (*nqueenspb.JoinResponse, error) {
	req := &nqueenspb.JoinRequest{Name: fmt.Sprintf("sim-%d", w.id), Slots: uint32(w.job.slots), SolverVersion: solver.Version, Batches: w.job.batches}
	deadline := time.Now().Add(simJoinTimeout)
	pause := 50 * time.Millisecond
	start := time.Now()
	for {
		w.joinAttempts++
		actx, cancel := context.WithTimeout(ctx, 5*time.Second)
		jr, err := client.Join(actx, req, grpc.WaitForReady(true))
		cancel()
		if err == nil {
			j := jr.GetJob()
			if j.GetN() != uint32(w.job.n) || j.GetDepth() != uint32(w.job.depth) || j.GetTasks() != uint32(w.job.tasks) || j.GetPlanFingerprint() != w.job.fingerprint {
				return nil, fmt.Errorf("worker %d: coordinator runs n=%d depth=%d tasks=%d, not the plan of the table", w.id, j.GetN(), j.GetDepth(), j.GetTasks())
			}
			w.joinTime = time.Since(start)
			return jr, nil
		}
		c := status.Code(err)
		if (c != codes.Unavailable && c != codes.DeadlineExceeded) || time.Now().After(deadline) || ctx.Err() != nil {
			return nil, fmt.Errorf("worker %d: join from %v: %s", w.id, w.src, status.Convert(err).Message())
		}
		select {
		case <-time.After(pause):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		pause = min(2*pause, time.Second)
	}
}

// simSession is the state of one simulated Work stream.
type simSession struct {
	w         *simWorker
	stream    nqueenspb.CoordinatorService_WorkClient
	sendMu    sync.Mutex // serialises stream.Send: the receive loop and the heartbeat both send
	held      map[uint64]struct{}
	sent      map[uint32]time.Time // task index -> when its Result was sent
	runOf     map[uint32]int       // task index -> the tasks of the run it starts (runs only)
	batchesOn bool                 // both sides said batches: AssignBatch in, ResultBatch out
}

func (s *simSession) send(m *nqueenspb.WorkRequest) error {
	s.sendMu.Lock()
	defer s.sendMu.Unlock()
	return s.stream.Send(m)
}

// work runs the Work stream: Ready with the credits, then each Assign is
// answered at once with its Result and a Ready{1}, as a real worker's
// freed slot does, until Drain.
func (w *simWorker) work(ctx context.Context, client nqueenspb.CoordinatorServiceClient, jr *nqueenspb.JoinResponse) error {
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := client.Work(sctx)
	if err != nil {
		return fmt.Errorf("worker %d: work stream: %w", w.id, err)
	}
	s := &simSession{w: w, stream: stream, held: map[uint64]struct{}{}, sent: map[uint32]time.Time{}, runOf: map[uint32]int{},
		batchesOn: w.job.batches && jr.GetBatches()}
	w.batches = s.batchesOn
	ready := &nqueenspb.WorkRequest{Msg: &nqueenspb.WorkRequest_Ready{Ready: &nqueenspb.Ready{WorkerId: jr.GetWorkerId(), Credits: uint32(w.job.credits), Runs: w.job.runs}}}
	if err := s.send(ready); err != nil {
		return fmt.Errorf("worker %d: ready: %w", w.id, err)
	}
	hbStop := make(chan struct{})
	hbDone := make(chan struct{})
	go s.heartbeat(jr.GetHeartbeatInterval(), hbStop, hbDone)
	defer func() { close(hbStop); <-hbDone }()
	for {
		m, err := stream.Recv()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("worker %d: work stream ended without drain: %v", w.id, err)
		}
		switch m := m.GetMsg().(type) {
		case *nqueenspb.WorkResponse_Assign:
			if err := s.answer([]*nqueenspb.Assign{m.Assign}); err != nil {
				return fmt.Errorf("worker %d: %w", w.id, err)
			}
		case *nqueenspb.WorkResponse_AssignBatch:
			if err := s.answer(m.AssignBatch.GetAssigns()); err != nil {
				return fmt.Errorf("worker %d: %w", w.id, err)
			}
		case *nqueenspb.WorkResponse_Ack:
			s.acked(m.Ack)
		case *nqueenspb.WorkResponse_AckBatch:
			for _, a := range m.AckBatch.GetAcks() {
				s.acked(a)
			}
		case *nqueenspb.WorkResponse_Cancel:
			// Every Assign is answered before the next message is read,
			// so a Cancel always finds its task finished: nothing to stop.
		case *nqueenspb.WorkResponse_Drain:
			w.drained = true
			s.sendMu.Lock()
			stream.CloseSend()
			s.sendMu.Unlock()
			s.endStream(cancel)
			return nil
		}
	}
}

// endStream waits for the coordinator to end a drained stream, at most
// drainWait, then cancels it. Acks that come after the Drain still count.
func (s *simSession) endStream(cancel context.CancelFunc) {
	t := time.AfterFunc(drainWait, cancel)
	defer t.Stop()
	for {
		m, err := s.stream.Recv()
		if err != nil {
			return
		}
		acks := m.GetAckBatch().GetAcks()
		if a := m.GetAck(); a != nil {
			acks = append(acks, a)
		}
		for _, a := range acks {
			s.w.lateAcks++
			s.acked(a)
		}
	}
}

// answer sends the Results of Assigns from the table, and the credits of
// the slots they free: in one ResultBatch when the coordinator reads them,
// else as a Result and a Ready{1} each, as a real worker's freed slot does.
func (s *simSession) answer(as []*nqueenspb.Assign) error {
	if s.w.firstAssign.IsZero() {
		s.w.firstAssign = time.Now()
	}
	results := make([]*nqueenspb.Result, len(as))
	s.sendMu.Lock()
	for i, a := range as {
		results[i] = s.result(a)
		s.held[a.GetLeaseId()] = struct{}{}
		if a.GetRun() > 1 {
			s.runOf[a.GetTaskId().GetIndex()] = int(a.GetRun())
		}
	}
	s.w.leases += len(as)
	s.sendMu.Unlock()
	defer func() {
		s.sendMu.Lock()
		for _, a := range as {
			delete(s.held, a.GetLeaseId())
		}
		s.sendMu.Unlock()
	}()
	if s.batchesOn {
		now := time.Now()
		for _, r := range results {
			s.sent[r.GetTaskId().GetIndex()] = now
		}
		b := &nqueenspb.ResultBatch{Results: results, Credits: uint32(len(results))}
		if err := s.send(&nqueenspb.WorkRequest{Msg: &nqueenspb.WorkRequest_ResultBatch{ResultBatch: b}}); err != nil {
			return fmt.Errorf("result batch: %w", err)
		}
		return nil
	}
	for _, r := range results {
		s.sent[r.GetTaskId().GetIndex()] = time.Now()
		if err := s.send(&nqueenspb.WorkRequest{Msg: &nqueenspb.WorkRequest_Result{Result: r}}); err != nil {
			return fmt.Errorf("result: %w", err)
		}
		if err := s.send(&nqueenspb.WorkRequest{Msg: &nqueenspb.WorkRequest_Ready{Ready: &nqueenspb.Ready{Credits: 1}}}); err != nil {
			return fmt.Errorf("ready: %w", err)
		}
	}
	return nil
}

// result is an Assign's Result from the table: one task's counts, or
// each task's of a run and their sums. With --runs each task reports a
// microsecond.
func (s *simSession) result(a *nqueenspb.Assign) *nqueenspb.Result {
	idx, run := int(a.GetTaskId().GetIndex()), max(int(a.GetRun()), 1)
	res := &nqueenspb.Result{TaskId: a.GetTaskId(), LeaseId: a.GetLeaseId(), Elapsed: durationpb.New(0)}
	if s.w.job.runs {
		res.Elapsed = durationpb.New(time.Duration(run) * time.Microsecond)
	}
	if idx >= len(s.w.job.table) && run == 1 && s.w.job.synthetic { // a split's child (--min-tasks)
		res.Total, res.Unique, res.Nodes = syntheticCounts.Total, syntheticCounts.Unique, syntheticCounts.Nodes
		return res
	}
	if idx+run > len(s.w.job.table) || a.GetTaskId().GetPlanFingerprint() != s.w.job.fingerprint {
		res.Failure = fmt.Sprintf("tasks %d..%d are not in the plan of the table", idx, idx+run-1)
		return res
	}
	for _, c := range s.w.job.table[idx : idx+run] {
		res.Total, res.Unique, res.Nodes = res.Total+c.Total, res.Unique+c.Unique, res.Nodes+c.Nodes
		if a.GetRun() > 1 {
			res.RunCounts = append(res.RunCounts, c.Total, c.Unique, c.Nodes)
		}
	}
	return res
}

// acked records an Ack: the commit latency of its Result.
func (s *simSession) acked(a *nqueenspb.Ack) {
	now := time.Now()
	s.w.lastAck = now
	idx := a.GetTaskId().GetIndex()
	run := max(s.runOf[idx], 1)
	delete(s.runOf, idx)
	if a.GetOutcome() != nqueenspb.Ack_OUTCOME_COMMITTED {
		s.w.others++
		delete(s.sent, idx)
		return
	}
	s.w.commits += run // the tasks of a run are committed together
	if t, ok := s.sent[idx]; ok {
		s.w.latencies = append(s.w.latencies, now.Sub(t))
		for range run {
			s.w.ackTimes = append(s.w.ackTimes, now.UnixNano())
		}
		delete(s.sent, idx)
	}
}

// heartbeat renews the worker's leases at the interval the coordinator
// asked for, as a real worker does: the leases of tasks whose Result is
// not yet sent.
func (s *simSession) heartbeat(every *durationpb.Duration, stop, done chan struct{}) {
	defer close(done)
	d := every.AsDuration()
	if d <= 0 {
		d = 5 * time.Second
	}
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-t.C:
		case <-stop:
			return
		}
		s.sendMu.Lock()
		ids := make([]uint64, 0, len(s.held))
		for id := range s.held {
			ids = append(ids, id)
		}
		err := s.stream.Send(&nqueenspb.WorkRequest{Msg: &nqueenspb.WorkRequest_Heartbeat{Heartbeat: &nqueenspb.Heartbeat{LeaseIds: ids}}})
		s.sendMu.Unlock()
		if err != nil {
			return // the receive loop sees the broken stream
		}
	}
}

// simSet is every simulated worker of a run.
type simSet []*simWorker

// fill puts the workers' measurements into the report.
func (ss simSet) fill(rep *clusterReport) {
	var first, last, lastStart time.Time
	var lat, joins []time.Duration
	for _, w := range ss {
		rep.JoinAttempts += w.joinAttempts
		if w.joinTime > 0 {
			joins = append(joins, w.joinTime)
		}
		rep.Commits += w.commits
		rep.Leases += w.leases
		rep.NotCommitted += w.others
		rep.AcksAfterDrain += w.lateAcks
		if w.drained {
			rep.Drained++
		}
		if w.batches {
			rep.Batches++
		}
		if !w.drained {
			rep.Late++
		}
		lat = append(lat, w.latencies...)
		if !w.firstAssign.IsZero() {
			if first.IsZero() || w.firstAssign.Before(first) {
				first = w.firstAssign
			}
			if w.firstAssign.After(lastStart) {
				lastStart = w.firstAssign
			}
		}
		if w.lastAck.After(last) {
			last = w.lastAck
		}
	}
	if !first.IsZero() && last.After(first) {
		rep.ElapsedSeconds = last.Sub(first).Seconds()
		rep.CommitsPerSecond = float64(rep.Commits) / rep.ElapsedSeconds
		rep.JoinSeconds = lastStart.Sub(first).Seconds()
	}
	if last.After(lastStart) {
		steady := 0
		for _, w := range ss {
			for _, t := range w.ackTimes {
				if t >= lastStart.UnixNano() {
					steady++
				}
			}
		}
		rep.SteadyCommitsPerSec = float64(steady) / last.Sub(lastStart).Seconds()
	}
	slices.Sort(joins)
	rep.JoinP99MS = quantileMS(joins, 0.99)
	slices.Sort(lat)
	rep.P50CommitMS = quantileMS(lat, 0.50)
	rep.P99CommitMS = quantileMS(lat, 0.99)
	rep.MaxCommitMS = quantileMS(lat, 1)
}

// quantileMS is the q-quantile (nearest rank) of sorted durations, in
// milliseconds.
func quantileMS(sorted []time.Duration, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	i = min(max(i, 0), len(sorted)-1)
	return float64(sorted[i]) / float64(time.Millisecond)
}

// syntheticCounts is what --synthetic answers for every task: a plausible
// count (even, unique no more than total) that is not the truth.
var syntheticCounts = solver.Counts{Total: 2, Unique: 1, Nodes: 1}

// syntheticTable answers every task with syntheticCounts.
func syntheticTable(tasks int) []solver.Counts {
	t := make([]solver.Counts, tasks)
	for i := range t {
		t[i] = syntheticCounts
	}
	return t
}

// expected is the total an exact run reports: the board's published
// counts, or with synthetic answers theirs times the number of tasks.
func expected(n, tasks int, synthetic bool) (solver.Counts, bool) {
	if synthetic {
		return solver.Counts{Total: syntheticCounts.Total * uint64(tasks), Unique: syntheticCounts.Unique * uint64(tasks)}, true
	}
	return solver.Known(n)
}

// The count table: every task's counts, computed once by the solver and
// cached in a small binary file keyed by N, depth and solver version.
//
//	magic "NQCT" | format u32 | n u32 | depth u32 | solver version u32 |
//	tasks u32 | fingerprint u64 | tasks × (total, unique, nodes u64)
//
// all little-endian. A file that does not match the plan, or whose totals
// do not sum to the published count, is computed again.
const (
	tableMagic  = "NQCT"
	tableFormat = 1
	tableHeader = 4 + 5*4 + 8
)

// countTable returns the counts of every task of plan, from the cache when
// it holds them, else from the solver (then cached).
func countTable(dir string, plan solver.Plan, logw io.Writer) ([]solver.Counts, error) {
	if dir == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			return nil, fmt.Errorf("%w: no cache folder (%v): pass --cache DIR", errClusterUsage, err)
		}
		dir = filepath.Join(base, "nqueens")
	}
	path := filepath.Join(dir, fmt.Sprintf("counts-n%d-d%d-v%d.bin", plan.N, plan.Depth, solver.Version))
	if t, err := readTable(path, plan); err == nil {
		return t, nil
	}
	fmt.Fprintf(logw, "nqbench cluster: counting the %d tasks of n=%d depth=%d once for %s\n", len(plan.Tasks), plan.N, plan.Depth, path)
	t0 := time.Now()
	t, err := computeTable(plan, runtime.NumCPU())
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(logw, "nqbench cluster: counted in %.1f s\n", time.Since(t0).Seconds())
	if err := writeTable(path, plan, t); err != nil {
		fmt.Fprintf(logw, "nqbench cluster: count table not cached: %v\n", err)
	}
	return t, nil
}

// computeTable counts every task of plan on threads goroutines.
func computeTable(plan solver.Plan, threads int) ([]solver.Counts, error) {
	table := make([]solver.Counts, len(plan.Tasks))
	var next atomic.Int64
	var failed atomic.Pointer[error]
	var wg sync.WaitGroup
	for range max(threads, 1) {
		wg.Go(func() {
			for failed.Load() == nil {
				i := int(next.Add(1) - 1)
				if i >= len(plan.Tasks) {
					return
				}
				c, err := solver.CountTask(plan.N, plan.Tasks[i])
				if err != nil {
					failed.Store(&err)
					return
				}
				table[i] = c
			}
		})
	}
	wg.Wait()
	if p := failed.Load(); p != nil {
		return nil, *p
	}
	if err := checkTable(plan, table); err != nil {
		return nil, err
	}
	return table, nil
}

// checkTable checks that the table's counts sum to the published ones.
func checkTable(plan solver.Plan, table []solver.Counts) error {
	var sum solver.Counts
	for _, c := range table {
		var err error
		if sum, err = sum.Add(c); err != nil {
			return err
		}
	}
	if k, _ := solver.Known(plan.N); sum.Total != k.Total || sum.Unique != k.Unique {
		return fmt.Errorf("count table of n=%d sums to %d/%d, want %d/%d", plan.N, sum.Total, sum.Unique, k.Total, k.Unique)
	}
	return nil
}

// tableHead is the header a table file of plan must start with.
func tableHead(plan solver.Plan) []byte {
	b := make([]byte, 0, tableHeader)
	b = append(b, tableMagic...)
	for _, v := range []int{tableFormat, plan.N, plan.Depth, solver.Version, len(plan.Tasks)} {
		b = binary.LittleEndian.AppendUint32(b, uint32(v))
	}
	return binary.LittleEndian.AppendUint64(b, plan.Fingerprint())
}

func readTable(path string, plan solver.Plan) ([]solver.Counts, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	head := tableHead(plan)
	if len(b) != len(head)+24*len(plan.Tasks) || !bytes.Equal(b[:len(head)], head) {
		return nil, fmt.Errorf("%s: not the table of this plan", path)
	}
	t := make([]solver.Counts, len(plan.Tasks))
	for i, rec := 0, b[len(head):]; i < len(t); i, rec = i+1, rec[24:] {
		t[i] = solver.Counts{Total: binary.LittleEndian.Uint64(rec), Unique: binary.LittleEndian.Uint64(rec[8:]), Nodes: binary.LittleEndian.Uint64(rec[16:])}
	}
	if err := checkTable(plan, t); err != nil {
		return nil, err
	}
	return t, nil
}

// writeTable writes the table next to its final name and renames it, so
// a reader never sees half a file.
func writeTable(path string, plan solver.Plan, t []solver.Counts) error {
	b := tableHead(plan)
	for _, c := range t {
		b = binary.LittleEndian.AppendUint64(b, c.Total)
		b = binary.LittleEndian.AppendUint64(b, c.Unique)
		b = binary.LittleEndian.AppendUint64(b, c.Nodes)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}
