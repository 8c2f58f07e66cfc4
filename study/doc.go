// Package study runs the experiments behind the "coordinator study"
// subcommand. Its one study, lasvegas, measures the classic Las Vegas
// method for N-Queens: place the queens of the first k rows at random among
// the safe columns, fill the rest by backtracking, start over on a dead end.
// For each N and k it reports the failed attempts before the first solution
// and the time to it, each as a mean and a spread, to find the k that is
// fastest for each N and to tell whether it is faster by more than chance.
//
// The coordinator's main hands it everything after the word "study":
//
//	if len(os.Args) > 1 && os.Args[1] == "study" {
//		os.Exit(study.Main(ctx, os.Args[2:], os.Stdout, os.Stderr))
//	}
//
//	$ coordinator study lasvegas --n 12:20 --trials 200 --seed 1 --csv lv.csv --plot lv.png
//
// prints a Markdown table (N, k, trials; the failures' mean and standard
// deviation; the time's mean, standard deviation and the 95% interval of
// its mean, in µs) and a "Fastest k" line on stdout, writes the same rows as
// CSV and a ChartWidth × ChartHeight PNG chart of mean time (log scale, a
// bar over each point for its interval) against k, one line per N. Progress
// goes to stderr every few seconds.
//
// The standard deviation is the spread of single trials, wide because a
// trial's time is heavy-tailed (most find a solution at once, a few
// backtrack long); the interval of the mean, Mean ± 1.96·SD/√trials, is how
// sure the mean is, and two k whose intervals do not overlap differ by more
// than chance.
//
// Reproducibility: every (N, k) cell has its own math/rand/v2 PCG
// generator, seeded once from --seed, N and k (rand.NewPCG(seed,
// N<<32|k)), so the same flags and seed give the same failure counts
// whatever the machine and however the cells are spread over its cores
// (--parallel, one goroutine per core by default, the largest boards
// first); re-seeding per attempt, as the original course experiment did
// from the clock, would repeat the same attempts and make the table
// meaningless. Times are wall-clock means and vary with the machine (and a
// little with the other cells running beside them).
//
// The chart is drawn with the standard library's image packages, the
// x/image rasterizer and render's embedded font: no plotting library. Its
// log axis ends on the 1-2-5 series around the data, labelled at both ends,
// so an axis within one decade still reads.
package study
