package study

import (
	"context"
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/nqueens/nqueens/internal/cli"
	"github.com/nqueens/nqueens/solver"
)

// Defaults of the lasvegas flags.
const (
	DefaultRange  = "12:20"
	DefaultTrials = 100
	DefaultSeed   = 1
	// chunk is how many trials run between checks of the context and
	// progress, so Ctrl-C and the progress line are never far away.
	chunk = 10
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
             rows placed at random (the rest by backtracking), the mean failed
             attempts before the first solution and the mean time to it.
             Run "coordinator study lasvegas -h" for its flags.
`

const lasVegasUsage = `Usage: coordinator study lasvegas [--n A:B] [--trials T] [--seed S] [--k K|A:B|all] [--csv FILE] [--plot FILE.png]

For every board size N in the range and every k (default all, 0..N), runs the
Las Vegas method T times: the queens of rows 1..k go to random safe columns,
rows k+1..N are filled by backtracking, a failed attempt starts over. It prints
a Markdown table of the mean failed attempts before the first solution and the
mean time to it, then the fastest k for each N.

One random generator (PCG, seeded once from --seed) serves the whole study, in
the order N ascending, then k ascending, so the same flags and seed give the
same failure counts on every machine; times depend on the machine.

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
	seed := fs.Uint64("seed", DefaultSeed, "seed of the one PCG generator of the study")
	csvPath := fs.String("csv", "", "also write the table as CSV to `FILE` (n,k,trials,mean_failures,mean_time_us)")
	plotPath := fs.String("plot", "", fmt.Sprintf("draw mean time against k, one line per N, as a %d×%d PNG to `FILE.png`", ChartWidth, ChartHeight))
	if err := cli.Parse(fs, args, stderr, lasVegasUsage); err != nil {
		return config{}, err
	}
	if fs.NArg() > 0 {
		return config{}, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	c := config{trials: *trials, seed: *seed, csvPath: *csvPath, plotPath: *plotPath}
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

	results, err := Run(ctx, cfg.cells(), cfg.trials, cfg.seed, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "study lasvegas: %v\n", err)
		return 1
	}
	if err := WriteMarkdown(stdout, results); err != nil {
		fmt.Fprintf(stderr, "study lasvegas: %v\n", err)
		return 1
	}
	if csvFile != nil {
		if err := WriteCSV(csvFile, results); err == nil {
			err = csvFile.Close()
		}
		if err != nil {
			fmt.Fprintf(stderr, "study lasvegas: --csv: %v\n", err)
			return 1
		}
	}
	if plotFile != nil {
		if err := WriteChart(plotFile, results); err == nil {
			err = plotFile.Close()
		}
		if err != nil {
			fmt.Fprintf(stderr, "study lasvegas: --plot: %v\n", err)
			return 1
		}
	}
	return 0
}

// Run studies every cell in order with one PCG generator seeded from seed,
// trials times each. It reports progress on progress (nil: none) every few
// seconds and stops early when ctx ends.
func Run(ctx context.Context, cells []Cell, trials int, seed uint64, progress io.Writer) ([]solver.Study, error) {
	rng := rand.New(rand.NewPCG(seed, seed))
	start := time.Now()
	last := start
	out := make([]solver.Study, 0, len(cells))
	for i, c := range cells {
		var failures float64
		var elapsed time.Duration
		for done := 0; done < trials; {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("interrupted at N=%d k=%d: %w", c.N, c.K, err)
			}
			m := min(chunk, trials-done)
			s, err := solver.StudyLasVegas(c.N, c.K, m, rng)
			if err != nil {
				return nil, fmt.Errorf("N=%d k=%d: %w", c.N, c.K, err)
			}
			failures += s.MeanFailures * float64(m)
			elapsed += s.MeanTime * time.Duration(m)
			done += m
			if progress != nil && time.Since(last) >= progressEvery {
				last = time.Now()
				fmt.Fprintf(progress, "lasvegas: N=%d k=%d trial %d/%d, cell %d of %d, %s elapsed\n",
					c.N, c.K, done, trials, i+1, len(cells), time.Since(start).Round(time.Second))
			}
		}
		out = append(out, solver.Study{
			N: c.N, K: c.K, Trials: trials,
			MeanFailures: failures / float64(trials),
			MeanTime:     elapsed / time.Duration(trials),
		})
	}
	if progress != nil && time.Since(start) >= progressEvery {
		fmt.Fprintf(progress, "lasvegas: %d cells done in %s\n", len(cells), time.Since(start).Round(time.Millisecond))
	}
	return out, nil
}

// micros is a duration in microseconds.
func micros(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// WriteMarkdown prints the results as a Markdown table, then one line that
// names the fastest k for each N.
func WriteMarkdown(w io.Writer, results []solver.Study) error {
	var b strings.Builder
	b.WriteString("| N | k | trials | mean failures | mean time (µs) |\n")
	b.WriteString("|---:|---:|---:|---:|---:|\n")
	for _, r := range results {
		fmt.Fprintf(&b, "| %d | %d | %d | %.2f | %.1f |\n", r.N, r.K, r.Trials, r.MeanFailures, micros(r.MeanTime))
	}
	b.WriteString("\nFastest k: ")
	for i, f := range Fastest(results) {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "N=%d k=%d (%.1f µs)", f.N, f.K, micros(f.MeanTime))
	}
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// Fastest returns, for each N of results in order, the row with the least
// mean time (the smallest k on a tie).
func Fastest(results []solver.Study) []solver.Study {
	var out []solver.Study
	for _, r := range results {
		switch {
		case len(out) == 0 || out[len(out)-1].N != r.N:
			out = append(out, r)
		case r.MeanTime < out[len(out)-1].MeanTime:
			out[len(out)-1] = r
		}
	}
	return out
}

// WriteCSV writes the results with a header row:
// n,k,trials,mean_failures,mean_time_us.
func WriteCSV(w io.Writer, results []solver.Study) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"n", "k", "trials", "mean_failures", "mean_time_us"})
	for _, r := range results {
		cw.Write([]string{
			strconv.Itoa(r.N), strconv.Itoa(r.K), strconv.Itoa(r.Trials),
			strconv.FormatFloat(r.MeanFailures, 'f', 4, 64),
			strconv.FormatFloat(micros(r.MeanTime), 'f', 3, 64),
		})
	}
	cw.Flush()
	return cw.Error()
}
