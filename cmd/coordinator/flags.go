package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/nqueens/nqueens/auth"
	"github.com/nqueens/nqueens/coordinator"
	"github.com/nqueens/nqueens/internal/cli"
	"github.com/nqueens/nqueens/render"
)

// errHelp says -h was asked for and answered.
var errHelp = errors.New("help shown")

// logOptions are the logging flags, and the state flags that need the
// logger to be wired.
type logOptions struct {
	level  string
	json   bool
	state  string
	resume bool
	trace  traceOptions // --trace and its caps (learn.go)
}

const usageHead = `Usage: coordinator --n N [flags]
       coordinator study lasvegas [flags]   (run "coordinator study -h")

Counts the solutions of the N-Queens puzzle (total and fundamental), or lists
them, on a cluster: the search is split into tasks leased to workers over
gRPC. Embedded workers (--workers) run in this process as real gRPC clients;
remote ones join with "worker --join HOST:PORT".

Output: a short summary on stdout (or one JSON object with --json); progress
on stderr (a live bar on a terminal, log lines otherwise).
Exit status: 0 success, 1 failed or interrupted run, 2 bad usage.

Flags:
`

// depthFlag is --depth: a number or "auto".
type depthFlag struct{ v *int }

func (d depthFlag) String() string {
	if d.v == nil || *d.v == coordinator.AutoDepth {
		return "auto"
	}
	return strconv.Itoa(*d.v)
}

func (d depthFlag) Set(s string) error {
	if s == "auto" {
		*d.v = coordinator.AutoDepth
		return nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return fmt.Errorf("want a number of rows or auto")
	}
	*d.v = n
	return nil
}

// parseFlags turns the command line into a Config. Usage problems come back
// as one-line errors; -h prints the help on stdout and returns errHelp.
func parseFlags(args []string, stdout, stderr io.Writer) (options, logOptions, error) {
	cfg := options{Config: coordinator.NewConfig(0), Format: render.Cols, Method: "constructive"}
	var lo logOptions
	fs := flag.NewFlagSet("coordinator", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.IntVar(&cfg.N, "n", 0, "board size N (required): 1..32 for counting and listing, up to 100000000 with --first")
	fs.IntVar(&cfg.Workers, "workers", cfg.Workers, "embedded workers, one slot (one core) each; 0 = wait for remote workers only; the default is this machine's number of CPUs")
	fs.StringVar(&cfg.Listen, "listen", coordinator.DefaultListen, "`HOST:PORT` of the gRPC server for remote workers (port 0 picks one; the bound address is logged)")
	fs.Var(depthFlag{&cfg.Depth}, "depth", "task size (`D` 0..5, or auto): 3 border queens, then up to 2 rows; auto gives tens of tasks per worker slot")
	fs.DurationVar(&cfg.Lease, "lease", cfg.Lease, "how long a task stays with a worker that sends no heartbeat")
	fs.DurationVar(&cfg.Heartbeat, "heartbeat", 0, "heartbeat interval asked of workers (default lease/6)")
	fs.IntVar(&cfg.MaxAttempts, "max-attempts", coordinator.DefaultMaxAttempts, "failed attempts per task before the job fails")
	fs.DurationVar(&cfg.DrainTimeout, "drain-timeout", coordinator.DefaultDrainTimeout, "how long shutdown waits for workers before cutting them off")
	fs.Float64Var(&cfg.VerifyFraction, "verify-fraction", 0, "compute this fraction (0..1) of committed tasks again on another worker; a worker caught lying is quarantined")
	fs.Float64Var(&cfg.MessageRate, "max-message-rate", coordinator.DefaultMessageRate, "messages one worker may send per second beyond three per task; a worker that floods is cut off (ResourceExhausted) and its tasks go back")
	fs.BoolVar(&cfg.JSON, "json", false, "print one JSON object on stdout instead of the summary")
	fs.StringVar(&cfg.Solutions, "solutions", "", "write every solution to `PATH` (- = stdout), in the sequential backtracker's order")
	format := fs.String("format", "cols", "text format of --solutions: cols, coords, matrix or board")
	fs.StringVar(&cfg.PNGDir, "png", "", "write one PNG picture per solution into `DIR` (see --limit)")
	fs.StringVar(&cfg.SVGDir, "svg", "", "write one SVG picture per solution into `DIR` (see --limit)")
	fs.StringVar(&cfg.SheetPath, "sheet", "", "write a contact sheet of the solutions to `FILE.png`")
	fs.IntVar(&cfg.Limit, "limit", 0, fmt.Sprintf("cap on pictures per kind (default %d)", render.DefaultLimit))
	// Learners (learn.go): labelled pictures, the backtracking trace.
	lo.trace.register(fs)
	fs.Var(labelsFlag{&cfg.Labels}, "labels", "label files and ranks on --png, --svg and --sheet pictures: a-h / 1-8 like a chessboard (1..N beyond 26 files); --labels=numbers numbers both")
	fs.BoolVar(&cfg.Unique, "unique", false, "fundamental solutions only: list one representative per symmetry class")
	fs.BoolVar(&cfg.First, "first", false, "find one solution quickly instead of all (any N up to 100000000)")
	fs.StringVar(&cfg.Method, "method", "constructive", "with --first: constructive or lasvegas")
	kFlag := fs.String("k", "auto", "with --method lasvegas: place `K` rows (0..N) at random before backtracking; auto leaves the last min(20, max(4, 0.4·N)) rows to backtracking")
	fs.Uint64Var(&cfg.Seed, "seed", 1, "with --method lasvegas: random seed (the same seed gives the same solution)")
	progress := fs.String("progress", "auto", "progress on stderr: auto (bar on a terminal, else log lines), bar, log or off")
	fs.DurationVar(&cfg.ProgressInterval, "progress-interval", defaultProgressInterval, "period of progress log lines")
	var ac auth.Config
	ac.Token = auth.NewToken(os.Getenv("NQUEENS_TOKEN"))
	fs.Var(&ac.Token, "token", "shared join `TOKEN` workers must present (default $NQUEENS_TOKEN; never logged)")
	fs.StringVar(&ac.CertFile, "tls-cert", "", "serve TLS with this PEM certificate `FILE`")
	fs.StringVar(&ac.KeyFile, "tls-key", "", "PEM private key `FILE` of --tls-cert")
	fs.StringVar(&ac.CAFile, "tls-ca", "", "require worker certificates signed by this PEM CA `FILE` (mutual TLS)")
	fs.StringVar(&lo.state, "state", "", "journal every committed task to `FILE` (fsynced before the worker is acknowledged)")
	fs.BoolVar(&lo.resume, "resume", false, "continue the job journaled in --state after a crash: only unfinished tasks run again")
	fs.StringVar(&lo.level, "log-level", "info", "log level: trace, debug, info, warn, error or off")
	fs.BoolVar(&lo.json, "log-json", false, "log as JSON lines")
	if err := cli.Parse(fs, args, stdout, usageHead); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return cfg, lo, errHelp
		}
		return cfg, lo, fmt.Errorf("%v (see coordinator -h)", err)
	}
	if fs.NArg() > 0 {
		return cfg, lo, fmt.Errorf("unexpected argument %q (see coordinator -h)", fs.Arg(0))
	}
	nSet, listenSet := false, false // --n 0 is out of range, not missing
	fs.Visit(func(f *flag.Flag) { nSet, listenSet = nSet || f.Name == "n", listenSet || f.Name == "listen" })
	if !listenSet {
		cfg.Listen = "" // the default, and nobody asked where
	}
	if !nSet {
		return cfg, lo, errors.New("--n N is required (see coordinator -h)")
	}
	cfg.K = autoK
	if *kFlag != "auto" {
		k, err := strconv.Atoi(*kFlag)
		if err != nil {
			return cfg, lo, fmt.Errorf("--k %q: want a number of rows or auto", *kFlag)
		}
		cfg.K = k
	}
	f, err := render.ParseFormat(*format)
	if err != nil {
		return cfg, lo, fmt.Errorf("--format: %v", err)
	}
	cfg.Format = f
	switch *progress {
	case "auto":
		cfg.Progress = progressAuto
	case "bar":
		cfg.Progress = progressBar
	case "log":
		cfg.Progress = progressLog
	case "off":
		cfg.Progress = progressOff
	default:
		return cfg, lo, fmt.Errorf("--progress %q: want auto, bar, log or off", *progress)
	}
	if lo.resume && lo.state == "" {
		return cfg, lo, errors.New("--resume needs --state FILE")
	}
	if hclog.LevelFromString(lo.level) == hclog.NoLevel {
		return cfg, lo, fmt.Errorf("--log-level %q: want trace, debug, info, warn, error or off", lo.level)
	}
	if cfg.ServerOptions, err = ac.ServerOptions(); err != nil {
		return cfg, lo, err
	}
	// Embedded workers dial loopback with the same token; over TLS they
	// trust the CA (or the server certificate itself) and present the
	// server's key pair when mutual TLS is on.
	client := auth.Config{Token: ac.Token}
	if ac.ServerTLSEnabled() {
		client.CAFile, client.ServerName = ac.CAFile, "localhost"
		if client.CAFile == "" {
			client.CAFile = ac.CertFile
		} else {
			client.CertFile, client.KeyFile = ac.CertFile, ac.KeyFile
		}
	}
	if cfg.Workers > 0 {
		if cfg.WorkerDialOptions, err = client.DialOptions(); err != nil {
			return cfg, lo, err
		}
	}
	return cfg, lo, nil
}

// newLogger builds the process's one hclog logger on stderr.
func newLogger(lo logOptions, stderr io.Writer) hclog.Logger {
	return hclog.New(&hclog.LoggerOptions{
		Name:       "coordinator",
		Level:      hclog.LevelFromString(lo.level),
		JSONFormat: lo.json,
		Output:     stderr,
		TimeFormat: time.RFC3339,
	})
}
