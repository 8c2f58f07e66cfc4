package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/nqueens/nqueens/coordinator"
	"github.com/nqueens/nqueens/render"
	"github.com/nqueens/nqueens/solver"
)

// runFirst finds one solution (constructive or Las Vegas) and writes it
// through render: to cfg.Solutions, or to stdout when no output is named.
// It needs no workers: one solution of even a million queens takes well
// under a second on one core. A long Las Vegas search logs its failed
// attempts every progress interval and ends when ctx does (Ctrl-C).
func runFirst(ctx context.Context, cfg options, log hclog.Logger) (coordinator.Summary, error) {
	if err := checkFirst(cfg); err != nil {
		return coordinator.Summary{}, err
	}
	opts := cfg.renderOptions()
	opts.Unique = false
	if !cfg.wantsSolutions() {
		opts.SolutionsPath = "-"
		cfg.Solutions = "-"
	}
	sink, err := render.Open(opts)
	if err != nil {
		return coordinator.Summary{}, fmt.Errorf("%w: %w", coordinator.ErrUsage, err)
	}
	start := time.Now()
	s := coordinator.Summary{N: cfg.N, Kind: "first", Method: cfg.Method, Tasks: 1, Depth: 0, Workers: 1}
	var cols []int
	switch cfg.Method {
	case "lasvegas":
		s.K = cfg.K
		if s.K == autoK {
			s.K = solver.LasVegasK(cfg.N)
		}
		next := start.Add(cfg.ProgressInterval)
		stop := func(failures int) bool {
			if now := time.Now(); now.After(next) {
				next = now.Add(cfg.ProgressInterval)
				log.Info("las vegas: still searching", "n", cfg.N, "k", s.K, "failed_attempts", failures,
					"elapsed", now.Sub(start).Round(time.Millisecond))
			}
			return ctx.Err() != nil
		}
		rng := rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15))
		cols, s.Failures, err = solver.LasVegasUntil(cfg.N, s.K, rng, stop)
		if errors.Is(err, solver.ErrStopped) {
			err = fmt.Errorf("%w after %d failed attempts (%v)", coordinator.ErrInterrupted, s.Failures, context.Cause(ctx))
		}
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
		return s, cfg.printSummary(s)
	}
	how := s.Method
	if s.Method == "lasvegas" {
		how = fmt.Sprintf("lasvegas (k=%d, %d failed attempts)", s.K, s.Failures)
	}
	_, err = fmt.Fprintf(cfg.Stderr, "N=%d: one solution by %s in %v\n",
		cfg.N, how, time.Duration(s.ElapsedSeconds*float64(time.Second)).Round(time.Microsecond))
	return s, err
}

// checkFirst refuses a --first request out of range.
func checkFirst(o options) error {
	if o.N < 1 || o.N > solver.MaxSingleN {
		return fmt.Errorf("%w: --n %d out of range 1..%d", coordinator.ErrUsage, o.N, solver.MaxSingleN)
	}
	switch o.Method {
	case "constructive", "":
	case "lasvegas":
		if o.K != autoK && (o.K < 0 || o.K > o.N) {
			return fmt.Errorf("%w: --k %d out of range 0..%d", coordinator.ErrUsage, o.K, o.N)
		}
	default:
		return fmt.Errorf("%w: unknown --method %q: want constructive or lasvegas", coordinator.ErrUsage, o.Method)
	}
	return nil
}
