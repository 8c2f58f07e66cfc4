package coordinator

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"math"
	"net"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/reflection"

	"github.com/nqueens/nqueens/coordinator/internal/sched"
	"github.com/nqueens/nqueens/coordinator/internal/wire"
	"github.com/nqueens/nqueens/internal/connguard"
	"github.com/nqueens/nqueens/internal/waitfor"
	"github.com/nqueens/nqueens/listing"
	nqueenspb "github.com/nqueens/nqueens/proto/nqueens/v1"
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

// Run is New and then Job.Run.
func Run(ctx context.Context, cfg Config, log hclog.Logger) (Summary, error) {
	j, err := New(cfg, log)
	if err != nil {
		return Summary{}, err
	}
	return j.Run(ctx)
}

// Job is one coordinator run. New plans it and binds its listener; Run
// serves it to its workers until every task is committed; Status and
// Events may be called at any time, from any goroutine.
type Job struct {
	cfg      Config
	log      hclog.Logger
	plan     solver.Plan
	lis      net.Listener
	sched    *sched.Scheduler
	svc      *service
	pub      *listing.Publisher // listing runs only
	spillDir string
	start    time.Time
	// elapsed holds the final summary's ElapsedSeconds (math.Float64bits)
	// once Run has made it, 0 before: Status then reports the run's
	// length, not the time since it started.
	elapsed atomic.Uint64
	// busy is the same for BusySeconds.
	busy atomic.Uint64
	// restoredSolutions are the solutions restore took from the journal.
	restoredSolutions uint64
	// quietListen logs the address at debug level: Listen was left empty
	// and every worker is embedded, so nobody needs to know it.
	quietListen bool
	// embeddedKey is what the embedded workers show on Join (trust.go).
	embeddedKey string
}

// New validates cfg, plans the job, opens its journal (cfg.OpenJournal),
// restores what an earlier run committed and binds the listener. Bad
// requests return ErrUsage errors (FieldError for a bad field). Nothing
// runs until Run; a Job that is never run must be closed with Close.
func New(cfg Config, log hclog.Logger) (*Job, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if w := cfg.SumWarning(); w != "" && log != nil {
		log.Warn(w)
	}
	quiet := cfg.Listen == "" && cfg.Workers > 0 // nobody asked where it listens
	cfg = cfg.withDefaults()
	if log == nil {
		log = hclog.NewNullLogger()
	}
	plan, why, err := cfg.newPlan()
	if err != nil {
		return nil, err
	}
	logEngine := log.Debug // the backtracker for what it always did: not news
	if plan.Kind == solver.KindJoin || cfg.overBudget() {
		logEngine = log.Info
	}
	logEngine("engine chosen", "engine", engineOf(plan), "n", cfg.N, "why", why)
	if cfg.OpenJournal != nil {
		r, err := cfg.OpenJournal(plan)
		if err != nil {
			return nil, err
		}
		cfg.Journal, cfg.Restored, cfg.Splits, cfg.restoredErr = r.Journal, r.Results, r.Splits, r.ReadErr
		cfg.entries = r.Entries
	}
	if cfg.Sink != nil && anyResult(cfg.Restored) {
		return nil, usageErr("a resumed run cannot list solutions: the earlier run's listing is not kept")
	}
	j := &Job{cfg: cfg, log: log, plan: plan, start: time.Now(), quietListen: quiet, embeddedKey: newEmbeddedKey()}
	if err := j.prepare(); err != nil {
		j.Close()
		return nil, err
	}
	return j, nil
}

// anyResult reports whether results holds any.
func anyResult(results iter.Seq[JournalResult]) bool {
	if results != nil {
		for range results {
			return true
		}
	}
	return false
}

// bigResume is the number of restored tasks from which a resume returns
// the memory of its replay to the system at once (about 200 bytes a task).
const bigResume = 100_000

// remoteSlots is the cluster AutoDepth plans for when every worker is
// remote: the coordinator cannot know how many will join, and tasks are
// cheap (batched), so it plans tens of tasks per slot for a cluster of
// this size rather than for its own cores.
const remoteSlots = 512

// newPlan plans the tasks, and says why with this engine: the join's
// units (chooseEngine), or backtracking tasks that AutoDepth sizes for
// the embedded workers, or for remoteSlots when every worker is remote.
func (c Config) newPlan() (solver.Plan, string, error) {
	join, why, err := c.chooseEngine()
	switch {
	case err != nil:
		return solver.Plan{}, "", err
	case join:
		plan, err := solver.NewJoinTaskPlan(c.N)
		if err != nil {
			return solver.Plan{}, "", fmt.Errorf("%w: %w", ErrUsage, err)
		}
		return plan, why, nil
	case c.pinned():
		plan, err := c.newPinnedPlan() // pins.go
		return plan, why, err
	}
	plan, err := c.newBacktrackPlan()
	return plan, why, err
}

// newBacktrackPlan plans backtracking tasks of c.Depth, or AutoDepth's.
func (c Config) newBacktrackPlan() (solver.Plan, error) {
	depth := c.Depth
	if depth == AutoDepth {
		slots := c.Workers
		if slots == 0 {
			slots = remoteSlots
		}
		depth = solver.AutoDepth(c.N, slots, c.kind())
	}
	plan, err := solver.NewLazyPlan(c.N, depth, c.kind()) // 10^7 tasks in a few kilobytes
	if err != nil {
		return solver.Plan{}, fmt.Errorf("%w: %w", ErrUsage, err)
	}
	return plan, nil
}

// prepare makes the scheduler, the listing and the listener.
func (j *Job) prepare() error {
	cfg := j.cfg
	opt := sched.Options{
		Plan: j.plan, Lease: cfg.Lease, Sweep: cfg.SweepInterval, MaxAttempts: cfg.MaxAttempts,
		Want: cfg.Sink != nil, Clock: cfg.clock, Log: j.log.Named("scheduler"), Journal: cfg.Journal,
		VerifyFraction: cfg.VerifyFraction, MaxSessions: cfg.MaxWorkers,
		TaskTarget: cfg.TaskTarget, MinTasks: cfg.MinTasks, NoSplit: cfg.NoSplit || j.plan.Kind == solver.KindJoin, // a join unit has no children
		Synthetic: cfg.SyntheticLoad || cfg.AsUnpublished, // not compared with the published counts
		Done:      make(chan struct{}),
	}
	if cfg.Sink != nil {
		if err := j.prepareListing(&opt); err != nil {
			return err
		}
	}
	j.sched = sched.NewScheduler(opt)
	if err := j.restore(); err != nil {
		return err
	}
	lis, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.Listen, err)
	}
	guard := connguard.New(lis, cfg.connLimits(), j.log.Named("listener"))
	j.cfg.ServerOptions = append(guard.ServerOptions(), cfg.ServerOptions...)
	j.lis = guard
	j.svc = newService(j.sched, edgeOptions{plan: j.plan, lease: cfg.Lease, heartbeat: cfg.Heartbeat,
		rate: cfg.MessageRate, clock: cfg.clock, journaled: cfg.Journal != nil, cut: guard.Cut,
		embeddedKey: j.embeddedKey, remoteVerify: j.remoteVerify()}, j.log.Named("server"), j.pub)
	logListen := j.log.Info // remote workers need the address
	if j.quietListen {
		logListen = j.log.Debug // the answer is all a user of embedded workers sees
	}
	logListen("listening", "addr", j.Addr(), "n", cfg.N, "depth", j.plan.Depth, "tasks", j.plan.Len(), "kind", KindName(j.plan.Kind))
	if !j.checksPublished() && j.plan.Kind != solver.KindPinned && !cfg.SyntheticLoad {
		j.log.Info("no published count to check the total against; the summary will say how much of it was verified",
			"n", cfg.N, "remote_verify_fraction", max(cfg.VerifyFraction, j.remoteVerify()), "verify_fraction", cfg.VerifyFraction)
	}
	return nil
}

// prepareListing makes the spill folder and the publisher of a listing.
// With verification on, a commit may be taken back (a quarantine), so the
// publisher sorts nothing in before the scheduler is done.
func (j *Job) prepareListing(opt *sched.Options) error {
	dir, err := os.MkdirTemp(j.cfg.SpillDir, "nqueens-spill-*")
	if err != nil {
		return fmt.Errorf("spill folder: %w", err)
	}
	j.spillDir = dir
	lo := listing.Options{Dir: dir, N: j.plan.N, Tasks: j.plan.Len(), Unique: j.plan.Kind == solver.KindUnique,
		AsIs: j.plan.Kind == solver.KindPinned, Sink: j.cfg.Sink, Records: j.cfg.testRecords}
	if j.cfg.VerifyFraction > 0 || j.remoteVerify() > 0 {
		lo.Final = opt.Done
	}
	pub, err := listing.New(lo)
	if err != nil {
		return fmt.Errorf("spill folder: %w", err)
	}
	j.pub = pub
	opt.Listing = pub
	return nil
}

// Addr is the address the gRPC server listens on.
func (j *Job) Addr() string { return j.lis.Addr().String() }

// Plan is the job's plan.
func (j *Job) Plan() solver.Plan { return j.plan }

// Close releases what New took (the listener, the spill folder) for a Job
// that is not run; Run does it itself.
func (j *Job) Close() {
	if j.lis != nil {
		j.lis.Close()
	}
	if j.pub != nil {
		j.pub.Close()
	}
	if j.spillDir != "" {
		os.RemoveAll(j.spillDir)
	}
}

// Status is a snapshot of the job for the people watching it.
func (j *Job) Status() Status {
	p := j.sched.Status()
	st := Status{Started: j.start, Queued: p.Queued, Leased: p.Leased, Restored: p.Restored,
		Workers: p.Workers, Busy: p.Busy, WorkDone: p.WorkDone, WorkTotal: p.WorkTotal, Done: p.Done}
	s := &st.Summary
	s.N, s.Kind, s.Depth = j.plan.N, KindName(j.plan.Kind), j.plan.Depth
	s.Tasks, s.DeepestSplit, s.Committed, s.Workers = p.Tasks, p.DeepestSplit, p.Committed, max(p.PeakWorkers, j.cfg.Workers)
	s.Solutions, s.Unique, s.Nodes = p.Solutions, p.Unique, p.Nodes
	s.PeakLiveTasks = p.PeakLive
	s.setStats(p.Stats)
	if p.Err != nil {
		s.Error = p.Err.Error()
	}
	s.ElapsedSeconds = time.Since(j.start).Seconds()
	s.BusySeconds, s.RestoredSolutions = st.Busy.Seconds(), j.restoredSolutions
	if b := j.elapsed.Load(); b != 0 {
		s.ElapsedSeconds = math.Float64frombits(b)
		s.BusySeconds = math.Float64frombits(j.busy.Load())
	}
	s.Complete = st.Done && s.Error == "" && s.Committed == s.Tasks
	s.setTrust(j.checksPublished())
	s.Engine = engineOf(j.plan)
	fundamentalOf(j.plan, s)
	slices.SortFunc(st.Workers, func(a, b WorkerStatus) int { return a.Joined.Compare(b.Joined) })
	if j.pub != nil {
		p := j.pub.Progress()
		st.Listing = ListingStatus{Writing: p.Writing, Written: p.Written, Total: p.Total}
	}
	st.Recent = j.svc.recentSolutions()
	return st
}

// Events returns the job's recent events with Seq > after, oldest first.
func (j *Job) Events(after uint64) []Event { return j.sched.EventsAfter(after) }

// Run serves the job to its workers (embedded and remote) until every task
// is committed, writes the listing to cfg.Sink (and closes it) and returns
// the summary. Cancelling ctx drains the workers and returns a partial
// summary with an ErrInterrupted error. Run returns only when all its
// goroutines have ended.
func (j *Job) Run(ctx context.Context) (Summary, error) {
	defer j.Close()
	srv, hs := j.newServer()
	bgCtx, stopBG := context.WithCancel(context.Background())
	defer stopBG()
	var bg sync.WaitGroup // everything but the embedded workers
	serveErr := make(chan error, 1)
	bg.Go(func() { serveErr <- srv.Serve(j.lis) })
	bg.Go(func() { j.sched.Run(bgCtx) })
	pubDone := make(chan error, 1)
	if j.pub != nil {
		bg.Go(func() {
			err := j.pub.Run(bgCtx)
			if err != nil && bgCtx.Err() == nil {
				j.sched.Fail(err)
			}
			pubDone <- err
		})
	}
	wctx, cancelWorkers := context.WithCancel(context.Background())
	defer cancelWorkers()
	workers := j.startWorkers(wctx)

	runErr := j.serve(ctx, serveErr, pubDone)
	_, _, _, schedErr := j.sched.Totals()
	reason := "job done"
	if runErr != nil || schedErr != nil {
		reason = "coordinator stopping"
	}
	j.shutdown(srv, hs, workers, cancelWorkers, reason)
	j.sched.Wait() // every commit durable before the summary
	if t := j.sched.Tree(); t.Collapsed > 0 {
		j.log.Info("task tree", "tasks_made", t.Made, "peak_live_tasks", t.PeakLive, "live_tasks", t.Live, "collapsed_splits", t.Collapsed)
	}
	stopBG()
	bg.Wait()
	return j.finish(runErr)
}

// newServer makes the gRPC server: the coordinator service, health and
// reflection.
func (j *Job) newServer() (*grpc.Server, *health.Server) {
	srv := grpc.NewServer(append([]grpc.ServerOption{
		grpc.KeepaliveParams(serverKeepalive),
		grpc.KeepaliveEnforcementPolicy(serverEnforce),
		grpc.MaxRecvMsgSize(wire.MaxRecvMsgSize),
		grpc.MaxConcurrentStreams(wire.MaxConcurrentStreams),
	}, j.cfg.ServerOptions...)...)
	hs := health.NewServer()
	healthpb.RegisterHealthServer(srv, hs)
	hs.SetServingStatus(nqueenspb.CoordinatorService_ServiceDesc.ServiceName, healthpb.HealthCheckResponse_SERVING)
	nqueenspb.RegisterCoordinatorServiceServer(srv, j.svc)
	reflection.Register(srv)
	return srv, hs
}

// startWorkers starts the embedded workers: real gRPC clients over
// loopback, one slot each.
func (j *Job) startWorkers(ctx context.Context) *sync.WaitGroup {
	var workers sync.WaitGroup
	dial := loopback(j.lis.Addr())
	for i := range j.cfg.Workers {
		workers.Go(func() {
			wlog := j.log.Named("worker").With("embedded", i)
			err := worker.Run(ctx, worker.Config{
				Join: dial, Slots: 1, Name: fmt.Sprintf("embedded-%d", i), JoinTimeout: embeddedJoinTimeout,
				DialOptions: append(slices.Clip(j.cfg.WorkerDialOptions), embeddedDialOption(j.embeddedKey)), Quiet: true,
			}, wlog)
			if err != nil {
				wlog.Error("embedded worker failed", "error", err)
			}
		})
	}
	return &workers
}

// serve waits for the end of the job: every task committed and the listing
// written, the server failing, or ctx ending.
func (j *Job) serve(ctx context.Context, serveErr <-chan error, pubDone <-chan error) error {
	select {
	case <-j.sched.Finished():
	case err := <-serveErr:
		err = fmt.Errorf("grpc server: %w", err)
		j.sched.Fail(err)
		return err
	case <-ctx.Done():
		return ErrInterrupted
	}
	if _, _, _, err := j.sched.Totals(); err != nil || j.pub == nil {
		return nil
	}
	// Every task is committed: wait for the listing to be written.
	j.log.Debug("every task committed; writing the solutions", "elapsed", time.Since(j.start).Round(time.Millisecond))
	select {
	case err := <-pubDone:
		return err
	case <-ctx.Done():
		return ErrInterrupted
	}
}

// shutdown turns health to NOT_SERVING, drains the workers, stops the
// server gracefully within the drain timeout, then hard.
func (j *Job) shutdown(srv *grpc.Server, hs *health.Server, workers *sync.WaitGroup, cancelWorkers func(), reason string) {
	hs.Shutdown()
	j.sched.Drain(reason)
	if !waitfor.Group(workers, j.cfg.DrainTimeout) {
		cancelWorkers()
		workers.Wait()
	}
	stopped := make(chan struct{})
	go func() { srv.GracefulStop(); close(stopped) }()
	select {
	case <-stopped:
	case <-time.After(j.cfg.DrainTimeout):
		j.log.Warn("graceful stop timed out; closing open streams")
		srv.Stop()
		<-stopped
	}
	cancelWorkers()
	workers.Wait()
}

// finish makes the summary and closes the sink.
func (j *Job) finish(runErr error) (Summary, error) {
	sum, err := j.summary()
	j.busy.Store(math.Float64bits(sum.BusySeconds))
	j.elapsed.Store(math.Float64bits(sum.ElapsedSeconds))
	if err == nil {
		err = runErr
	}
	sink := j.cfg.Sink
	if sink == nil {
		return sum, err
	}
	if err != nil {
		sink.Close(0)
		return sum, err
	}
	listed := sum.Solutions
	if j.plan.Kind == solver.KindUnique {
		listed = sum.Unique
	}
	if cerr := sink.Close(listed); cerr != nil {
		err = fmt.Errorf("write solutions: %w", cerr)
	}
	return sum, err
}

// summary gathers the result; it fails when the job failed or is partial.
func (j *Job) summary() (Summary, error) {
	counts, committed, stats, err := j.sched.Totals()
	tasks, deepest := j.sched.Shape()
	s := Summary{
		N:              j.plan.N,
		Kind:           KindName(j.plan.Kind),
		Solutions:      counts.Total,
		Unique:         counts.Unique,
		Tasks:          tasks,
		Committed:      committed,
		Depth:          j.plan.Depth,
		DeepestSplit:   deepest,
		Workers:        max(j.cfg.Workers, j.sched.PeakWorkers()),
		Nodes:          counts.Nodes,
		ElapsedSeconds: time.Since(j.start).Seconds(),
		BusySeconds:    j.Status().Busy.Seconds(),
		Complete:       committed == tasks && err == nil,

		RestoredSolutions: j.restoredSolutions,
		PeakLiveTasks:     j.sched.Tree().PeakLive,
	}
	s.setStats(stats)
	s.setTrust(j.checksPublished())
	s.setPins(j.plan)
	s.Engine = engineOf(j.plan)
	fundamentalOf(j.plan, &s)
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

// KindName names a plan kind as the summary does: count (by either engine), all (a listing
// of every solution), unique (a listing of fundamental ones) or pinned
// (the completions of Config.Pins).
func KindName(k solver.Kind) string {
	switch k {
	case solver.KindCount:
		return "count"
	case solver.KindAll:
		return "all"
	case solver.KindUnique:
		return "unique"
	case solver.KindPinned:
		return "pinned"
	case solver.KindJoin: // a count; Summary.Engine says by which engine
		return "count"
	}
	return fmt.Sprintf("unknown (%d)", k)
}
