package main

// nqbench cluster: a load generator for the coordinator. It starts a real
// coordinator process with no workers of its own, then K simulated
// workers in this process, each package worker's own session on its own
// gRPC connection from its own loopback address, whose solver is a table
// of the plan's real per-task counts (worker.Config.Count). What it
// measures is therefore the coordinator's own ceiling: commits per
// second, the Result-to-Ack latency, the coordinator's peak memory and
// its journal's size, with no solver CPU in the way.
//
//	nqbench cluster --n 16 --depth 5 --workers 1000 [--state FILE] [--slots S]
//
// The files: cluster_flags.go the command line, cluster_supervisor.go the
// coordinator process, cluster_cache.go the table of answers,
// cluster_workers.go the simulated workers, cluster_observe.go what they
// measure on the wire, cluster_report.go the JSON line.

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/nqueens/nqueens/solver"
)

const clusterUsage = `Usage: nqueens-bench cluster --n N --depth D --workers K [flags]

Starts a real coordinator process (--workers 0) and K simulated workers:
package worker's own session, each on its own gRPC connection, answering
every task at once from a table of the plan's real per-task counts
(computed once with the solver and cached) instead of solving it.
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
	rep.TasksMade, rep.PeakLiveTasks = sum.Tasks+int(sum.Splits), sum.PeakLiveTasks
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
