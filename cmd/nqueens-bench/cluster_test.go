package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nqueens/nqueens/solver"
)

var clusterLong = flag.Bool("long", false, "also run the load generator with 1000 simulated workers")

// buildTimeout bounds go build of the coordinator.
const buildTimeout = 3 * time.Minute

var (
	coordOnce sync.Once
	coordBin  string
	coordErr  error
)

// coordinatorBin builds the coordinator once for every test of the package.
func coordinatorBin(t *testing.T) string {
	t.Helper()
	coordOnce.Do(func() {
		dir, err := os.MkdirTemp("", "nqbench-test-*")
		if err != nil {
			coordErr = err
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), buildTimeout)
		defer cancel()
		coordBin, coordErr = buildCoordinator(ctx, dir)
	})
	if coordErr != nil {
		t.Fatal(coordErr)
	}
	return coordBin
}

func TestMain(m *testing.M) {
	code := m.Run()
	if coordBin != "" {
		os.RemoveAll(filepath.Dir(coordBin))
	}
	os.Exit(code)
}

// runClusterCmd runs nqbench cluster and returns its exit status, its one
// JSON line decoded, and its stderr.
func runClusterCmd(t *testing.T, args ...string) (int, map[string]any, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := clusterMain(args, &stdout, &stderr)
	var rep map[string]any
	if code != 2 && stdout.Len() > 0 {
		if lines := strings.Count(stdout.String(), "\n"); lines != 1 {
			t.Errorf("stdout has %d lines, want one JSON line: %q", lines, stdout.String())
		}
		if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
			t.Fatalf("stdout is not JSON: %v: %q", err, stdout.String())
		}
	}
	return code, rep, stderr.String()
}

// checkReport checks the fields every exact run must have.
func checkReport(t *testing.T, rep map[string]any, n, tasks, workers int, journal bool) {
	t.Helper()
	known, _ := solver.Known(n)
	checkReportCounts(t, rep, known, tasks, workers, journal)
}

// checkReportCounts is checkReport for a run whose exact total is known.
func checkReportCounts(t *testing.T, rep map[string]any, known solver.Counts, tasks, workers int, journal bool) {
	t.Helper()
	for _, f := range []string{"tasks", "workers", "commits_per_second", "p99_commit_ms", "coordinator_rss_mb",
		"journal_bytes_per_task", "elapsed_seconds", "total", "exact"} {
		if _, ok := rep[f]; !ok {
			t.Errorf("report has no field %q: %v", f, rep)
		}
	}
	num := func(f string) float64 { v, _ := rep[f].(float64); return v }
	if rep["exact"] != true || num("total") != float64(known.Total) || num("unique") != float64(known.Unique) {
		t.Errorf("exact %v, total %v, unique %v; want true, %d, %d", rep["exact"], rep["total"], rep["unique"], known.Total, known.Unique)
	}
	// The coordinator may end a stream before the last Acks of a journaled
	// run are sent (their commits are durable): at most a worker's credits
	// each.
	if c := num("commits"); num("tasks") != float64(tasks) || c > float64(tasks) || c < float64(tasks-3*workers) || num("workers") != float64(workers) {
		t.Errorf("tasks %v, commits %v, workers %v; want %d, %d (or a few less), %d", rep["tasks"], rep["commits"], rep["workers"], tasks, tasks, workers)
	}
	if num("drained")+num("late_workers") != float64(workers) || num("drained") < 1 || num("not_committed") != 0 {
		t.Errorf("drained %v, late %v, not committed %v; want %d drained or late, 0", rep["drained"], rep["late_workers"], rep["not_committed"], workers)
	}
	for _, f := range []string{"commits_per_second", "p99_commit_ms", "coordinator_rss_mb", "elapsed_seconds"} {
		if num(f) <= 0 {
			t.Errorf("%s = %v, want > 0", f, rep[f])
		}
	}
	if num("p50_commit_ms") > num("p99_commit_ms") || num("p99_commit_ms") > num("max_commit_ms") {
		t.Errorf("commit latencies p50 %v, p99 %v, max %v: not in order", rep["p50_commit_ms"], rep["p99_commit_ms"], rep["max_commit_ms"])
	}
	if got := num("journal_bytes_per_task"); journal != (got > 0) {
		t.Errorf("journal_bytes_per_task = %v with journal %v", got, journal)
	}
}

// TestClusterExact runs a real coordinator with 20 simulated workers: the
// total is exact, every worker is drained, the count table is cached and
// the second run, from the cache and with one message per task, is exact
// too.
func TestClusterExact(t *testing.T) {
	bin := coordinatorBin(t)
	cache, dir := t.TempDir(), t.TempDir()
	for i, state := range []string{filepath.Join(dir, "job.j"), ""} {
		args := []string{"--n", "10", "--depth", "3", "--workers", "20", "--coordinator", bin, "--cache", cache}
		batches := state != "" // the journaled run batches, the other one not
		if state != "" {
			args = append(args, "--state", state)
		} else {
			args = append(args, "--batches=false")
		}
		code, rep, stderr := runClusterCmd(t, args...)
		if code != 0 {
			t.Fatalf("run %d: exit %d, want 0; stderr:\n%s", i, code, stderr)
		}
		checkReport(t, rep, 10, 100, 20, state != "")
		// Every worker that was drained had a session, batched when asked
		// for; one that came as the job ended may have had none.
		got, drained := rep["batched_workers"].(float64), rep["drained"].(float64)
		if batches && (got < drained || got > 20) || !batches && got != 0 {
			t.Errorf("run %d: batched_workers = %v with %v drained, want %s", i, got, drained, map[bool]string{true: "every drained worker's, at most 20", false: "0"}[batches])
		}
		if cached := strings.Contains(stderr, "counting the"); cached != (i == 0) {
			t.Errorf("run %d counted the table: %v, want %v", i, cached, i == 0)
		}
	}
	if _, err := os.Stat(filepath.Join(cache, "counts-n10-d3-v"+strconv.Itoa(solver.Version)+".bin")); err != nil {
		t.Errorf("count table not cached: %v", err)
	}
}

// TestClusterSynthetic: with --synthetic every task answers total 2,
// fundamental 1, so the coordinator's total shows each task counted once.
func TestClusterSynthetic(t *testing.T) {
	bin := coordinatorBin(t)
	code, rep, stderr := runClusterCmd(t, "--n", "10", "--depth", "4", "--workers", "5", "--synthetic", "--coordinator", bin, "--cache", t.TempDir())
	if code != 0 {
		t.Fatalf("exit %d, want 0; stderr:\n%s", code, stderr)
	}
	checkReportCounts(t, rep, solver.Counts{Total: 2 * 392, Unique: 392}, 392, 5, false)
	if rep["synthetic"] != true || strings.Contains(stderr, "counting the") {
		t.Errorf("synthetic %v; stderr %q: want true, and no table counted", rep["synthetic"], stderr)
	}
}

// TestClusterUnpublished: a synthetic run at N=28, where no count is
// published, splits until --min-tasks are made and reports them and the
// most the coordinator held at once, far fewer: each task counted once.
func TestClusterUnpublished(t *testing.T) {
	bin := coordinatorBin(t)
	state := filepath.Join(t.TempDir(), "n28.journal")
	code, rep, stderr := runClusterCmd(t, "--n", "28", "--workers", "5", "--synthetic", "--runs", "--min-tasks", "3000", "--state", state, "--coordinator", bin)
	if code != 0 {
		t.Fatalf("exit %d, want 0; stderr:\n%s", code, stderr)
	}
	leaves, _ := rep["tasks"].(float64)
	checkReportCounts(t, rep, solver.Counts{Total: 2 * uint64(leaves), Unique: uint64(leaves)}, int(leaves), 5, true)
	made, live := rep["tasks_made"].(float64), rep["peak_live_tasks"].(float64)
	if made < 3000 || leaves >= made || live <= 0 || live*4 > made {
		t.Errorf("tasks made %v, leaves %v, peak live %v: want at least 3000 made, fewer leaves, and a quarter of them live at most", made, leaves, live)
	}
}

// TestClusterLong is the same with 1000 workers, each from its own
// loopback address (-long).
func TestClusterLong(t *testing.T) {
	if !*clusterLong {
		t.Skip("1000 simulated workers: run with -long")
	}
	bin := coordinatorBin(t)
	state := filepath.Join(t.TempDir(), "job.j")
	code, rep, stderr := runClusterCmd(t, "--n", "16", "--depth", "5", "--workers", "1000", "--coordinator", bin,
		"--cache", t.TempDir(), "--state", state)
	if code != 0 {
		t.Fatalf("exit %d, want 0; stderr:\n%s", code, stderr)
	}
	t.Logf("report: %v", rep)
	checkReport(t, rep, 16, 35345, 1000, true)
}

// TestClusterTableChecked: a cached table whose counts were changed is
// refused and counted again, so a stale or corrupt cache cannot make the
// simulated workers report a wrong total.
func TestClusterTableChecked(t *testing.T) {
	plan, err := solver.NewPlan(9, 3, solver.KindCount)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	table, err := countTable(dir, plan, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "counts-n9-d3-v"+strconv.Itoa(solver.Version)+".bin")
	if got, err := readTable(path, plan); err != nil || len(got) != len(table) {
		t.Fatalf("readTable = %d counts, %v; want %d, nil", len(got), err, len(table))
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[tableHeader]++ // the first task's total
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readTable(path, plan); err == nil {
		t.Error("readTable accepted a table with a changed count")
	}
	other, _ := solver.NewPlan(9, 4, solver.KindCount)
	if _, err := readTable(path, other); err == nil {
		t.Error("readTable accepted the table of another plan")
	}
	var log bytes.Buffer
	again, err := countTable(dir, plan, &log)
	if err != nil || !strings.Contains(log.String(), "counting the") || again[0] != table[0] {
		t.Errorf("countTable over a changed cache = %v, %v (log %q); want it counted again", again[0], err, log.String())
	}
}

// TestClusterUsage: bad command lines get one line and exit 2, before any
// coordinator starts.
func TestClusterUsage(t *testing.T) {
	for _, args := range [][]string{
		{"--n", "10", "--depth", "3"},                     // no workers
		{"--n", "3", "--depth", "1", "--workers", "2"},    // no solution to count
		{"--n", "40", "--depth", "1", "--workers", "2"},   // no published count
		{"--n", "28", "--workers", "2"},                   // no published count, and not synthetic
		{"--n", "33", "--workers", "2", "--synthetic"},    // beyond the coordinator's boards
		{"--n", "10", "--depth", "9", "--workers", "2"},   // depth out of range
		{"--n", "10", "--workers", "2", "--slots", "0"},   // no slots
		{"--n", "10", "--workers", "2", "--bogus"},        // unknown flag
		{"--n", "10", "--workers", "2", "extra"},          // stray argument
		{"--n", "10", "--workers", "2", "--timeout", "0"}, // no time
		{"--n", "10", "--workers", "2", "--joins", "0"},   // no joins
	} {
		code, _, stderr := runClusterCmd(t, args...)
		if code != 2 || strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, "nqbench cluster: ") {
			t.Errorf("nqbench cluster %v: exit %d, stderr %q; want 2 and one line", args, code, stderr)
		}
	}
}

func TestSourceAddr(t *testing.T) {
	seen := map[string]bool{}
	for i := range 70000 {
		a := sourceAddr(i)
		if !a.IsLoopback() || a[15] == 0 || a[15] == 255 || seen[a.String()] {
			t.Fatalf("sourceAddr(%d) = %v: want a new loopback address, host byte not 0 or 255", i, a)
		}
		seen[a.String()] = true
	}
}

// TestClusterRuns: simulated workers that ask for runs commit every task
// exactly once in fewer leases than tasks, journal on.
func TestClusterRuns(t *testing.T) {
	bin := coordinatorBin(t)
	args := []string{"--n", "12", "--depth", "4", "--workers", "4", "--runs", "--coordinator", bin, "--cache", t.TempDir(),
		"--state", filepath.Join(t.TempDir(), "runs.j")}
	code, rep, stderr := runClusterCmd(t, args...)
	if code != 0 {
		t.Fatalf("exit %d, want 0; stderr:\n%s", code, stderr)
	}
	tasks := int(rep["tasks"].(float64))
	checkReport(t, rep, 12, tasks, 4, true)
	if leases, _ := rep["leases"].(float64); rep["runs"] != true || leases <= 0 || leases*2 > float64(tasks) {
		t.Errorf("runs %v, %v leases for %d tasks: want runs, at most half as many leases as tasks", rep["runs"], rep["leases"], tasks)
	}
}
