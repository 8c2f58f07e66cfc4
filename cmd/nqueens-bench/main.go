// Command nqbench counts an N-Queens board with the solver alone on T
// goroutines: the baseline that the cluster's benchmark compares against.
// With --engine backtrack it plans KindCount tasks (automatic depth unless
// --depth is given); with --engine join it plans the join engine's units
// (solver.NewJoinPlan); auto, the default, takes the faster for N and says
// which on stderr. T goroutines take tasks in turn through a shared atomic
// index, and nqbench prints one line: N total unique seconds.
//
//	nqbench --n 17 --threads 2 [--engine auto|join|backtrack] [--depth D]
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nqueens/nqueens/internal/cli"
	"github.com/nqueens/nqueens/solver"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "cluster" {
		os.Exit(clusterMain(os.Args[2:], os.Stdout, os.Stderr))
	}
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "nqbench:", err)
		os.Exit(2)
	}
}

const usage = `Usage: nqueens-bench [--n N] [--threads T] [--engine auto|join|backtrack] [--depth D]
       nqueens-bench cluster --n N --depth D --workers K [flags]   (run "nqueens-bench cluster -h")

Counts an N-Queens board with the solver alone on T goroutines, the
baseline the cluster is compared with, and prints one line: N, total,
fundamental, seconds. --engine auto counts with the quadrant join where
it is the faster engine and with the backtracker below, and says which on
stderr.
Exit status: 0 counted, 2 bad usage.

Examples:
  nqueens-bench --n 16 --threads 2      # 16 14772512 1846955 SECONDS
  nqueens-bench cluster --n 16 --depth 5 --workers 1000   # the coordinator's ceiling

Flags:
`

// run is the count: -h and --version answer on stdout and return nil.
func run(args []string, stdout io.Writer) error {
	return runLog(args, stdout, os.Stderr)
}

// runLog is run with the engine choice logged to log.
func runLog(args []string, stdout, log io.Writer) error {
	fs := flag.NewFlagSet("nqbench", flag.ContinueOnError)
	n := fs.Int("n", 16, "board size")
	threads := fs.Int("threads", runtime.NumCPU(), "goroutines counting tasks")
	depth := fs.Int("depth", -1, "plan depth of the backtracker (-1: solver.AutoDepth)")
	engine := fs.String("engine", "auto", "counting engine: auto (the faster for n), join or backtrack")
	if err := cli.Parse(fs, args, stdout, usage); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q (see nqbench -h)", fs.Arg(0))
	}
	if *threads < 1 {
		return fmt.Errorf("--threads %d: must be at least 1", *threads)
	}
	t0 := time.Now()
	var sum solver.Counts
	var err error
	switch *engine {
	case "auto":
		join, why := solver.PreferJoin(*n)
		name := "backtrack"
		if join {
			name = "join"
		}
		fmt.Fprintf(log, "nqbench: engine %s (auto: %s)\n", name, why)
		if join {
			sum, err = countJoin(*n, *threads)
		} else {
			sum, err = countBacktrack(*n, *threads, *depth)
		}
	case "join":
		sum, err = countJoin(*n, *threads)
	case "backtrack":
		sum, err = countBacktrack(*n, *threads, *depth)
	default:
		return fmt.Errorf("--engine %q: must be auto, join or backtrack", *engine)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%d %d %d %.3f\n", *n, sum.Total, sum.Unique, time.Since(t0).Seconds())
	return nil
}

// countJoin counts the n-board with the join engine: threads goroutines
// take its units in turn through a shared atomic index, each with its own
// counter; the fundamental count follows from the total.
func countJoin(n, threads int) (solver.Counts, error) {
	// The quarter tables hold no pointers and live for the whole run:
	// collecting while they are built only costs time (4% at N=16). The
	// usual pace resumes for the count, which keeps the peak RSS.
	gc := debug.SetGCPercent(400)
	plan, err := solver.NewJoinPlan(n, 0)
	debug.SetGCPercent(gc)
	if err != nil {
		return solver.Counts{}, err
	}
	var next atomic.Int64
	totals := make([]uint64, threads)
	errs := make([]error, threads)
	var wg sync.WaitGroup
	for w := range threads {
		wg.Go(func() {
			c := plan.NewCounter()
			for {
				i := int(next.Add(1) - 1)
				if i >= plan.NumTasks() {
					return
				}
				t, err := c.Count(i)
				if err != nil {
					errs[w] = err
					return
				}
				totals[w] += t
			}
		})
	}
	wg.Wait()
	var total uint64
	for w := range threads {
		if errs[w] != nil {
			return solver.Counts{}, errs[w]
		}
		total += totals[w]
	}
	return solver.Counts{Total: total, Unique: plan.Fundamental(total)}, nil
}

// countBacktrack counts the n-board with the backtracker: it plans
// KindCount tasks and threads goroutines take them in turn through a
// shared atomic index.
func countBacktrack(n, threads, depth int) (solver.Counts, error) {
	if depth < 0 {
		depth = solver.AutoDepth(n, threads, solver.KindCount)
	}
	plan, err := solver.NewPlan(n, depth, solver.KindCount)
	if err != nil {
		return solver.Counts{}, err
	}
	var next atomic.Int64
	results := make([]solver.Counts, threads)
	errs := make([]error, threads)
	var wg sync.WaitGroup
	for w := range threads {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(plan.Tasks) {
					return
				}
				c, err := solver.CountTask(plan.N, plan.Tasks[i])
				if err == nil {
					c, err = results[w].Add(c)
				}
				if err != nil {
					errs[w] = err
					return
				}
				results[w] = c
			}
		})
	}
	wg.Wait()
	var sum solver.Counts
	for w := range threads {
		if errs[w] != nil {
			return solver.Counts{}, errs[w]
		}
		if sum, err = sum.Add(results[w]); err != nil {
			return solver.Counts{}, err
		}
	}
	return sum, nil
}
