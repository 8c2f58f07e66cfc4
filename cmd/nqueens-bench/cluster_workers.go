package main

// The simulated workers: package worker's own session (worker.Run), one
// per worker, all in this process, with the table for a solver. This file
// speaks no protocol; cluster_observe.go watches what the sessions send
// and receive.

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"google.golang.org/grpc"

	"github.com/nqueens/nqueens/coordinator"
	"github.com/nqueens/nqueens/internal/waitfor"
	nqueenspb "github.com/nqueens/nqueens/proto/nqueens/v1"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/worker"
)

// drainWait bounds how long the workers may read what the coordinator
// sent before it exited (their Drain, the last Acks), and how long a
// coordinator whose workers failed may take to exit by itself.
const drainWait = 5 * time.Second

// simJob is what every simulated worker shares: where to join, the plan
// the table answers, and how the workers are set up.
type simJob struct {
	addr            string
	n, depth, tasks int
	fingerprint     uint64
	table           []solver.Counts
	slots, prefetch int
	batches         bool // ask for AssignBatch and AckBatch (worker.Config.NoBatches)
	runs            bool // ask for runs of tasks (worker.Config.NoRuns)
	synthetic       bool // answer syntheticCounts for a split's children too (--min-tasks)
}

// count answers one task from the table: the workers' worker.Config.Count.
func (j *simJob) count(n int, t solver.Task) (solver.Counts, error) {
	if j.synthetic && n == j.n && t.Index >= len(j.table) {
		return syntheticCounts, nil
	}
	if n != j.n || t.Index < 0 || t.Index >= len(j.table) {
		return solver.Counts{}, fmt.Errorf("task %d of n=%d is not in the plan of the table", t.Index, n)
	}
	return j.table[t.Index], nil
}

// checkJob refuses a coordinator that runs another plan than the table's.
func (j *simJob) checkJob(job *nqueenspb.Job) error {
	if job.GetN() != uint32(j.n) || job.GetDepth() != uint32(j.depth) || job.GetTasks() != uint32(j.tasks) || job.GetPlanFingerprint() != j.fingerprint {
		return fmt.Errorf("coordinator runs n=%d depth=%d tasks=%d, not the plan of the table", job.GetN(), job.GetDepth(), job.GetTasks())
	}
	return nil
}

// drive runs the simulated workers against a started coordinator until it
// exits, and returns the workers' measurements and the coordinator's
// summary. Every goroutine has ended when it returns.
func drive(ctx context.Context, co *coordProc, cfg clusterConfig, plan solver.Plan, table []solver.Counts) (simSet, coordinator.Summary, error) {
	var sum coordinator.Summary
	addr, err := co.listenAddr(ctx)
	if err != nil {
		co.kill()
		return nil, sum, err
	}
	wctx, stopWorkers := context.WithCancel(ctx)
	defer stopWorkers()
	job := &simJob{addr: addr, n: plan.N, depth: plan.Depth, tasks: plan.Len(), fingerprint: plan.Fingerprint(),
		table: table, slots: cfg.Slots, prefetch: cfg.Prefetch, batches: cfg.Batches, runs: cfg.Runs, synthetic: cfg.Synthetic}
	joins := make(chan struct{}, cfg.Joins)
	joining, stopJoining := context.WithCancel(wctx) // ended when the coordinator has exited
	defer stopJoining()
	sims := make(simSet, cfg.Workers)
	errs := make(chan error, cfg.Workers)
	var wg sync.WaitGroup
	for i := range sims {
		sims[i] = &simWorker{job: job, id: i, src: sourceAddr(i), joins: joins}
		wg.Go(func() {
			if err := sims[i].run(wctx, joining); err != nil {
				errs <- err
				stopWorkers() // one broken worker ends the run
			}
		})
	}
	coErr, workerFailed := awaitCoordinator(wctx, co)
	// Workers still joining when the job ended never get a Drain: they
	// stop at once. Those with a stream read what the coordinator sent
	// before it exited (their Drain, the last Acks), within drainWait: on
	// a slow machine the coordinator can exit before they have read them.
	stopJoining()
	if !waitfor.Group(&wg, drainWait) {
		stopWorkers()
		wg.Wait()
	}
	close(errs)
	switch {
	case ctx.Err() != nil:
		return nil, sum, fmt.Errorf("the run took longer than --timeout %v", cfg.Timeout)
	case workerFailed:
		return nil, sum, <-errs
	case coErr != nil:
		return nil, sum, coErr
	}
	if err := json.Unmarshal(co.stdout.Bytes(), &sum); err != nil {
		return nil, sum, fmt.Errorf("coordinator --json output: %v: %q", err, co.stdout.String())
	}
	return sims, sum, nil
}

// awaitCoordinator waits for the coordinator to exit, and returns its
// failure. When ctx ends first (a worker failed, or the timeout) it gives
// the coordinator drainWait to exit by itself, since a worker that joins
// as the job ends finds the port closed, then kills it: workerFailed.
func awaitCoordinator(ctx context.Context, co *coordProc) (err error, workerFailed bool) {
	exited := make(chan error, 1)
	go func() { exited <- co.wait() }()
	select {
	case err = <-exited:
		return err, false
	case <-ctx.Done():
	}
	select {
	case err = <-exited:
		return err, false
	case <-time.After(drainWait):
		co.kill()
		return <-exited, true
	}
}

// simWorker is one simulated worker and what it measured. The measures
// are written by its session's interceptors (cluster_observe.go), under
// mu, and read once the worker has ended.
type simWorker struct {
	job      *simJob
	id       int
	src      net.IP
	joins    chan struct{} // a place among the Joins in flight (--joins)
	gateOnce sync.Once     // gives the place back once

	mu        sync.Mutex
	cancel    context.CancelFunc // ends the worker's Run
	joined    bool               // a Join succeeded
	broken    error              // the stream ended without a Drain
	joinStart time.Time          // the first Join call

	firstAssign, lastAck time.Time
	latencies            []time.Duration // Result sent to Ack received, per commit
	ackTimes             []int64         // when each commit's Ack came (Unix ns)
	commits, others      int
	leases               int // Assigns received
	drained              bool
	batches              bool // the session used batched messages
	joinAttempts         int
	joinTime             time.Duration // from the first Join call to the one that succeeded
	lateAcks             int           // Acks received after the Drain
}

// run takes a place among the Joins in flight, then runs package worker's
// session until the coordinator drains the worker. Once joining ends (the
// coordinator has exited), a worker not yet joined gives up; a stream
// that ends without a Drain ends the worker with an error.
func (w *simWorker) run(ctx, joining context.Context) error {
	select {
	case w.joins <- struct{}{}:
	case <-joining.Done():
		return nil
	}
	defer w.leaveGate()
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w.mu.Lock()
	w.cancel = cancel
	w.mu.Unlock()
	stop := context.AfterFunc(joining, func() {
		if !w.hasJoined() {
			cancel()
		}
	})
	defer stop()
	err := worker.Run(wctx, w.config(), hclog.NewNullLogger())
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case ctx.Err() != nil:
		return nil // stopped: the job ended before this worker's Drain
	case err != nil && joining.Err() != nil && !w.joined:
		return nil // the job ended before this worker joined
	case err != nil:
		return fmt.Errorf("worker %d: %w", w.id, err)
	case w.broken != nil:
		return fmt.Errorf("worker %d: work stream ended without drain: %v", w.id, w.broken)
	}
	return nil
}

// config is the worker's settings: its own source address, the table for
// a solver, and the interceptors that measure.
func (w *simWorker) config() worker.Config {
	dialer := func(ctx context.Context, addr string) (net.Conn, error) {
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: w.src}}
		return d.DialContext(ctx, "tcp", addr)
	}
	prefetch := w.job.prefetch
	if prefetch == 0 {
		prefetch = -1 // worker.Config's "none"
	}
	return worker.Config{
		Join: "passthrough:///" + w.job.addr, Name: fmt.Sprintf("sim-%d", w.id), Slots: w.job.slots,
		Prefetch: prefetch, FixedPrefetch: true, Quiet: true, NoRuns: !w.job.runs, NoBatches: !w.job.batches, Count: w.job.count,
		DialOptions: []grpc.DialOption{
			grpc.WithContextDialer(dialer),
			grpc.WithUnaryInterceptor(w.observeJoin),
			grpc.WithStreamInterceptor(w.observeWork),
		},
	}
}

// leaveGate gives the worker's place among the Joins in flight back.
func (w *simWorker) leaveGate() { w.gateOnce.Do(func() { <-w.joins }) }

func (w *simWorker) hasJoined() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.joined
}

// sourceAddr is worker i's own loopback source address, 127.0.0.2 onwards
// with host bytes 0 and 255 skipped: the coordinator bounds unjoined
// connections per source address, and on Linux all of 127.0.0.0/8 is
// loopback.
func sourceAddr(i int) net.IP {
	p := uint32(i) + 1 // 127.0.0.1, position 0, is the coordinator's
	v := 0x7f000000 + p/254*256 + p%254 + 1
	return net.IPv4(byte(v>>24), byte(v>>16), byte(v>>8), byte(v))
}
