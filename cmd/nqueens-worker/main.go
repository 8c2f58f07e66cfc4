// Command worker joins an nqueens coordinator and runs the tasks it leases,
// one per slot, until the job ends:
//
//	worker --join 127.0.0.1:7070 --slots 2
//
// It retries joining for --join-timeout (so it may start before the
// coordinator, or wait for a place in a full one; 0 is one attempt), saying every few seconds
// what it waits for, rejoins after a broken stream, and on SIGINT or SIGTERM
// hands its leases back and exits. A refusal for what it sent (a bad token,
// another solver version) is logged and ends it at once. Exit status: 0
// when the job ended (or the worker was stopped by a signal), 2 on bad
// usage, 1 when it cannot join or was refused. Every flag can also come
// from the environment as NQUEENS_<FLAG> (cli.FromEnv).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"syscall"

	"github.com/hashicorp/go-hclog"

	"github.com/nqueens/nqueens/auth"
	"github.com/nqueens/nqueens/internal/cli"
	"github.com/nqueens/nqueens/worker"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

const usageHead = `Usage: nqueens-worker --join HOST:PORT [flags]

Joins an nqueens coordinator and runs the tasks it leases, one per slot. A
coordinator that is down or full is retried with back-off for --join-timeout
(--join-timeout 0: one attempt, no retry). With --stay it waits for the next
job when one ends, and retries until stopped.
Exit status: 0 job done or stopped by a signal, 1 cannot join, refused (a bad
token, another solver version, or cut off for breaking a limit) or failed,
2 bad usage.

Examples:
  nqueens-worker --join 127.0.0.1:7070                  # one slot per CPU
  nqueens-worker --join coordinator:7070 --slots 2 --name rack1-node4
  nqueens-worker --join coordinator:7070 --stay --http 0.0.0.0:9090   # a Deployment's pod
  nqueens-worker --join coordinator:7070 --token-file /run/secrets/nqueens-token \
      --tls-ca ca.pem --health-listen 0.0.0.0:7071

Environment: every flag can be set as NQUEENS_<FLAG> instead, upper case
with - as _ (NQUEENS_JOIN=coordinator:7070, NQUEENS_SLOTS=2,
NQUEENS_TOKEN); the command line wins, and an empty variable counts as
unset.

Flags:
`

// options is the worker's command line.
type options struct {
	cfg          worker.Config
	ac           auth.Config
	healthListen string
	http         string
	level        string
	logJSON      bool
	tokenFile    string
}

// parseFlags reads the command line and the environment (cli.FromEnv).
// It returns flag.ErrHelp after answering -h or --version, else a one-line
// usage error.
func parseFlags(args []string, stdout io.Writer) (options, error) {
	o := options{cfg: worker.Config{Slots: runtime.GOMAXPROCS(0), JoinTimeout: worker.DefaultJoinTimeout}}
	host, _ := os.Hostname()
	cfg, ac := &o.cfg, &o.ac
	fs := flag.NewFlagSet("worker", flag.ContinueOnError)
	fs.StringVar(&cfg.Join, "join", "", "coordinator `HOST:PORT` (required)")
	fs.IntVar(&cfg.Slots, "slots", cfg.Slots, "tasks run at once, one core each; the default is GOMAXPROCS, the CPUs this process may use (a container's CPU limit)")
	fs.StringVar(&cfg.Name, "name", host, "name shown in the coordinator's logs")
	fs.DurationVar(&cfg.JoinTimeout, "join-timeout", cfg.JoinTimeout, "how long to keep retrying to join (or rejoin) a coordinator that is down or full before giving up; 0 makes one attempt")
	fs.BoolVar(&cfg.Stay, "stay", false, "stay between jobs: when a job ends, wait (quietly) for the next coordinator at --join, retrying until stopped, instead of exiting; for a Kubernetes Deployment, whose exited pods restart into CrashLoopBackOff")
	fs.StringVar(&o.healthListen, "health-listen", "", "serve grpc.health.v1 on `HOST:PORT` (for probes); off when empty")
	fs.StringVar(&o.http, "http", "", "serve this worker's own /metrics (tasks and nodes sent, nodes/s, slots, joins) and /healthz on `HOST:PORT`, without the token; off when empty")
	fs.Var(&ac.Token, "token", "join `TOKEN` (never logged; "+auth.EnvToken+" in the environment)")
	fs.StringVar(&o.tokenFile, "token-file", "", "read the join token from `FILE` instead (a mounted Kubernetes Secret; white space around it dropped)")
	fs.StringVar(&ac.CAFile, "tls-ca", "", "dial with TLS, trusting this PEM CA `FILE` for the coordinator")
	fs.StringVar(&ac.CertFile, "tls-cert", "", "client certificate `FILE` for mutual TLS")
	fs.StringVar(&ac.KeyFile, "tls-key", "", "private key `FILE` of --tls-cert")
	fs.StringVar(&ac.ServerName, "tls-server-name", "", "name expected in the coordinator's certificate (default: the --join host)")
	fs.StringVar(&o.level, "log-level", "info", "log level: trace, debug, info, warn, error or off")
	fs.BoolVar(&o.logJSON, "log-json", false, "log as JSON lines")
	if err := cli.Parse(fs, args, stdout, usageHead); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return o, err
		}
		return o, fmt.Errorf("%v (see worker -h)", err)
	}
	onArgs := cli.Given(fs)
	if err := cli.FromEnv(fs, os.LookupEnv); err != nil {
		return o, fmt.Errorf("%v (see worker -h)", err)
	}
	switch {
	case fs.NArg() > 0:
		return o, fmt.Errorf("unexpected argument %q (see worker -h)", fs.Arg(0))
	case cfg.Slots < 1:
		return o, fmt.Errorf("--slots %d must be at least 1", cfg.Slots)
	case hclog.LevelFromString(o.level) == hclog.NoLevel:
		return o, fmt.Errorf("--log-level %q: want trace, debug, info, warn, error or off", o.level)
	}
	given := cli.Given(fs)
	if cfg.Stay && given["join-timeout"] {
		return o, errors.New("--join-timeout does not apply to --stay, which retries joining until stopped")
	}
	cfg.JoinOnce = cfg.JoinTimeout == 0
	if err := cfg.Validate(); err != nil {
		return o, err
	}
	which, err := cli.Pick("token", "token-file", given, onArgs)
	if err == nil && which == "token-file" {
		ac.Token, err = auth.ReadTokenFile(o.tokenFile)
	}
	if err != nil {
		return o, err
	}
	cfg.DialOptions, err = ac.DialOptions()
	return o, err
}

// run is the whole command: it returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	o, err := parseFlags(args, stdout)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "worker: %v\n", err)
		return 2
	}
	log := hclog.New(&hclog.LoggerOptions{
		Name: "worker", Level: hclog.LevelFromString(o.level), JSONFormat: o.logJSON,
		Output: stderr, TimeFormat: cli.LogTimeFormat,
	})
	if o.healthListen != "" {
		hs, err := worker.ServeHealth(o.healthListen)
		if err != nil {
			fmt.Fprintf(stderr, "worker: %v\n", err)
			return 1
		}
		defer hs.Close()
		log.Info("health service listening", "addr", hs.Addr())
	}
	if o.http != "" {
		mctx, stop := context.WithCancel(ctx)
		o.cfg.Stats = &worker.Stats{}
		addr, wait, err := serveMetrics(mctx, o.http, o.cfg.Stats, o.cfg.Slots)
		if err != nil {
			stop()
			fmt.Fprintf(stderr, "worker: %v\n", err)
			return 1
		}
		defer wait()
		defer stop()
		log.Info("metrics server listening", "addr", addr)
	}
	if err := worker.Run(ctx, o.cfg, log); err != nil {
		fmt.Fprintf(stderr, "worker: %v\n", err)
		return 1
	}
	return 0
}
