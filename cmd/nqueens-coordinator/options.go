package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/nqueens/nqueens/coordinator"
	"github.com/nqueens/nqueens/render"
)

// options is one command line: the job (the embedded coordinator.Config)
// and what only the command does with it: where the solutions, pictures
// and summary go, how progress is shown, and --first.
type options struct {
	coordinator.Config

	// Output of the solutions, through a render.Sink. Any of these makes the
	// workers stream solutions (a KindAll or KindUnique plan).
	Solutions string        // "" none, "-" stdout, else a file
	Format    render.Format // text format (render.Cols)
	PNGDir    string
	SVGDir    string
	SheetPath string
	Limit     int           // pictures cap (0 = render's default)
	Labels    render.Labels // file and rank labels on the pictures (render.NoLabels)

	// First finds one solution instead of counting (Method "constructive"
	// or "lasvegas" with K and Seed).
	First  bool
	Method string
	K      int
	Seed   uint64

	JSON             bool          // one JSON object on Stdout instead of the human summary
	Progress         progressFlag  // how progress is shown on Stderr
	ProgressInterval time.Duration // period of progress log lines (defaultProgressInterval)
	Stdout, Stderr   io.Writer
}

// progressFlag is --progress.
type progressFlag int

const (
	progressAuto progressFlag = iota // a live bar on a terminal, log lines otherwise
	progressBar                      // always the live bar
	progressLog                      // always periodic log lines
	progressOff                      // nothing
)

// defaultProgressInterval is the period of progress log lines when stderr
// is not a terminal.
const defaultProgressInterval = 10 * time.Second

// autoK asks --method lasvegas to choose its random rows (solver.LasVegasK).
const autoK = -1

// wantsSolutions reports whether the run writes solutions or pictures.
func (o options) wantsSolutions() bool {
	return o.Solutions != "" || o.PNGDir != "" || o.SVGDir != "" || o.SheetPath != ""
}

// renderOptions says where render writes the solutions.
func (o options) renderOptions() render.Options {
	return render.Options{
		N: o.N, Format: o.Format, SolutionsPath: o.Solutions, Stdout: o.Stdout,
		PNGDir: o.PNGDir, SVGDir: o.SVGDir, SheetPath: o.SheetPath, Limit: o.Limit, Unique: o.Unique,
		Labels: o.Labels,
	}
}

// openSink opens the listing's outputs, if any, into o.Sink.
func (o *options) openSink() error {
	if !o.wantsSolutions() {
		return nil
	}
	s, err := render.Open(o.renderOptions())
	if err != nil {
		return fmt.Errorf("%w: %w", coordinator.ErrUsage, err)
	}
	o.Sink = s
	return nil
}

// printSummary writes the summary: one JSON object, or the human lines. On
// stdout, unless stdout carries the solutions (--solutions -): then on
// stderr, so a pipe gets the solutions alone.
func (o options) printSummary(s coordinator.Summary) error {
	out := o.Stdout
	if o.Solutions == "-" {
		out = o.Stderr
	}
	if o.JSON {
		b, err := json.Marshal(s)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(out, "%s\n", b)
		return err
	}
	_, err := fmt.Fprint(out, s.Human())
	return err
}

// flagNames maps coordinator.Config fields to the flags that set them, so a
// FieldError reads as the command line the user typed.
var flagNames = map[string]string{
	"N": "--n", "Depth": "--depth", "Listen": "--listen", "Workers": "--workers",
	"Lease": "--lease", "Heartbeat": "--heartbeat", "DrainTimeout": "--drain-timeout",
	"SweepInterval": "--lease", "VerifyFraction": "--verify-fraction", "TaskTarget": "--task-target",
	"MinTasks":    "--min-tasks",
	"MessageRate": "--max-message-rate", "MaxAttempts": "--max-attempts", "MaxWorkers": "--max-workers",
	"Pins": "--fix", "Engine": "--engine", "WorkerMemory": "--worker-memory",
}

// usageLine is the one line of a usage error: a FieldError names its flag.
func usageLine(err error) string {
	var fe *coordinator.FieldError
	if errors.As(err, &fe) {
		if flag, ok := flagNames[fe.Field]; ok {
			return flag + " " + fe.Msg
		}
	}
	msg := err.Error()
	if p := coordinator.ErrUsage.Error() + ": "; len(msg) > len(p) && msg[:len(p)] == p {
		return msg[len(p):]
	}
	return msg
}
