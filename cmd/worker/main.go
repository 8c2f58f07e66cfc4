// Command worker joins an nqueens coordinator and runs the tasks it leases,
// one per slot, until the job ends:
//
//	worker --join 127.0.0.1:7070 --slots 2
//
// It retries joining for --join-timeout (so it may start before the
// coordinator, or wait for a place in a full one), saying every few seconds
// what it waits for, rejoins after a broken stream, and on SIGINT or SIGTERM
// hands its leases back and exits. A refusal for what it sent (a bad token,
// another solver version) is logged and ends it at once. Exit status: 0
// when the job ended (or the worker was stopped by a signal), 2 on bad
// usage, 1 when it cannot join or was refused.
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
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/nqueens/nqueens/auth"
	"github.com/nqueens/nqueens/internal/cli"
	"github.com/nqueens/nqueens/internal/version"
	"github.com/nqueens/nqueens/worker"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

const usageHead = `Usage: worker --join HOST:PORT [flags]

Joins an nqueens coordinator and runs the tasks it leases, one per slot. A
coordinator that is down or full is retried with back-off for --join-timeout.
Exit status: 0 job done or stopped by a signal, 1 cannot join, refused (a bad
token, another solver version, or cut off for breaking a limit) or failed,
2 bad usage.

Flags:
`

// run is the whole command: it returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cfg := worker.Config{Slots: runtime.GOMAXPROCS(0), JoinTimeout: worker.DefaultJoinTimeout}
	host, _ := os.Hostname()
	var (
		ac           auth.Config
		healthListen string
		level        string
		logJSON      bool
		showVersion  bool
	)
	ac.Token = auth.NewToken(os.Getenv("NQUEENS_TOKEN"))
	fs := flag.NewFlagSet("worker", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&cfg.Join, "join", "", "coordinator `HOST:PORT` (required)")
	fs.IntVar(&cfg.Slots, "slots", cfg.Slots, "tasks run at once, one core each; the default is GOMAXPROCS, the CPUs this process may use (a container's CPU limit)")
	fs.StringVar(&cfg.Name, "name", host, "name shown in the coordinator's logs")
	fs.DurationVar(&cfg.JoinTimeout, "join-timeout", cfg.JoinTimeout, "how long to keep retrying to join (or rejoin) a coordinator that is down or full before giving up")
	fs.StringVar(&healthListen, "health-listen", "", "serve grpc.health.v1 on `HOST:PORT` (for probes); off when empty")
	fs.Var(&ac.Token, "token", "join `TOKEN` (default $NQUEENS_TOKEN; never logged)")
	fs.StringVar(&ac.CAFile, "tls-ca", "", "dial with TLS, trusting this PEM CA `FILE` for the coordinator")
	fs.StringVar(&ac.CertFile, "tls-cert", "", "client certificate `FILE` for mutual TLS")
	fs.StringVar(&ac.KeyFile, "tls-key", "", "private key `FILE` of --tls-cert")
	fs.StringVar(&ac.ServerName, "tls-server-name", "", "name expected in the coordinator's certificate (default: the --join host)")
	fs.StringVar(&level, "log-level", "info", "log level: trace, debug, info, warn, error or off")
	fs.BoolVar(&logJSON, "log-json", false, "log as JSON lines")
	fs.BoolVar(&showVersion, "version", false, "print the build (module version, VCS revision, solver and Go versions) and exit")
	if err := cli.Parse(fs, args, stdout, usageHead); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintf(stderr, "worker: %v (see worker -h)\n", err)
		return 2
	}
	if showVersion {
		fmt.Fprintln(stdout, version.String("worker"))
		return 0
	}
	usage := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "worker: "+format+"\n", a...)
		return 2
	}
	switch {
	case fs.NArg() > 0:
		return usage("unexpected argument %q (see worker -h)", fs.Arg(0))
	case cfg.Slots < 1:
		return usage("--slots %d must be at least 1", cfg.Slots)
	case hclog.LevelFromString(level) == hclog.NoLevel:
		return usage("--log-level %q: want trace, debug, info, warn, error or off", level)
	}
	if err := cfg.Validate(); err != nil {
		return usage("%v", err)
	}
	var err error
	if cfg.DialOptions, err = ac.DialOptions(); err != nil {
		return usage("%v", err)
	}
	log := hclog.New(&hclog.LoggerOptions{
		Name: "worker", Level: hclog.LevelFromString(level), JSONFormat: logJSON,
		Output: stderr, TimeFormat: time.RFC3339,
	})
	if healthListen != "" {
		hs, err := worker.ServeHealth(healthListen)
		if err != nil {
			fmt.Fprintf(stderr, "worker: %v\n", err)
			return 1
		}
		defer hs.Close()
		log.Info("health service listening", "addr", hs.Addr())
	}
	if err := worker.Run(ctx, cfg, log); err != nil {
		fmt.Fprintf(stderr, "worker: %v\n", err)
		return 1
	}
	return 0
}
