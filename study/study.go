package study

import (
	"cmp"
	"context"
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nqueens/nqueens/internal/cli"
	"github.com/nqueens/nqueens/solver"
)

// Defaults of the lasvegas flags.
const (
	DefaultRange  = "12:20"
	DefaultTrials = 100
	DefaultSeed   = 1
	// progressEvery is how often a long study reports on stderr.
	progressEvery = 2 * time.Second
)

// Main runs the study subcommand: args are what follows the word "study"
// (args[0] names the study). It returns the exit status: 0 on success, 2 on
// bad usage (one line on stderr), 1 when the study fails or is interrupted.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "study: missing study name (want: lasvegas; see study -h)")
		return 2
	}
	switch args[0] {
	case "lasvegas":
		return mainLasVegas(ctx, args[1:], stdout, stderr)
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stderr, topUsage)
		return 0
	default:
		fmt.Fprintf(stderr, "study: unknown study %q (want: lasvegas; see study -h)\n", args[0])
		return 2
	}
}

const topUsage = `Usage: coordinator study lasvegas [flags]

Studies:
  lasvegas   the Las Vegas method: for each board size N and each number k of
             rows placed at random (the rest by backtracking), the failed
             attempts before the first solution and the time to it: means,
             standard deviations and the 95% interval of the mean time.
             Run "coordinator study lasvegas -h" for its flags.
`

const lasVegasUsage = `Usage: coordinator study lasvegas [--n A:B] [--trials T] [--seed S] [--k K|A:B|all] [--parallel P] [--csv FILE] [--plot FILE.png]

For every board size N in the range and every k (default all, 0..N), runs the
Las Vegas method T times: the queens of rows 1..k go to random safe columns,
rows k+1..N are filled by backtracking, a failed attempt starts over. It prints
a Markdown table of the failed attempts before the first solution and the time
to it (each a mean and the standard deviation of single trials; for the time
also the 95% interval of the mean, which says whether two k differ by more than
chance), then the fastest k for each N.

Each (N, k) has its own random generator (PCG, seeded once from --seed, N and
k), so the cells run on every core at once and the same flags and seed give
the same failure counts on every machine, whatever --parallel; times depend on
the machine.

k = 0 is plain backtracking (no randomness, no failures); k near N is almost
pure random placement (many failures, each cheap).

Flags:
`

// config is the parsed lasvegas command line.
type config struct {
	nLo, nHi int
	kLo, kHi int // kHi < 0: up to N
	trials   int
	seed     uint64
	parallel int
	csvPath  string
	plotPath string
}

// parseRange reads "A:B" or "A" into lo, hi.
func parseRange(s string) (lo, hi int, err error) {
	a, b, isRange := strings.Cut(s, ":")
	if lo, err = strconv.Atoi(strings.TrimSpace(a)); err != nil {
		return 0, 0, fmt.Errorf("%q is not a number or a range A:B", s)
	}
	hi = lo
	if isRange {
		if hi, err = strconv.Atoi(strings.TrimSpace(b)); err != nil {
			return 0, 0, fmt.Errorf("%q is not a number or a range A:B", s)
		}
	}
	if hi < lo {
		return 0, 0, fmt.Errorf("range %q is empty (%d > %d)", s, lo, hi)
	}
	return lo, hi, nil
}

// parseLasVegas parses the flags. It returns flag.ErrHelp for -h.
func parseLasVegas(args []string, stderr io.Writer) (config, error) {
	fs := flag.NewFlagSet("study lasvegas", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	nFlag := fs.String("n", DefaultRange, "board sizes: `A:B` (inclusive) or one N; each N is 4.."+strconv.Itoa(solver.MaxSingleN))
	kFlag := fs.String("k", "all", "random rows: `K`, a range A:B, or all (0..N); k above N is skipped for that N")
	trials := fs.Int("trials", DefaultTrials, "trials per (N, k); each trial runs until its first solution")
	seed := fs.Uint64("seed", DefaultSeed, "seed of the study's PCG generators, one per (N, k)")
	parallel := fs.Int("parallel", 0, "(N, k) cells studied at once, `P` goroutines (0: one per core)")
	csvPath := fs.String("csv", "", "also write the table as CSV to `FILE` ("+strings.Join(csvHeader, ",")+")")
	plotPath := fs.String("plot", "", fmt.Sprintf("draw mean time against k, one line per N, as a %d×%d PNG to `FILE.png`", ChartWidth, ChartHeight))
	if err := cli.Parse(fs, args, stderr, lasVegasUsage); err != nil {
		return config{}, err
	}
	if fs.NArg() > 0 {
		return config{}, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	c := config{trials: *trials, seed: *seed, parallel: *parallel, csvPath: *csvPath, plotPath: *plotPath}
	if c.parallel < 0 {
		return config{}, fmt.Errorf("--parallel %d: want 0 (one per core) or more", c.parallel)
	}
	var err error
	if c.nLo, c.nHi, err = parseRange(*nFlag); err != nil {
		return config{}, fmt.Errorf("--n: %w", err)
	}
	if c.nLo < 4 || c.nHi > solver.MaxSingleN {
		return config{}, fmt.Errorf("--n %s: board sizes must be 4..%d (N=2 and 3 have no solution)", *nFlag, solver.MaxSingleN)
	}
	if *kFlag == "all" {
		c.kLo, c.kHi = 0, -1
	} else {
		if c.kLo, c.kHi, err = parseRange(*kFlag); err != nil {
			return config{}, fmt.Errorf("--k: %w", err)
		}
		if c.kLo < 0 {
			return config{}, fmt.Errorf("--k %s: k must be at least 0", *kFlag)
		}
		if c.kLo > c.nHi {
			return config{}, fmt.Errorf("--k %s: every k is above the largest N (%d)", *kFlag, c.nHi)
		}
	}
	if c.trials < 1 {
		return config{}, fmt.Errorf("--trials %d: want at least 1", c.trials)
	}
	if c.plotPath != "" && !strings.HasSuffix(strings.ToLower(c.plotPath), ".png") {
		return config{}, fmt.Errorf("--plot %s: the chart is a PNG; name the file .png", c.plotPath)
	}
	return c, nil
}

// Cell is one (N, k) pair of a study.
type Cell struct{ N, K int }

func (c config) cells() []Cell {
	var out []Cell
	for n := c.nLo; n <= c.nHi; n++ {
		hi := n
		if c.kHi >= 0 {
			hi = min(c.kHi, n)
		}
		for k := c.kLo; k <= hi; k++ {
			out = append(out, Cell{N: n, K: k})
		}
	}
	return out
}

func mainLasVegas(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cfg, err := parseLasVegas(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "study lasvegas: %v\n", err)
		return 2
	}
	// Create the output files first, so a typo in a path costs no study time.
	var csvFile, plotFile *os.File
	if cfg.csvPath != "" {
		if csvFile, err = os.Create(cfg.csvPath); err != nil {
			fmt.Fprintf(stderr, "study lasvegas: --csv: %v\n", err)
			return 2
		}
		defer csvFile.Close()
	}
	if cfg.plotPath != "" {
		if plotFile, err = os.Create(cfg.plotPath); err != nil {
			fmt.Fprintf(stderr, "study lasvegas: --plot: %v\n", err)
			return 2
		}
		defer plotFile.Close()
	}

	results, err := Run(ctx, cfg.cells(), cfg.trials, cfg.seed, cfg.parallel, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "study lasvegas: %v\n", err)
		return 1
	}
	if err := WriteMarkdown(stdout, results); err != nil {
		fmt.Fprintf(stderr, "study lasvegas: %v\n", err)
		return 1
	}
	if csvFile != nil {
		err := WriteCSV(csvFile, results)
		if cerr := csvFile.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			fmt.Fprintf(stderr, "study lasvegas: --csv: %v\n", err)
			return 1
		}
	}
	if plotFile != nil {
		err := WriteChart(plotFile, results)
		if cerr := plotFile.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			fmt.Fprintf(stderr, "study lasvegas: --plot: %v\n", err)
			return 1
		}
	}
	return 0
}

// Run studies every cell trials times, on parallel goroutines (0: one per
// core), and returns the results in the order of cells. Each cell draws
// from its own PCG generator seeded from seed, N and k, so the failure
// counts depend on the arguments alone, not on the schedule. The largest
// boards go first, so no long cell is left for the end. Run reports
// progress on progress (nil: none) every few seconds and stops early when
// ctx ends.
func Run(ctx context.Context, cells []Cell, trials int, seed uint64, parallel int, progress io.Writer) ([]Result, error) {
	if parallel <= 0 {
		parallel = runtime.GOMAXPROCS(0)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu       sync.Mutex
		firstErr error // the first cell's error; it stops the others
	)
	order := make([]int, len(cells))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(x, y int) int { return cmp.Compare(cells[y].N, cells[x].N) })
	next := make(chan int)
	go func() {
		defer close(next)
		for _, i := range order {
			select {
			case next <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	out := make([]Result, len(cells))
	var done, trialsDone atomic.Int64 // cells and trials finished
	var wg sync.WaitGroup
	for range min(parallel, len(cells)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				s, err := studyCell(ctx, cells[i], trials, seed, &trialsDone)
				if err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
					cancel()
					return
				}
				out[i] = s
				done.Add(1)
			}
		}()
	}
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()
	start := time.Now()
	tick := time.NewTicker(progressEvery)
	defer tick.Stop()
	for waiting := true; waiting; {
		select {
		case <-finished:
			waiting = false
		case <-tick.C:
			if progress != nil {
				fmt.Fprintf(progress, "lasvegas: %d of %d trials, %d of %d cells done, %s elapsed\n",
					trialsDone.Load(), len(cells)*trials, done.Load(), len(cells), time.Since(start).Round(time.Second))
			}
		}
	}
	if firstErr != nil {
		return nil, firstErr
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("interrupted: %w", err)
	}
	if progress != nil && time.Since(start) >= progressEvery {
		fmt.Fprintf(progress, "lasvegas: %d cells done in %s\n", len(cells), time.Since(start).Round(time.Millisecond))
	}
	return out, nil
}

// studyCell runs one cell's trials with its own generator, adding each
// finished trial to progress. Each trial is solver.LasVegas, draw for draw,
// stopped as soon as ctx ends: a trial with few random rows on a large
// board can take minutes, and Ctrl-C must not wait for it.
func studyCell(ctx context.Context, c Cell, trials int, seed uint64, progress *atomic.Int64) (Result, error) {
	rng := rand.New(rand.NewPCG(seed, uint64(c.N)<<32|uint64(c.K)))
	done := ctx.Done()
	stop := func(int) bool {
		select {
		case <-done:
			return true
		default:
			return false
		}
	}
	var failures, micros moments
	for range trials {
		t0 := time.Now()
		_, f, err := solver.LasVegasUntil(c.N, c.K, rng, stop)
		if errors.Is(err, solver.ErrStopped) {
			return Result{}, fmt.Errorf("interrupted at N=%d k=%d: %w", c.N, c.K, ctx.Err())
		}
		if err != nil {
			return Result{}, fmt.Errorf("N=%d k=%d: %w", c.N, c.K, err)
		}
		micros.add(float64(time.Since(t0)) / float64(time.Microsecond))
		failures.add(float64(f))
		progress.Add(1)
	}
	return Result{N: c.N, K: c.K, Trials: trials, Failures: failures.stat(), Micros: micros.stat()}, nil
}

// WriteMarkdown prints the results as a Markdown table, then one line that
// names the fastest k for each N. Each mean has its spread beside it: the
// standard deviation of single trials, and for the time the 95% interval
// of the mean, which says whether two k differ by more than chance.
func WriteMarkdown(w io.Writer, results []Result) error {
	var b strings.Builder
	b.WriteString("| N | k | trials | mean failures | sd failures | mean time (µs) | sd time (µs) | 95% interval of the mean (µs) |\n")
	b.WriteString("|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range results {
		ci := r.Micros.CI95(r.Trials)
		fmt.Fprintf(&b, "| %d | %d | %d | %.2f | %.2f | %.1f | %.1f | %.1f–%.1f |\n", r.N, r.K, r.Trials,
			r.Failures.Mean, r.Failures.SD, r.Micros.Mean, r.Micros.SD, max(r.Micros.Mean-ci, 0), r.Micros.Mean+ci)
	}
	b.WriteString("\nFastest k (mean time ± the 95% interval of the mean): ")
	for i, f := range Fastest(results) {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "N=%d k=%d (%.1f ± %.1f µs)", f.N, f.K, f.Micros.Mean, f.Micros.CI95(f.Trials))
	}
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// Fastest returns, for each N of results in order, the row with the least
// mean time (the smallest k on a tie).
func Fastest(results []Result) []Result {
	var out []Result
	for _, r := range results {
		switch {
		case len(out) == 0 || out[len(out)-1].N != r.N:
			out = append(out, r)
		case r.Micros.Mean < out[len(out)-1].Micros.Mean:
			out[len(out)-1] = r
		}
	}
	return out
}

// csvHeader names the CSV columns: the cell, then each measure's mean and
// standard deviation, then the half-width of the mean time's 95% interval.
var csvHeader = []string{"n", "k", "trials", "mean_failures", "sd_failures", "mean_time_us", "sd_time_us", "ci95_time_us"}

// WriteCSV writes the results with a header row (csvHeader).
func WriteCSV(w io.Writer, results []Result) error {
	cw := csv.NewWriter(w)
	cw.Write(csvHeader)
	f := func(x float64, prec int) string { return strconv.FormatFloat(x, 'f', prec, 64) }
	for _, r := range results {
		cw.Write([]string{
			strconv.Itoa(r.N), strconv.Itoa(r.K), strconv.Itoa(r.Trials),
			f(r.Failures.Mean, 4), f(r.Failures.SD, 4),
			f(r.Micros.Mean, 3), f(r.Micros.SD, 3), f(r.Micros.CI95(r.Trials), 3),
		})
	}
	cw.Flush()
	return cw.Error()
}
