// Command nqbench counts an N-Queens board with the solver alone on T
// goroutines: the baseline that the cluster's benchmark compares against.
// It plans KindCount tasks (automatic depth unless --depth is given), lets
// T goroutines take tasks in turn through a shared atomic index, and prints
// one line: N total unique seconds.
//
//	nqbench --n 17 --threads 2 [--depth D]
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
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

const usage = `Usage: nqbench [--n N] [--threads T] [--depth D]
       nqbench cluster --n N --depth D --workers K [flags]   (run "nqbench cluster -h")

Counts an N-Queens board with the solver alone on T goroutines, the
baseline the cluster is compared with, and prints one line: N, total,
fundamental, seconds.
Exit status: 0 counted, 2 bad usage.

Examples:
  nqbench --n 16 --threads 2      # 16 14772512 1846955 SECONDS
  nqbench cluster --n 16 --depth 5 --workers 1000   # the coordinator's ceiling

Flags:
`

// run is the count: -h and --version answer on stdout and return nil.
func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("nqbench", flag.ContinueOnError)
	n := fs.Int("n", 16, "board size")
	threads := fs.Int("threads", runtime.NumCPU(), "goroutines counting tasks")
	depth := fs.Int("depth", -1, "plan depth (-1: solver.AutoDepth)")
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
	d := *depth
	if d < 0 {
		d = solver.AutoDepth(*n, *threads, solver.KindCount)
	}
	plan, err := solver.NewPlan(*n, d, solver.KindCount)
	if err != nil {
		return err
	}
	var next atomic.Int64
	results := make([]solver.Counts, *threads)
	errs := make([]error, *threads)
	var wg sync.WaitGroup
	for w := range *threads {
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
	for w := range *threads {
		if errs[w] != nil {
			return errs[w]
		}
		if sum, err = sum.Add(results[w]); err != nil {
			return err
		}
	}
	fmt.Fprintf(stdout, "%d %d %d %.3f\n", plan.N, sum.Total, sum.Unique, time.Since(t0).Seconds())
	return nil
}
