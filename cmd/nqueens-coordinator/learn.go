package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/nqueens/nqueens/render"
	"github.com/nqueens/nqueens/trace"
)

// labelsFlag is --labels: bare it means letters (files a-h, ranks 1-8 from
// the top, as the text formats count rows), or --labels=chess (ranks from
// the bottom), --labels=numbers, --labels=off.
type labelsFlag struct{ v *render.Labels }

func (l labelsFlag) String() string {
	if l.v == nil {
		return render.NoLabels.String()
	}
	return l.v.String()
}

func (l labelsFlag) Set(s string) error {
	m, err := render.ParseLabels(s)
	if err != nil {
		return err
	}
	*l.v = m
	return nil
}

// IsBoolFlag lets --labels stand alone.
func (labelsFlag) IsBoolFlag() bool { return true }

// traceOptions are --trace, --trace-steps and --trace-until.
type traceOptions struct {
	path         string
	steps, until int
}

// register adds the trace flags to fs.
func (o *traceOptions) register(fs *flag.FlagSet) {
	fs.StringVar(&o.path, "trace", "", "film the plain backtracker (N ≤ 12) step by step into `FILE`.gif, .svg or .html, here, without the cluster, and exit")
	fs.IntVar(&o.steps, "trace-steps", trace.DefaultMaxSteps, "with --trace: at most `M` frames; the caption says \"first M of T steps\"")
	fs.IntVar(&o.until, "trace-until", 0, "with --trace: stop after the `K`-th solution (0 = search the whole board)")
}

// capped reports whether a cap of the trace was changed from its default.
func (o traceOptions) capped() bool { return o.steps != trace.DefaultMaxSteps || o.until != 0 }

// check reports a usage problem of the trace flags in one line.
func (o traceOptions) check(n int) error {
	switch {
	case o.path == "":
		return errors.New("--trace-steps and --trace-until need --trace FILE")
	case trace.CheckPath(o.path) != nil:
		return fmt.Errorf("--trace: want a FILE.gif, .svg or .html, not %q", o.path)
	case n < 1 || n > trace.MaxN:
		return fmt.Errorf("--trace: --n %d is out of range: the trace films boards of 1..%d", n, trace.MaxN)
	case o.steps < 1 || o.steps > trace.MaxMaxSteps:
		return fmt.Errorf("--trace-steps %d: want 1..%d", o.steps, trace.MaxMaxSteps)
	case o.until < 0:
		return fmt.Errorf("--trace-until %d: want a solution number, or 0 for all", o.until)
	}
	return nil
}

// runTrace records and writes the trace of an n-board: the whole command
// when --trace is given. It returns the exit status.
func runTrace(n int, o traceOptions, stdout, stderr io.Writer) int {
	if err := o.check(n); err != nil {
		fmt.Fprintf(stderr, "coordinator: %v\n", err)
		return 2
	}
	t, err := trace.Record(n, trace.Options{MaxSteps: o.steps, Until: o.until})
	if err != nil {
		fmt.Fprintf(stderr, "coordinator: --trace: %v\n", err)
		return 2
	}
	if err := trace.Write(o.path, t); err != nil {
		fmt.Fprintf(stderr, "coordinator: %v\n", err)
		return 1
	}
	frames := fmt.Sprintf("%d steps", t.Total)
	if t.Capped() {
		frames = fmt.Sprintf("first %d of %d steps", len(t.Steps), t.Total)
	}
	sols := fmt.Sprintf("%d solutions", t.Found)
	if t.Found == 1 {
		sols = "1 solution"
	}
	fmt.Fprintf(stdout, "N=%d: trace of the backtracker, %s, %s, written to %s\n", n, frames, sols, o.path)
	return 0
}
