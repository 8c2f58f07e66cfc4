package coordinator

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"runtime"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/reflection"

	nqueenspb "github.com/nqueens/nqueens/proto/nqueens/v1"
	"github.com/nqueens/nqueens/render"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/worker"
)

// embeddedJoinTimeout bounds how long an embedded worker tries to reach its
// own coordinator over loopback.
const embeddedJoinTimeout = 10 * time.Second

// Keepalive settings of the server: ping idle workers every 30 s and drop
// those that do not answer in 10 s; let workers ping every 10 s or slower
// (worker.KeepaliveParams pings every 20 s).
var (
	serverKeepalive = keepalive.ServerParameters{Time: 30 * time.Second, Timeout: 10 * time.Second}
	serverEnforce   = keepalive.EnforcementPolicy{MinTime: 10 * time.Second, PermitWithoutStream: true}
)

// ErrInterrupted is returned when ctx ended the run before every task was
// committed.
var ErrInterrupted = errors.New("interrupted")

// Run plans the job, serves it to its workers (embedded and remote) until
// every task is committed, writes the solutions it was asked for, prints the
// summary on cfg.Stdout and returns it. Cancelling ctx drains the workers
// and returns a partial summary with an ErrInterrupted error. Bad requests
// return ErrUsage errors before anything starts. Run returns only when all
// its goroutines have ended.
func Run(ctx context.Context, cfg Config, log hclog.Logger) (Summary, error) {
	if err := cfg.Validate(); err != nil {
		return Summary{}, err
	}
	cfg = cfg.withDefaults()
	if cfg.Stdout == nil {
		cfg.Stdout = os.Stdout
	}
	if cfg.Stderr == nil {
		cfg.Stderr = os.Stderr
	}
	if log == nil {
		log = hclog.NewNullLogger()
	}
	if cfg.First {
		return runFirst(ctx, cfg, log)
	}
	kind, want := cfg.kind(), cfg.wantsSolutions()
	depth := cfg.Depth
	if depth == AutoDepth {
		slots := cfg.Workers
		if slots == 0 {
			slots = runtime.NumCPU()
		}
		depth = solver.AutoDepth(cfg.N, slots, kind)
	}
	plan, err := solver.NewPlan(cfg.N, depth, kind)
	if err != nil {
		return Summary{}, fmt.Errorf("%w: %w", ErrUsage, err)
	}

	if cfg.OpenJournal != nil {
		j, restored, err := cfg.OpenJournal(plan)
		if err != nil {
			return Summary{}, err
		}
		cfg.Journal, cfg.Restored = j, restored
	}
	if want && len(cfg.Restored) > 0 {
		return Summary{}, usageErr("a resumed run cannot list solutions: the earlier run's listing is not kept")
	}
	var sink Sink
	if want {
		s, err := render.Open(render.Options{
			N: cfg.N, Format: cfg.Format, SolutionsPath: cfg.Solutions, Stdout: cfg.Stdout,
			PNGDir: cfg.PNGDir, SVGDir: cfg.SVGDir, SheetPath: cfg.SheetPath, Limit: cfg.Limit, Unique: cfg.Unique,
		})
		if err != nil {
			return Summary{}, fmt.Errorf("%w: %w", ErrUsage, err)
		}
		sink = s
	}

	lis, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		if sink != nil {
			sink.Close(0)
		}
		return Summary{}, fmt.Errorf("listen on %s: %w", cfg.Listen, err)
	}
	guard := newGuard(lis, cfg.connLimits(), log.Named("listener")) // listener.go
	cfg.ServerOptions = append(guard.serverOptions(), cfg.ServerOptions...)
	addr := guard.Addr().String()
	log.Info("listening", "addr", addr, "n", cfg.N, "depth", plan.Depth, "tasks", len(plan.Tasks), "kind", kindName(kind))
	if cfg.OnListen != nil {
		cfg.OnListen(addr)
	}

	j := &job{cfg: cfg, log: log, plan: plan, sink: sink, start: time.Now()}
	return j.run(ctx, guard)
}

// job is one running coordinator.
type job struct {
	cfg   Config
	log   hclog.Logger
	plan  solver.Plan
	sink  Sink
	start time.Time
	sched *scheduler
	pub   *publisher
}

func (j *job) run(ctx context.Context, lis net.Listener) (Summary, error) {
	cfg, log := j.cfg, j.log
	j.sched = newScheduler(j.plan, cfg.Lease, cfg.MaxAttempts, j.sink != nil, cfg.Clock, log.Named("scheduler"))
	j.sched.journal = cfg.Journal
	j.sched.verifyFrac = cfg.VerifyFraction
	j.sched.msgRate = cfg.MessageRate
	spillDir := ""
	if j.sink != nil {
		dir, err := os.MkdirTemp(cfg.SpillDir, "nqueens-spill-*")
		if err != nil {
			lis.Close()
			j.sink.Close(0)
			return Summary{}, fmt.Errorf("spill folder: %w", err)
		}
		defer os.RemoveAll(dir)
		spillDir = dir
		sizes := defaultBucketSizes
		sizes.records = cfg.testRecords
		pub, err := newPublisher(dir, j.plan.N, len(j.plan.Tasks), j.plan.Kind == solver.KindUnique, j.sink, sizes)
		if err != nil {
			lis.Close()
			j.sink.Close(0)
			return Summary{}, fmt.Errorf("spill folder: %w", err)
		}
		if cfg.VerifyFraction > 0 {
			pub.final = j.sched.done
		}
		j.pub = pub
		j.sched.published, j.sched.revoked = j.pub.add, j.pub.revoke
	}
	for i, c := range cfg.Restored {
		if err := j.sched.restore(i, c); err != nil {
			lis.Close()
			return Summary{}, err
		}
	}
	j.sched.checkDone()
	if cfg.testJob != nil {
		cfg.testJob(j)
	}

	srv := grpc.NewServer(append([]grpc.ServerOption{
		grpc.KeepaliveParams(serverKeepalive),
		grpc.KeepaliveEnforcementPolicy(serverEnforce),
		grpc.MaxRecvMsgSize(MaxRecvMsgSize),
		grpc.MaxConcurrentStreams(maxConcurrentStreams),
	}, cfg.ServerOptions...)...)
	hs := health.NewServer()
	healthpb.RegisterHealthServer(srv, hs)
	hs.SetServingStatus(nqueenspb.CoordinatorService_ServiceDesc.ServiceName, healthpb.HealthCheckResponse_SERVING)
	nqueenspb.RegisterCoordinatorServiceServer(srv, &service{sched: j.sched, log: log.Named("server"), heartbeat: cfg.Heartbeat, spillDir: spillDir,
		wire: wire{n: j.plan.N, want: j.sink != nil}})
	reflection.Register(srv)

	var bg sync.WaitGroup // everything but the embedded workers
	serveErr := make(chan error, 1)
	bg.Add(1)
	go func() {
		defer bg.Done()
		serveErr <- srv.Serve(lis)
	}()

	stopBG := make(chan struct{})
	bg.Add(1)
	go func() { // lease expiry
		defer bg.Done()
		t := time.NewTicker(cfg.SweepInterval)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				j.sched.expire(cfg.Clock.Now())
			case <-stopBG:
				return
			}
		}
	}()
	bg.Add(1)
	go func() {
		defer bg.Done()
		j.showProgress(stopBG)
	}()
	pubDone := make(chan error, 1)
	pubCtx, cancelPub := context.WithCancel(context.Background())
	defer cancelPub()
	if j.pub != nil {
		bg.Add(1)
		go func() {
			defer bg.Done()
			err := j.pub.run(pubCtx)
			if err != nil && pubCtx.Err() == nil {
				j.sched.fail(err)
			}
			pubDone <- err
		}()
	}

	// Embedded workers: real gRPC clients over loopback.
	var workers sync.WaitGroup
	wctx, cancelWorkers := context.WithCancel(context.Background())
	defer cancelWorkers()
	dial := loopback(lis.Addr())
	for i := range cfg.Workers {
		workers.Add(1)
		go func() {
			defer workers.Done()
			wlog := log.Named("worker").With("embedded", i)
			err := worker.Run(wctx, worker.Config{
				Join: dial, Slots: 1, Name: fmt.Sprintf("embedded-%d", i),
				JoinTimeout: embeddedJoinTimeout, DialOptions: cfg.WorkerDialOptions, Quiet: true,
			}, wlog)
			if err != nil {
				wlog.Error("embedded worker failed", "error", err)
			}
		}()
	}

	var runErr error
	select {
	case <-j.sched.done:
	case err := <-serveErr:
		runErr = fmt.Errorf("grpc server: %w", err)
		j.sched.fail(runErr)
	case <-ctx.Done():
		runErr = ErrInterrupted
	}
	_, _, _, schedErr := j.sched.totals()
	if runErr == nil && schedErr == nil && j.pub != nil {
		// Every task is committed: wait for the listing to be written.
		log.Info("every task committed; writing the solutions", "elapsed", time.Since(j.start).Round(time.Millisecond))
		select {
		case err := <-pubDone:
			runErr = err
		case <-ctx.Done():
			runErr = ErrInterrupted
		}
	}

	// Shutdown: NOT_SERVING, drain the workers, stop gracefully with a
	// deadline, then stop hard.
	reason := "job done"
	if runErr != nil || schedErr != nil {
		reason = "coordinator stopping"
	}
	hs.Shutdown()
	j.sched.drain(reason)
	if !waitTimeout(&workers, cfg.DrainTimeout) {
		cancelWorkers()
		workers.Wait()
	}
	stopped := make(chan struct{})
	go func() { srv.GracefulStop(); close(stopped) }()
	select {
	case <-stopped:
	case <-time.After(cfg.DrainTimeout):
		log.Warn("graceful stop timed out; closing open streams")
		srv.Stop()
		<-stopped
	}
	cancelWorkers()
	workers.Wait()
	j.sched.journaling.Wait() // every commit durable before the summary
	j.sched.truths.Wait()     // the coordinator's own recomputations
	close(stopBG)
	cancelPub()
	bg.Wait()
	if j.pub != nil {
		j.pub.cleanup()
	}

	sum, err := j.summary()
	if err == nil {
		err = runErr
	}
	if err == nil && j.sink != nil {
		listed := sum.Solutions
		if j.plan.Kind == solver.KindUnique {
			listed = sum.Unique
		}
		if cerr := j.sink.Close(listed); cerr != nil {
			err = fmt.Errorf("write solutions: %w", cerr)
		}
	} else if j.sink != nil {
		j.sink.Close(0)
	}
	if perr := sum.print(cfg); perr != nil && err == nil {
		err = perr
	}
	return sum, err
}

// summary gathers the result; it fails when the job failed or is partial.
func (j *job) summary() (Summary, error) {
	counts, committed, stats, err := j.sched.totals()
	elapsed := time.Since(j.start)
	s := Summary{
		N:              j.plan.N,
		Kind:           kindName(j.plan.Kind),
		Solutions:      counts.Total,
		Unique:         counts.Unique,
		Tasks:          len(j.plan.Tasks),
		Committed:      committed,
		Depth:          j.plan.Depth,
		Workers:        max(j.cfg.Workers, j.sched.peakWorkers()),
		Nodes:          counts.Nodes,
		ElapsedSeconds: elapsed.Seconds(),
		Leased:         stats.Leased,
		Conflicts:      stats.Conflicts,
		Duplicates:     stats.Duplicates,
		Rejected:       stats.Rejected,
		Requeued:       stats.Requeued,
		Expired:        stats.Expired,
		Verified:       stats.Verified,
		Quarantined:    stats.Quarantined,
		Complete:       committed == len(j.plan.Tasks) && err == nil,
	}
	if err != nil {
		s.Error = err.Error()
	}
	return s, err
}

// loopback returns the address embedded workers dial: the bound port on
// 127.0.0.1 when the server listens on every interface.
func loopback(a net.Addr) string {
	if t, ok := a.(*net.TCPAddr); ok && (t.IP == nil || t.IP.IsUnspecified()) {
		return net.JoinHostPort("127.0.0.1", fmt.Sprint(t.Port))
	}
	return a.String()
}

// waitTimeout waits for wg up to d and reports whether it ended.
func waitTimeout(wg *sync.WaitGroup, d time.Duration) bool {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
		return true
	case <-time.After(d):
		return false
	}
}

func kindName(k solver.Kind) string {
	switch k {
	case solver.KindCount:
		return "count"
	case solver.KindAll:
		return "all"
	case solver.KindUnique:
		return "unique"
	}
	return "unknown"
}
