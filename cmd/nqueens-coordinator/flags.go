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

// processOptions are the flags of this process rather than of the job
// (coordinator.Config): logging, the journal file and how to resume it,
// the status server, TLS and the token, which main wires around the job.
type processOptions struct {
	level  string
	json   bool
	state  string
	resume bool // resume the journal in state (--resume, or --resume=auto that found one)
	// resumeMode is --resume as given: off, on, or auto (resume the journal
	// if there is one, else start anew; resolved into resume by resolveResume).
	resumeMode resumeMode
	given      map[string]bool // the flags set on the command line
	http       string          // --http: the status server's HOST:PORT ("" = off)
	pprof      bool            // --pprof: /debug/pprof/ on the status server
	httpTLS    bool            // --http-tls: the status server over HTTPS with tlsCert and tlsKey
	tlsCert    string          // --tls-cert
	tlsKey     string          // --tls-key
	token      auth.Token      // the join token, which the status server requires too
	tokenFile  string          // --token-file: where the token is, instead of --token
	trace      traceOptions    // --trace and its caps (learn.go)
	fix        string          // --fix: the pinned queens as typed (fix.go)
}

const usageHead = `Usage: nqueens-coordinator --n N [flags]
       nqueens-coordinator --resume --state FILE [flags]   (N, depth and kind from FILE)
       nqueens-coordinator --n N --resume=auto --state FILE [flags]   (resume FILE if it holds a job, else start anew)
       nqueens-coordinator export --state FILE [--format csv|jsonl]   (run "nqueens-coordinator export -h")
       nqueens-coordinator study lasvegas [flags]   (run "nqueens-coordinator study -h")

Counts the solutions of the N-Queens puzzle (total and fundamental), or lists
them, on a cluster: the search is split into tasks leased to workers over
gRPC. Embedded workers (--workers) run in this process as real gRPC clients;
remote ones join with "nqueens-worker --join HOST:PORT".

Output: a short summary on stdout (or one JSON object with --json), on
stderr instead when the solutions go to stdout; progress on stderr (a live
bar on a terminal, log lines otherwise). Flags that mean nothing together
(--k without --method lasvegas, --format without --solutions, ...) are
refused.
Exit status: 0 success, 1 failed or interrupted run, 2 bad usage.

Examples:
  nqueens-coordinator --n 12                       # count on this machine's cores
  nqueens-coordinator --n 8 --solutions - --format board   # print the 92 boards
  nqueens-coordinator --n 1000000 --first --solutions queens.txt
  # remote workers only ("nqueens-worker --join HOST:7070"), the dashboard on :8080
  nqueens-coordinator --n 18 --workers 0 --listen 0.0.0.0:7070 --http 127.0.0.1:8080
  # a journal: the same command after a crash goes on where it stopped
  nqueens-coordinator --n 20 --state n20.journal --resume=auto
  nqueens-coordinator export --state n20.journal > n20.csv   # a row per task

Environment: every flag can be set as NQUEENS_<FLAG> instead, upper case
with - as _ (NQUEENS_N=18, NQUEENS_TASK_TARGET=2s, NQUEENS_TOKEN); the
command line wins, and an empty variable counts as unset. The subcommands
read no environment.

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

// resumeMode is --resume: a bool flag (--resume, --resume=true|false and
// the other strconv.ParseBool spellings) that also takes auto.
type resumeMode int

const (
	resumeOff  resumeMode = iota // start a new job (the default)
	resumeOn                     // continue the job in --state; it must be there
	resumeAuto                   // continue the job in --state if there is one, else start anew
)

func (r resumeMode) String() string {
	switch r {
	case resumeOn:
		return "true"
	case resumeAuto:
		return "auto"
	}
	return "false"
}

func (r *resumeMode) Set(s string) error {
	if s == "auto" {
		*r = resumeAuto
		return nil
	}
	b, err := strconv.ParseBool(s)
	if err != nil {
		return fmt.Errorf("want true, false or auto")
	}
	*r = resumeOff
	if b {
		*r = resumeOn
	}
	return nil
}

// IsBoolFlag lets a bare --resume mean --resume=true.
func (r *resumeMode) IsBoolFlag() bool { return true }

// Minimums of the duration flags. Below them a run does not fail at once:
// it spins, floods or never finishes, so they are refused at parse time.
const (
	// minLease: a lease must outlast a worker's round trip to report and a
	// GC pause; a shorter one expires under every healthy worker, so every
	// task is taken back before it can be committed and the job never ends.
	minLease = 100 * time.Millisecond
	// minHeartbeat: every heartbeat is one message per worker; faster ones
	// spend the coordinator on bookkeeping and run into --max-message-rate.
	minHeartbeat = 10 * time.Millisecond
	// minDrainTimeout: shutdown must leave a worker one round trip to get
	// Drain and hand its leases back.
	minDrainTimeout = 100 * time.Millisecond
	// minProgressInterval: a shorter period of progress lines spends more
	// on logging than on the search.
	minProgressInterval = 10 * time.Millisecond
)

// flagText holds the flags parsed from text after fs.Parse.
type flagText struct {
	format, k, progress *string
}

// defineFlags binds every flag of the command to cfg, lo and ac.
func defineFlags(fs *flag.FlagSet, cfg *options, lo *processOptions, ac *auth.Config) flagText {
	var ft flagText
	fs.IntVar(&cfg.N, "n", 0, "board size N (required unless --resume): 1..32 for counting and listing, up to 100000000 with --first")
	fs.IntVar(&cfg.Workers, "workers", cfg.Workers, "embedded workers, one slot (one core) each; 0 = wait for remote workers only; the default is this machine's number of CPUs")
	fs.StringVar(&cfg.Listen, "listen", coordinator.DefaultListen, "`HOST:PORT` of the gRPC server for remote workers (port 0 picks one; the bound address is logged)")
	fs.Var(depthFlag{&cfg.Depth}, "depth", "the plan's task size (`D` 0..7, or auto): 3 border queens, then up to 4 rows; auto gives tens of tasks per worker slot; tasks are split deeper on demand (--task-target)")
	registerEngine(fs, cfg) // engine.go
	fs.Var(negBool{&cfg.NoSplit}, "split", "split tasks on demand (the default); --split=false keeps the plan's tasks as they are")
	fs.DurationVar(&cfg.TaskTarget, "task-target", coordinator.DefaultTaskTarget, "the task duration splitting aims at: a task estimated longer is split into its children before it is leased, and near the end a task leased longer is taken back and split")
	fs.IntVar(&cfg.MinTasks, "min-tasks", 0, "split until every task is at most 1/`M` of the board's work, so that at least M tasks are made over the run (a load test of a long run's bookkeeping, with nqbench cluster --synthetic); 0: off")
	fs.DurationVar(&cfg.Lease, "lease", cfg.Lease, fmt.Sprintf("how long a task stays with a worker that sends no heartbeat (at least %v)", minLease))
	fs.DurationVar(&cfg.Heartbeat, "heartbeat", 0, fmt.Sprintf("heartbeat interval asked of workers, at least %v and under half the lease (default lease/6)", minHeartbeat))
	fs.IntVar(&cfg.MaxAttempts, "max-attempts", coordinator.DefaultMaxAttempts, "failed attempts per task before the job fails")
	fs.DurationVar(&cfg.DrainTimeout, "drain-timeout", coordinator.DefaultDrainTimeout, fmt.Sprintf("how long shutdown waits for workers and connections before cutting them off (at least %v)", minDrainTimeout))
	fs.Float64Var(&cfg.VerifyFraction, "verify-fraction", 0, fmt.Sprintf("compute this fraction (0..1) of committed tasks again on another worker; a worker caught lying is quarantined (default: %g of the remote workers' tasks on a board with no published count, none otherwise; 0 turns it off)", coordinator.DefaultRemoteVerifyFraction))
	fs.Float64Var(&cfg.MessageRate, "max-message-rate", coordinator.DefaultMessageRate, "messages one worker may send per second beyond three per task; a worker that floods is cut off (ResourceExhausted) and its tasks go back")
	fs.IntVar(&cfg.MaxWorkers, "max-workers", 0, "workers joined at once at most (0: 16384); a Join beyond it is refused with ResourceExhausted, which workers retry")
	fs.BoolVar(&cfg.JSON, "json", false, "print one JSON object instead of the summary (on stdout; on stderr when the solutions go to stdout)")
	fs.StringVar(&cfg.Solutions, "solutions", "", "write every solution to `PATH` (- = stdout), in the sequential backtracker's order")
	ft.format = fs.String("format", "cols", "text format of --solutions: cols, coords, matrix or board")
	fs.StringVar(&cfg.PNGDir, "png", "", "write one PNG picture per solution into `DIR` (see --limit)")
	fs.StringVar(&cfg.SVGDir, "svg", "", "write one SVG picture per solution into `DIR` (see --limit)")
	fs.StringVar(&cfg.SheetPath, "sheet", "", "write a contact sheet of the solutions to `FILE.png`")
	fs.IntVar(&cfg.Limit, "limit", 0, fmt.Sprintf("cap on pictures per kind (default %d)", render.DefaultLimit))
	// Learners (learn.go): labelled pictures, the backtracking trace.
	lo.trace.register(fs)
	registerFix(fs, &lo.fix)
	fs.Var(labelsFlag{&cfg.Labels}, "labels", "label files and ranks on --png, --svg and --sheet pictures: files a-h (1..N beyond 26 files), ranks 1-8 from the top row as --format coords counts rows; --labels=chess counts ranks from the bottom as a chess diagram does; --labels=numbers numbers both")
	fs.BoolVar(&cfg.Unique, "unique", false, "with an output: list only fundamental solutions, one representative per symmetry class")
	fs.BoolVar(&cfg.First, "first", false, "find one solution quickly instead of all (any N up to 100000000)")
	fs.StringVar(&cfg.Method, "method", "constructive", "with --first: constructive or lasvegas")
	ft.k = fs.String("k", "auto", "with --method lasvegas: place `K` rows (0..N) at random before backtracking; auto leaves the last min(20, max(4, 0.4·N)) rows to backtracking")
	fs.Uint64Var(&cfg.Seed, "seed", 1, "with --method lasvegas: random seed (the same seed gives the same solution)")
	ft.progress = fs.String("progress", "auto", "progress on stderr: auto (bar on a terminal, else log lines), bar, log or off")
	fs.DurationVar(&cfg.ProgressInterval, "progress-interval", defaultProgressInterval, fmt.Sprintf("period of progress log lines (at least %v)", minProgressInterval))
	fs.Var(&ac.Token, "token", "shared join `TOKEN` workers must present (never logged; "+auth.EnvToken+" in the environment)")
	fs.StringVar(&lo.tokenFile, "token-file", "", "read the join token from `FILE` instead (a mounted Kubernetes Secret; white space around it dropped)")
	fs.StringVar(&lo.http, "http", "", "serve the dashboard, /metrics, /api/status and /healthz on `HOST:PORT` (off when empty; port 0 picks one; everything but /healthz needs the token when one is set)")
	fs.BoolVar(&lo.pprof, "pprof", false, "also serve /debug/pprof/ on --http")
	fs.BoolVar(&cfg.SyntheticLoad, "synthetic-load", false, "the workers answer made-up counts (nqbench cluster --synthetic, a load test): the final count is not compared with the board's published count")
	fs.BoolVar(&lo.httpTLS, "http-tls", false, "serve --http over HTTPS with the certificate of --tls-cert and --tls-key")
	fs.StringVar(&ac.CertFile, "tls-cert", "", "serve TLS with this PEM certificate `FILE` (read again when it changes)")
	fs.StringVar(&ac.KeyFile, "tls-key", "", "PEM private key `FILE` of --tls-cert")
	fs.StringVar(&ac.CAFile, "tls-ca", "", "require worker certificates signed by this PEM CA `FILE` (mutual TLS)")
	fs.StringVar(&lo.state, "state", "", "journal every committed task to `FILE` (fsynced before the worker is acknowledged)")
	fs.Var(&lo.resumeMode, "resume", "continue the job journaled in --state after a crash: only unfinished tasks run again; N, depth and kind come from the journal. "+
		"--resume=auto (or --resume auto) resumes the journal if --state holds one and starts anew (with --n) if not, for a container that is restarted; --resume=false is the default")
	fs.StringVar(&lo.level, "log-level", "info", "log level: trace, debug, info, warn, error or off")
	fs.BoolVar(&lo.json, "log-json", false, "log as JSON lines")
	return ft
}

// parseFlags turns the command line into a Config. Usage problems come back
// as one-line errors; -h prints the help on stdout and returns errHelp.
// With --resume the journal's settings are not read yet (see resumeFrom).
func parseFlags(args []string, stdout, stderr io.Writer) (options, processOptions, error) {
	cfg := options{Config: coordinator.NewConfig(0), Format: render.Cols, Method: "constructive"}
	var lo processOptions
	var ac auth.Config
	fs := flag.NewFlagSet("coordinator", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	ft := defineFlags(fs, &cfg, &lo, &ac)
	if err := parseArgs(fs, args, stdout, &lo.resumeMode); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return cfg, lo, errHelp
		}
		return cfg, lo, err
	}
	onArgs := cli.Given(fs)
	if err := cli.FromEnv(fs, os.LookupEnv); err != nil {
		return cfg, lo, fmt.Errorf("%v (see coordinator -h)", err)
	}
	lo.given = cli.Given(fs)
	if lo.given["verify-fraction"] {
		cfg.RemoteVerifyFraction = cfg.VerifyFraction // for every worker; 0 turns verification off
	}
	lo.tlsCert, lo.tlsKey = ac.CertFile, ac.KeyFile
	if !lo.given["listen"] {
		cfg.Listen = "" // the default, and nobody asked where
	}
	if err := fixConflicts(cfg, lo); err != nil { // fix.go
		return cfg, lo, err
	}
	if err := resolveResume(&lo); err != nil {
		return cfg, lo, err
	}
	if !lo.given["n"] && !lo.resume { // --n 0 is out of range, not missing
		if lo.resumeMode == resumeAuto {
			return cfg, lo, fmt.Errorf("--resume=auto found no job in --state %s: --n N is required to start one (see coordinator -h)", lo.state)
		}
		return cfg, lo, errors.New("--n N is required (see coordinator -h)")
	}
	if err := parseText(ft, &cfg); err != nil {
		return cfg, lo, err
	}
	if err := checkDurations(cfg, lo.given); err != nil {
		return cfg, lo, err
	}
	if err := checkCombinations(cfg, lo); err != nil {
		return cfg, lo, err
	}
	if err := parseFix(&cfg, lo); err != nil {
		return cfg, lo, err
	}
	if hclog.LevelFromString(lo.level) == hclog.NoLevel {
		return cfg, lo, fmt.Errorf("--log-level %q: want trace, debug, info, warn, error or off", lo.level)
	}
	if err := readTokenFile(&ac.Token, lo.tokenFile, lo.given, onArgs); err != nil {
		return cfg, lo, err
	}
	var err error
	lo.token = ac.Token
	if cfg.ServerOptions, err = ac.ServerOptions(); err != nil {
		return cfg, lo, err
	}
	if cfg.Workers > 0 {
		if cfg.WorkerDialOptions, err = embeddedClient(ac).DialOptions(); err != nil {
			return cfg, lo, err
		}
	}
	return cfg, lo, nil
}

// readTokenFile sets *tok from --token-file when that is the token flag
// to use (cli.Pick: --token and --token-file are rivals, the command line
// wins over the environment).
func readTokenFile(tok *auth.Token, file string, given, onArgs map[string]bool) error {
	which, err := cli.Pick("token", "token-file", given, onArgs)
	if err != nil || which != "token-file" {
		return err
	}
	*tok, err = auth.ReadTokenFile(file)
	return err
}

// parseArgs parses args into fs (see cli.Parse). A bool flag takes no
// separate value, so "--resume auto" would stop the parse at "auto": when
// the argument the parse stopped at is "auto" right after a bare --resume,
// it is --resume's value, and the parse goes on after it.
func parseArgs(fs *flag.FlagSet, args []string, stdout io.Writer, resume *resumeMode) error {
	for {
		if err := cli.Parse(fs, args, stdout, usageHead); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return err
			}
			return fmt.Errorf("%v (see coordinator -h)", err)
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return nil
		}
		if at := len(args) - len(rest); rest[0] == "auto" && at > 0 && (args[at-1] == "--resume" || args[at-1] == "-resume") {
			*resume = resumeAuto
			args = rest[1:]
			continue
		}
		return fmt.Errorf("unexpected argument %q (see coordinator -h)", rest[0])
	}
}

// parseText reads the flags given as text: --k, --format and --progress.
func parseText(ft flagText, cfg *options) error {
	cfg.K = autoK
	if *ft.k != "auto" {
		k, err := strconv.Atoi(*ft.k)
		if err != nil || k < 0 {
			return fmt.Errorf("--k %q: want a number of rows or auto", *ft.k)
		}
		cfg.K = k
	}
	f, err := render.ParseFormat(*ft.format)
	if err != nil {
		return fmt.Errorf("--format: %v", err)
	}
	cfg.Format = f
	switch *ft.progress {
	case "auto":
		cfg.Progress = progressAuto
	case "bar":
		cfg.Progress = progressBar
	case "log":
		cfg.Progress = progressLog
	case "off":
		cfg.Progress = progressOff
	default:
		return fmt.Errorf("--progress %q: want auto, bar, log or off", *ft.progress)
	}
	return nil
}

// checkDurations refuses the durations and counts under their minimums
// (see minLease and the others), and values that only mean "the default"
// in Config when they are given on the command line.
func checkDurations(cfg options, given map[string]bool) error {
	switch {
	case cfg.Lease < minLease:
		return fmt.Errorf("--lease %v is too short: at least %v", cfg.Lease, minLease)
	case given["heartbeat"] && cfg.Heartbeat < minHeartbeat:
		return fmt.Errorf("--heartbeat %v is too short: at least %v", cfg.Heartbeat, minHeartbeat)
	case given["heartbeat"] && cfg.Heartbeat >= cfg.Lease/2:
		return fmt.Errorf("--heartbeat %v must be under half the lease (--lease %v), so one late heartbeat does not lose the tasks", cfg.Heartbeat, cfg.Lease)
	case cfg.DrainTimeout < minDrainTimeout:
		return fmt.Errorf("--drain-timeout %v is too short: at least %v", cfg.DrainTimeout, minDrainTimeout)
	case cfg.ProgressInterval < minProgressInterval:
		return fmt.Errorf("--progress-interval %v is too short: at least %v", cfg.ProgressInterval, minProgressInterval)
	case cfg.MaxAttempts < 1:
		return fmt.Errorf("--max-attempts %d must be at least 1", cfg.MaxAttempts)
	case given["max-message-rate"] && !(cfg.MessageRate > 0):
		return fmt.Errorf("--max-message-rate %v must be positive", cfg.MessageRate)
	case given["task-target"] && cfg.TaskTarget <= 0:
		return fmt.Errorf("--task-target %v must be positive", cfg.TaskTarget)
	}
	return nil
}

// firstExcludes are the flags of a cluster run, meaningless with --first
// (one solution, found on this machine without workers or a journal).
var firstExcludes = []string{"workers", "listen", "depth", "task-target", "min-tasks", "split", "lease", "heartbeat", "max-attempts", "drain-timeout",
	"verify-fraction", "max-message-rate", "max-workers", "token", "token-file", "tls-cert", "tls-key", "tls-ca", "state", "resume", "unique", "limit",
	"progress", "http", "pprof", "http-tls"}

// checkCombinations refuses flags that mean nothing with the others given,
// naming the conflict, instead of ignoring them.
func checkCombinations(cfg options, lo processOptions) error {
	given := lo.given
	pictures := cfg.PNGDir != "" || cfg.SVGDir != "" || cfg.SheetPath != ""
	outputs := cfg.Solutions != "" || pictures
	if cfg.First {
		for _, name := range firstExcludes {
			if given[name] {
				return fmt.Errorf("--%s does not apply to --first, which finds one solution on this machine", name)
			}
		}
		for _, name := range []string{"k", "seed", "progress-interval"} {
			if given[name] && cfg.Method != "lasvegas" {
				return fmt.Errorf("--%s applies to --method lasvegas, not --method %s", name, cfg.Method)
			}
		}
	} else {
		for _, name := range []string{"method", "k", "seed"} {
			if given[name] {
				return fmt.Errorf("--%s applies to --first only", name)
			}
		}
		if cfg.Unique && !outputs {
			return errors.New("--unique lists fundamental solutions: add --solutions, --png, --svg or --sheet (a count reports them already)")
		}
	}
	switch {
	case given["format"] && cfg.Solutions == "" && (!cfg.First || pictures):
		return errors.New("--format is the text format of --solutions: add --solutions PATH")
	case given["limit"] && !pictures:
		return errors.New("--limit caps pictures: add --png, --svg or --sheet")
	case given["limit"] && cfg.Limit < 1:
		return fmt.Errorf("--limit %d must be at least 1", cfg.Limit)
	case lo.pprof && lo.http == "":
		return errors.New("--pprof serves /debug/pprof/ on the status server: add --http HOST:PORT")
	case lo.httpTLS && lo.http == "":
		return errors.New("--http-tls serves the status server over HTTPS: add --http HOST:PORT")
	case lo.httpTLS && (lo.tlsCert == "" || lo.tlsKey == ""):
		return errors.New("--http-tls serves the certificate of --tls-cert and --tls-key: add both")
	case lo.resumeMode != resumeOff && lo.state == "":
		return errors.New("--resume needs --state FILE")
	case given["progress-interval"] && (cfg.Progress == progressOff || cfg.Progress == progressBar):
		return errors.New("--progress-interval is the period of progress log lines: it does not apply to --progress off or bar")
	}
	return nil
}

// embeddedClient is how embedded workers dial their own coordinator: over
// loopback with the same token; over TLS they trust the CA (or the server
// certificate itself) and present the server's key pair when mutual TLS
// is on.
func embeddedClient(ac auth.Config) auth.Config {
	client := auth.Config{Token: ac.Token}
	if ac.ServerTLSEnabled() {
		client.CAFile, client.ServerName = ac.CAFile, "localhost"
		if client.CAFile == "" {
			client.CAFile = ac.CertFile
		} else {
			client.CertFile, client.KeyFile = ac.CertFile, ac.KeyFile
		}
	}
	return client
}

// newLogger builds the process's one hclog logger on stderr.
func newLogger(lo processOptions, stderr io.Writer) hclog.Logger {
	return hclog.New(&hclog.LoggerOptions{
		Name:       "coordinator",
		Level:      hclog.LevelFromString(lo.level),
		JSONFormat: lo.json,
		Output:     stderr,
		TimeFormat: cli.LogTimeFormat,
	})
}

// negBool is a boolean flag that sets *v to its negation: --split=false
// sets Config.NoSplit.
type negBool struct{ v *bool }

func (b negBool) String() string {
	if b.v == nil || !*b.v {
		return "true"
	}
	return "false"
}

func (b negBool) Set(s string) error {
	on, err := strconv.ParseBool(s)
	if err != nil {
		return fmt.Errorf("want true or false, got %q", s)
	}
	*b.v = !on
	return nil
}

// IsBoolFlag lets a bare --split mean --split=true.
func (negBool) IsBoolFlag() bool { return true }
