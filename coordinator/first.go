package coordinator

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/nqueens/nqueens/render"
	"github.com/nqueens/nqueens/solver"
)

// runFirst finds one solution (constructive or Las Vegas) and writes it
// through render: to cfg.Solutions, or to stdout when no output is named.
// It needs no workers: one solution of even a million queens takes well
// under a second on one core.
func runFirst(cfg Config, log hclog.Logger) (Summary, error) {
	opts := render.Options{
		N: cfg.N, Format: cfg.Format, SolutionsPath: cfg.Solutions, Stdout: cfg.Stdout,
		PNGDir: cfg.PNGDir, SVGDir: cfg.SVGDir, SheetPath: cfg.SheetPath, Limit: cfg.Limit,
	}
	if !cfg.wantsSolutions() {
		opts.SolutionsPath = "-"
		cfg.Solutions = "-"
	}
	sink, err := render.Open(opts)
	if err != nil {
		return Summary{}, fmt.Errorf("%w: %w", ErrUsage, err)
	}
	start := time.Now()
	s := Summary{N: cfg.N, Kind: "first", Method: cfg.Method, Tasks: 1, Depth: 0, Workers: 1}
	var cols []int
	switch cfg.Method {
	case "lasvegas":
		cols, s.Failures, err = solver.LasVegas(cfg.N, cfg.K, rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15)))
	default:
		s.Method = "constructive"
		cols, err = solver.Constructive(cfg.N)
	}
	if err != nil {
		sink.Close(0)
		s.Error = err.Error()
		return s, fmt.Errorf("first solution of n=%d: %w", cfg.N, err)
	}
	if err := sink.Write(cols); err != nil {
		sink.Close(0)
		return s, fmt.Errorf("write solution: %w", err)
	}
	if err := sink.Close(1); err != nil {
		return s, fmt.Errorf("write solution: %w", err)
	}
	s.Solutions, s.Committed, s.Complete = 1, 1, true
	s.ElapsedSeconds = time.Since(start).Seconds()
	log.Debug("first solution found", "n", cfg.N, "method", s.Method, "failures", s.Failures)
	if cfg.JSON {
		return s, s.print(cfg)
	}
	_, err = fmt.Fprintf(cfg.Stderr, "N=%d: one solution by %s in %v (%d failed attempts)\n",
		cfg.N, s.Method, time.Duration(s.ElapsedSeconds*float64(time.Second)).Round(time.Microsecond), s.Failures)
	return s, err
}
