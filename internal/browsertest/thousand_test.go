package browsertest_test

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/hashicorp/go-hclog"

	"github.com/nqueens/nqueens/internal/browsertest"
	"github.com/nqueens/nqueens/status"
	"github.com/nqueens/nqueens/worker"
)

var long = flag.Bool("long", false, "measure the coordinator's CPU for open dashboards over more rounds (TestDashboardThousandRealWorkers)")

// The real cluster of TestDashboardThousandRealWorkers: a coordinator
// process counting N=20 at depth 1 with the backtracker, tasks kept whole:
// 9 tasks of hours each, so 9 workers compute and 991 stay idle
// (holding no lease) for the whole test, a steady state to watch and
// measure. Heartbeats come at the default interval (lease/6, 5 s).
const (
	realWorkers    = 1000
	realTasks      = 9
	joinAllTimeout = 2 * time.Minute
	// pagesMeasured is how many open dashboards the CPU measurement
	// compares with none.
	pagesMeasured = 10
)

var coordinatorArgs = []string{"--n", "20", "--depth", "1", "--engine", "backtrack", "--split=false", "--workers", "0",
	"--listen", "127.0.0.1:0", "--http", "127.0.0.1:0", "--progress", "off"}

// coordProc is the coordinator process and its two addresses.
type coordProc struct {
	cmd        *exec.Cmd
	grpc, http string
}

// coordinatorEnv names a coordinator binary to measure instead of this
// tree's (another build, to compare).
const coordinatorEnv = "NQTEST_COORDINATOR"

// startCoordinator builds cmd/nqueens-coordinator (or takes $NQTEST_COORDINATOR)
// and starts it with args, without a token, until the test ends.
func startCoordinator(t *testing.T, args ...string) coordProc {
	t.Helper()
	bin := os.Getenv(coordinatorEnv)
	if bin == "" {
		bin = filepath.Join(t.TempDir(), "coordinator")
		if out, err := exec.Command("go", "build", "-o", bin, "github.com/nqueens/nqueens/cmd/nqueens-coordinator").CombinedOutput(); err != nil {
			t.Fatalf("go build cmd/nqueens-coordinator: %v\n%s", err, out)
		}
	} else {
		t.Logf("measuring %s=%s", coordinatorEnv, bin)
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "NQUEENS_") })
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	addrs := make(chan [2]string, 1)
	go func() {
		addr := regexp.MustCompile(`listening: addr=(\S+)`)
		out := addrs // set to nil once sent: its own copy, not the test's
		var g, h string
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			m := addr.FindStringSubmatch(sc.Text())
			switch {
			case m == nil:
			case strings.Contains(sc.Text(), "status server"):
				h = m[1]
			default:
				g = m[1]
			}
			if g != "" && h != "" && out != nil {
				out <- [2]string{g, h}
				out = nil
			}
		}
		io.Copy(io.Discard, stderr)
	}()
	select {
	case a := <-addrs:
		return coordProc{cmd: cmd, grpc: a[0], http: "http://" + a[1]}
	case <-time.After(time.Minute):
		t.Fatal("the coordinator logged no listening addresses within a minute")
	}
	return coordProc{}
}

// swarmEnv, when set to a coordinator's address, makes the test binary
// the worker swarm of TestDashboardThousandRealWorkers (TestMain): its
// workers' tasks take minutes and cannot be stopped midway, so they run
// in a process of their own that the test kills at its end.
const swarmEnv = "NQTEST_WORKER_SWARM"

func TestMain(m *testing.M) {
	if addr := os.Getenv(swarmEnv); addr != "" {
		os.Exit(runSwarm(addr))
	}
	os.Exit(m.Run())
}

// runSwarm runs realWorkers sessions of package worker against addr
// until the process is killed, one slot each, one task per lease and
// none prefetched, so each holds at most one task.
func runSwarm(addr string) int {
	var workers sync.WaitGroup
	for i := range realWorkers {
		workers.Go(func() {
			cfg := worker.Config{Join: addr, Slots: 1, Prefetch: -1, NoRuns: true, Quiet: true, Name: fmt.Sprintf("w%04d", i), JoinTimeout: joinAllTimeout}
			if err := worker.Run(context.Background(), cfg, hclog.NewNullLogger()); err != nil {
				fmt.Fprintf(os.Stderr, "worker %d: %v\n", i, err)
			}
		})
	}
	workers.Wait()
	return 1
}

// startSwarm starts the test binary as the worker swarm (runSwarm) on
// one core (GOMAXPROCS=1: the 9 computing workers and the thousand
// sessions' gRPC share it; the coordinator and the browser keep the rest
// of the machine) until the test ends.
func startSwarm(t *testing.T, addr string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), swarmEnv+"="+addr, "GOMAXPROCS=1")
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
}

// cpu is the process's user and system CPU time so far, from
// /proc/PID/stat (in clock ticks of 10 ms).
func (c coordProc) cpu(t *testing.T) time.Duration {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", c.cmd.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	utime, _ := strconv.ParseInt(f[11], 10, 64) // fields 14 and 15 of stat(5)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

// apiStatus reads the coordinator's /api/status?workers=50.
func (c coordProc) apiStatus(t *testing.T) status.APIStatus {
	t.Helper()
	resp, err := http.Get(c.http + "/api/status?workers=" + strconv.Itoa(status.DefaultPageWorkers))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var a status.APIStatus
	if err := json.NewDecoder(resp.Body).Decode(&a); err != nil {
		t.Fatal(err)
	}
	return a
}

// TestDashboardThousandRealWorkers opens the dashboard of a real
// coordinator process with a thousand real worker sessions (package
// worker, each on its own gRPC connection over loopback, in a process of
// their own: startSwarm):
// the page shows the count by state over all of them (9 computing, 991
// idle), the 50 rows the server picks, rows that change as heartbeats come
// in, and stays live. Then it measures the coordinator's CPU with no
// dashboard open and with ten (readers of /events, the page's stream, with
// the list shown and hidden), in interleaved rounds; -long runs more.
func TestDashboardThousandRealWorkers(t *testing.T) {
	if testing.Short() {
		t.Skip("a thousand workers: not with -short")
	}
	if browsertest.Find() == "" {
		t.Skip("no Chromium found (browsertest.Find)")
	}
	c := startCoordinator(t, coordinatorArgs...)
	startSwarm(t, c.grpc)
	deadline := time.Now().Add(joinAllTimeout)
	for a := c.apiStatus(t); a.WorkerStates.Total != realWorkers || a.WorkerStates.Idle != realWorkers-realTasks; a = c.apiStatus(t) {
		if time.Now().After(deadline) {
			t.Fatalf("after %v: %+v, want %d workers, %d idle", joinAllTimeout, a.WorkerStates, realWorkers, realWorkers-realTasks)
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Logf("%d workers joined, %d computing, in %v", realWorkers, realTasks, time.Until(deadline.Add(-joinAllTimeout)).Abs().Round(time.Second))
	if os.Getenv(coordinatorEnv) == "" { // another build serves another page
		ctx := browser(t) // its Timeout starts now
		checkThousandPage(t, ctx, c)
		if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
			t.Fatal(err)
		}
	}
	measurePageCPU(t, c)
}

// checkThousandPage: the page's summary by state, its 50 rows (those the
// server picks: no worker has committed anything, so the 50 first by
// name), and rows that update.
func checkThousandPage(t *testing.T, ctx context.Context, c coordProc) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.Navigate(c.http+"/"), chromedp.WaitVisible(chromedp.CSS("#workers tr.worker"))); err != nil {
		t.Fatal(err)
	}
	// Working, late and silent shift as heartbeats come and go; they add
	// up to the thousand, of which 991 hold no lease.
	states := pageText(ctx, "wstates")
	if m := wstatesRE.FindStringSubmatch(states); m == nil || atoi(m[1])+atoi(m[2])+atoi(m[3]) != realWorkers ||
		atoi(m[4]) != realWorkers-realTasks || atoi(m[5]) != status.DefaultPageWorkers || atoi(m[6]) != realWorkers {
		t.Errorf("#wstates shows %q, want working, late and silent adding up to %d, %d idle, showing %d of %d", states, realWorkers, realWorkers-realTasks, status.DefaultPageWorkers, realWorkers)
	}
	if got := pageText(ctx, "nworkers"); got != strconv.Itoa(realWorkers) {
		t.Errorf("#nworkers shows %q, want %d", got, realWorkers)
	}
	var wantNames []string
	for _, w := range c.apiStatus(t).WorkersAttached {
		wantNames = append(wantNames, w.Name)
	}
	names, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#workers tr.worker .wname")].map(e => e.textContent)`))
	if err != nil || !slices.Equal(names, wantNames) || len(names) != status.DefaultPageWorkers {
		t.Errorf("the table's rows are %v (%v), want /api/status?workers=50's %v", names, err, wantNames)
	}
	// Each heartbeat changes a row's last_seen: within a few seconds the
	// stream has brought more rows than its first full 50, though far
	// from all 50 every message.
	if err := waitFor(ctx, `window.nqueensStream.rows >= 100 && window.nqueensStream.messages >= 5`); err != nil {
		t.Errorf("rows did not update: %v", err)
	}
	got, err := chromedp.Run(ctx, chromedp.Evaluate[streamCounts](`window.nqueensStream`))
	if err != nil {
		t.Fatal(err)
	}
	if got.Full != 1 || got.Rows >= got.Messages*status.DefaultPageWorkers {
		t.Errorf("the stream brought %+v: want one full message, then fewer than 50 rows a message", got)
	}
	t.Logf("the page's stream: %+v (%.1f rows a message, of %d shown)", got, float64(got.Rows)/float64(got.Messages), status.DefaultPageWorkers)
	screenshot(t, ctx, "dashboard-1000-real-workers.png")
}

// wstatesRE reads the page's count by state (renderStates).
var wstatesRE = regexp.MustCompile(`^(\d+) working · (?:(\d+) late · )?(?:(\d+) silent · )?(\d+) idle · showing the (\d+) silent and slowest of (\d+)$`)

// atoi is strconv.Atoi for the numbers wstatesRE found ("" is 0).
func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// pageLoad is one condition of the measurement: how many /events
// readers, and with which query.
type pageLoad struct {
	name  string
	pages int
	query string
}

// measurePageCPU measures the coordinator's CPU per second with no
// dashboard, with pagesMeasured showing the worker list, and with as many
// hiding it, in rounds that take the three in turn (so a drift of the
// workers' load falls on all three alike), and logs each mean and the
// cost of one page.
func measurePageCPU(t *testing.T, c coordProc) {
	loads := []pageLoad{{"no page", 0, ""}, {fmt.Sprintf("%d pages, list shown", pagesMeasured), pagesMeasured, ""},
		{fmt.Sprintf("%d pages, list hidden", pagesMeasured), pagesMeasured, "?workers=0"}}
	rounds, window := 2, 3*time.Second
	if *long {
		rounds, window = 6, 10*time.Second
	}
	spent := make([]time.Duration, len(loads))
	for r := range rounds {
		for i := range loads {
			l := loads[(i+r)%len(loads)]
			spent[(i+r)%len(loads)] += cpuWith(t, c, l, window)
		}
	}
	perSec := func(i int) float64 { return spent[i].Seconds() * 1000 / (float64(rounds) * window.Seconds()) }
	for i, l := range loads {
		t.Logf("coordinator CPU, %s: %.1f ms/s", l.name, perSec(i))
	}
	t.Logf("one page with the list shown: %.2f ms of coordinator CPU a second; with it hidden: %.2f ms (%d workers, %d rounds of %v)",
		(perSec(1)-perSec(0))/pagesMeasured, (perSec(2)-perSec(0))/pagesMeasured, realWorkers, rounds, window)
}

// cpuWith opens l's readers of /events, lets them settle, and returns the
// coordinator's CPU over window.
func cpuWith(t *testing.T, c coordProc, l pageLoad, window time.Duration) time.Duration {
	ctx, cancel := context.WithCancel(context.Background())
	var readers sync.WaitGroup
	defer func() { cancel(); readers.Wait() }()
	for range l.pages {
		req, _ := http.NewRequestWithContext(ctx, "GET", c.http+"/events"+l.query, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("/events%s: %s", l.query, resp.Status)
		}
		readers.Go(func() { io.Copy(io.Discard, resp.Body); resp.Body.Close() })
	}
	time.Sleep(time.Second) // each page's first, full message
	before := c.cpu(t)
	time.Sleep(window)
	return c.cpu(t) - before
}
