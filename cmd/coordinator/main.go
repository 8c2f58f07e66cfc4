// Command coordinator counts or lists the solutions of the N-Queens puzzle
// on a cluster: it splits the search into tasks, leases them to workers over
// gRPC (its own embedded ones and any `worker --join`), and adds up what
// comes back exactly once.
//
//	coordinator --n 12 --workers 4            # the whole job on 4 local cores
//	coordinator --n 16 --workers 0 --listen 0.0.0.0:7070   # remote workers only
//	coordinator --n 8 --solutions - --format board
//	coordinator --n 1000000 --first --solutions queens.txt
//	coordinator study lasvegas --n 12:20 --trials 1000 --seed 1
//	coordinator export --state job.state --format csv   # one row per committed task
//
// Exit status: 0 on success, 2 on bad usage (one line on stderr), 1 when
// the run fails or is interrupted.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/nqueens/nqueens/coordinator"
	"github.com/nqueens/nqueens/journal"
	"github.com/nqueens/nqueens/study"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is the whole command: it returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "study" {
		return study.Main(ctx, args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "export" {
		return exportMain(args[1:], stdout, stderr)
	}
	cfg, logOpts, err := parseFlags(args, stdout, stderr)
	if errors.Is(err, errHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "coordinator: %v\n", err)
		return 2
	}
	cfg.Stdout, cfg.Stderr = stdout, stderr
	log := newLogger(logOpts, stderr)
	var state *journal.Journal
	if logOpts.state != "" {
		cfg.OpenJournal = stateOpener(logOpts.state, logOpts.resume, log, &state)
	}
	_, err = coordinator.Run(ctx, cfg, log)
	if state != nil {
		if cerr := state.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("--state: %w", cerr)
		}
	}
	switch {
	case err == nil:
		return 0
	case errors.Is(err, coordinator.ErrUsage):
		fmt.Fprintf(stderr, "coordinator: %s\n", strings.TrimPrefix(err.Error(), coordinator.ErrUsage.Error()+": "))
		return 2
	default:
		fmt.Fprintf(stderr, "coordinator: %v\n", err)
		return 1
	}
}
