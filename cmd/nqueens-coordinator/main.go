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
//	coordinator --n 4 --trace backtracking.gif   # film the plain backtracker (N ≤ 12)
//	coordinator export --state job.state --format csv   # one row per committed task
//
// Exit status: 0 on success, 2 on bad usage (one line on stderr), 1 when
// the run fails or is interrupted.
package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/nqueens/nqueens/auth"
	"github.com/nqueens/nqueens/coordinator"
	"github.com/nqueens/nqueens/journal"
	"github.com/nqueens/nqueens/status"
	"github.com/nqueens/nqueens/study"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop() // the first signal drains; a second one ends the process at once
	}()
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
	opts, procOpts, err := parseFlags(args, stdout, stderr)
	if errors.Is(err, errHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "coordinator: %v\n", err)
		return 2
	}
	if procOpts.trace.path != "" || procOpts.trace.capped() {
		return runTrace(opts.N, procOpts.trace, stdout, stderr)
	}
	var notice string
	if procOpts.resume {
		if notice, err = resumeFrom(&opts, procOpts); err != nil {
			fmt.Fprintf(stderr, "coordinator: %v\n", err)
			return 2
		}
	}
	opts.Stdout, opts.Stderr = stdout, stderr
	prog := status.NewProgress(stderr, progressMode(opts, stderr), opts.ProgressInterval)
	log := newLogger(procOpts, prog.Writer()) // log lines print above the bar
	if notice != "" {
		log.Warn(notice)
	}
	if opts.First {
		_, err = runFirst(ctx, opts, log)
	} else {
		err = runJob(ctx, opts, procOpts, prog, log)
	}
	switch {
	case err == nil:
		return 0
	case errors.Is(err, coordinator.ErrUsage):
		fmt.Fprintf(stderr, "coordinator: %s\n", usageLine(err))
		return 2
	default:
		fmt.Fprintf(stderr, "coordinator: %v\n", err)
		return 1
	}
}

// progressMode maps --progress onto status.Progress: a bar on a terminal
// (auto) or when asked, log lines otherwise, or nothing.
func progressMode(o options, stderr io.Writer) status.ProgressMode {
	switch o.Progress {
	case progressOff:
		return status.ProgressOff
	case progressBar:
		return status.ProgressBar
	case progressLog:
		return status.ProgressLines
	}
	if status.IsTerminal(stderr) {
		return status.ProgressBar
	}
	return status.ProgressLines
}

// statusLinger is how long the status server stays up after the job ends
// (--http): a Prometheus that scrapes every few seconds sees the final
// counts before the coordinator exits.
const statusLinger = 3 * time.Second

// runJob runs a count or a listing on the cluster, with its journal, its
// status server, progress and summary.
func runJob(ctx context.Context, opts options, procOpts processOptions, prog *status.Progress, log hclog.Logger) error {
	reg := status.NewRegistry()
	opts.ServerOptions = append(status.GRPCServerOptions(reg), opts.ServerOptions...)
	var state *journal.Journal
	var commits atomic.Pointer[durableJournal]
	if procOpts.state != "" {
		opts.OpenJournal = counting(stateOpener(procOpts.state, procOpts.resume, log, status.JournalSyncObserver(reg), &state), &state, &commits)
	}
	defer func() {
		if state != nil {
			state.Close()
		}
	}()
	if err := opts.openSink(); err != nil {
		return err
	}
	job, err := coordinator.New(opts.Config, log)
	if err != nil {
		if opts.Sink != nil {
			opts.Sink.Close(0)
		}
		return err
	}
	var src status.Source = job
	if procOpts.state != "" {
		src = journaledJob{job, &commits} // the displays say what is on disk
	}
	stopHTTP, err := serveStatus(src, procOpts, reg, log)
	if err != nil {
		job.Close()
		if opts.Sink != nil {
			opts.Sink.Close(0)
		}
		return err
	}
	progCtx, stopProg := context.WithCancel(ctx)
	progDone := make(chan struct{})
	go func() { defer close(progDone); prog.Run(progCtx, src, log) }()
	sum, err := job.Run(ctx) // a final count that differs from the published one fails here (package sched)
	stopProg()
	<-progDone // the bar is gone before the summary prints
	if state != nil {
		cerr := state.Close()
		state = nil
		if cerr != nil && err == nil {
			err = fmt.Errorf("--state: %w", cerr)
		}
	}
	if perr := opts.printSummary(sum); perr != nil && err == nil {
		err = perr
	}
	stopHTTP(ctx.Err() == nil)
	return err
}

// serveStatus starts the status server of --http, if asked for; the
// returned stop ends it, after statusLinger when linger is set.
func serveStatus(job status.Source, lo processOptions, reg *prometheus.Registry, log hclog.Logger) (stop func(linger bool), err error) {
	if lo.http == "" {
		return func(bool) {}, nil
	}
	slog := log.Named("status")
	h := status.NewHandler(job, status.Options{Registry: reg, Token: lo.token, Pprof: lo.pprof, Log: slog})
	var tlsCfg *tls.Config
	if lo.httpTLS {
		if tlsCfg, err = auth.ServerTLSConfig(lo.tlsCert, lo.tlsKey); err != nil {
			return nil, fmt.Errorf("%w: --http-tls: %v", coordinator.ErrUsage, err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	addr, served, err := status.ServeTLS(ctx, lo.http, h, slog, tlsCfg)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("%w: --http %s: %v", coordinator.ErrUsage, lo.http, err)
	}
	slog.Info("status server listening", "addr", addr, "https", lo.httpTLS)
	return func(linger bool) {
		if linger {
			time.Sleep(statusLinger)
		}
		cancel()
		<-served
	}, nil
}
