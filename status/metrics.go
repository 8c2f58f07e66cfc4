package status

import (
	"fmt"
	"strconv"
	"time"

	grpcprom "github.com/grpc-ecosystem/go-grpc-middleware/providers/prometheus"
	"github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors/recovery"
	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	grpcstatus "google.golang.org/grpc/status"

	"github.com/nqueens/nqueens/coordinator"
	"github.com/nqueens/nqueens/internal/promreg"
	nqueenspb "github.com/nqueens/nqueens/proto/nqueens/v1"
	"github.com/nqueens/nqueens/solver"
)

// NewRegistry returns a registry of this process's own (not the global
// one, which any imported library may fill): the Go runtime and process
// collectors, and nqueens_build_info (promreg.New).
func NewRegistry() *prometheus.Registry { return promreg.New() }

// syncBuckets span a journal fsync from a page-cache-backed tmpfs (tens of
// microseconds) to a slow network disk (a second).
var syncBuckets = prometheus.ExponentialBuckets(25e-6, 2.5, 12)

// JournalSyncObserver registers nqueens_journal_fsync_seconds on reg and
// returns the function to give the journal (journal.Journal.ObserveSync).
func JournalSyncObserver(reg prometheus.Registerer) func(time.Duration) {
	h := prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "nqueens_journal_fsync_seconds",
		Help:    "Time of one journal fsync; a worker's result is acknowledged only after it.",
		Buckets: syncBuckets,
	})
	reg.MustRegister(h)
	return func(d time.Duration) { h.Observe(d.Seconds()) }
}

// GRPCServerOptions returns the interceptors every gRPC server of the
// coordinator wants, registered on reg: grpc_server_* metrics per method
// and code (with handling-time histograms), and panic recovery that turns
// a panicking handler into codes.Internal (counted in
// nqueens_grpc_panics_total) instead of a dead process. Put them before
// the auth options (auth.Config.ServerOptions): chained interceptors run
// in the order given, so metrics see every call, refused ones included,
// and a panic anywhere inside is recovered.
func GRPCServerOptions(reg prometheus.Registerer) []grpc.ServerOption {
	m := grpcprom.NewServerMetrics(grpcprom.WithServerHandlingTimeHistogram())
	panics := prometheus.NewCounter(prometheus.CounterOpts{
		Name: "nqueens_grpc_panics_total",
		Help: "gRPC handlers that panicked and were answered with codes.Internal.",
	})
	reg.MustRegister(m, panics)
	// Every method's series exist (at 0) from the start, not from its
	// first call: a rate() or an alert on them has data at once.
	m.InitializeMetrics(serviceDescs{&nqueenspb.CoordinatorService_ServiceDesc, &healthpb.Health_ServiceDesc})
	rec := recovery.WithRecoveryHandler(func(p any) error {
		panics.Inc()
		return grpcstatus.Error(codes.Internal, fmt.Sprintf("internal error: %v", p))
	})
	return []grpc.ServerOption{
		grpc.ChainUnaryInterceptor(m.UnaryServerInterceptor(), recovery.UnaryServerInterceptor(rec)),
		grpc.ChainStreamInterceptor(m.StreamServerInterceptor(), recovery.StreamServerInterceptor(rec)),
	}
}

// serviceDescs lists the methods of the coordinator's services the way a
// grpc.Server does (GetServiceInfo), before any server exists.
type serviceDescs []*grpc.ServiceDesc

func (d serviceDescs) GetServiceInfo() map[string]grpc.ServiceInfo {
	out := make(map[string]grpc.ServiceInfo, len(d))
	for _, sd := range d {
		var ms []grpc.MethodInfo
		for _, m := range sd.Methods {
			ms = append(ms, grpc.MethodInfo{Name: m.MethodName})
		}
		for _, st := range sd.Streams {
			ms = append(ms, grpc.MethodInfo{Name: st.StreamName, IsClientStream: st.ClientStreams, IsServerStream: st.ServerStreams})
		}
		out[sd.ServiceName] = grpc.ServiceInfo{Methods: ms, Metadata: sd.Metadata}
	}
	return out
}

// Engine is the counting engine of the coordinator's tasks, the engine
// label of nqueens_job_info: workers count with the solver's backtracker
// (solver.CountTask, ListTask and the pinned variants).
const Engine = "backtrack"

// collector turns a Source's snapshot into metrics at scrape time, so the
// numbers are never older than the scrape and the job keeps no metric
// state of its own.
type collector struct {
	src Source

	solutions, unique, tasks, planTasks, nodes, workers, slots *prometheus.Desc
	workerTasks, workerNodes                                   *prometheus.Desc
	leases, expired, requeued, rejected, conflicts, duplicates *prometheus.Desc
	verified, quarantined, workDone, workTotal, busy, eta      *prometheus.Desc
	done, restored, splits, runs, jobInfo, progress            *prometheus.Desc
	trust                                                      trustDescs
}

// trustDescs say how far the total can be trusted (coordinator.Summary's
// CheckedAgainstPublished, verified share and NodesSaturated).
type trustDescs struct {
	checked, verifiedSols, verifiedFrac, nodesSaturated *prometheus.Desc
}

func newTrustDescs(d func(name, help string, labels ...string) *prometheus.Desc) trustDescs {
	return trustDescs{
		checked:        d("nqueens_checked_against_published", "1 when the sums are compared with the board's published count (on every commit and at the end; a job whose sums differ fails), 0 for a board nobody has counted, a pinned run or a synthetic load."),
		verifiedSols:   d("nqueens_verified_solutions_total", "Solutions in the committed tasks confirmed by a second computation."),
		verifiedFrac:   d("nqueens_verified_fraction", "Share (0..1) of the committed tasks, or of the solutions counted, that a second computation confirmed: the evidence for a total that nqueens_checked_against_published says is not checked.", "of"),
		nodesSaturated: d("nqueens_nodes_saturated", "1 when the node counter stopped at 2^64-1 (nqueens_nodes_total is then a lower bound), else 0."),
	}
}

// collect sends the trust metrics of sum.
func (t trustDescs) collect(ch chan<- prometheus.Metric, sum coordinator.Summary) {
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	gauge(t.checked, b2f(sum.CheckedAgainstPublished))
	ch <- prometheus.MustNewConstMetric(t.verifiedSols, prometheus.CounterValue, float64(sum.VerifiedSolutions))
	gauge(t.verifiedFrac, sum.VerifiedFraction, "tasks")
	gauge(t.verifiedFrac, sum.VerifiedSolutionsFraction, "solutions")
	gauge(t.nodesSaturated, b2f(sum.NodesSaturated))
}

func newCollector(src Source) *collector {
	d := func(name, help string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc(name, help, labels, nil)
	}
	return &collector{
		src:         src,
		solutions:   d("nqueens_solutions", "Solutions counted in the committed tasks so far (the exact total when nqueens_done is 1)."),
		unique:      d("nqueens_unique_solutions", "Fundamental solutions counted in the committed tasks so far."),
		tasks:       d("nqueens_tasks", "Tasks by state: queued (waiting), leased (on a worker now), committed (done, restored ones included).", "state"),
		planTasks:   d("nqueens_plan_tasks", "Tasks to commit: the plan's, less those split, plus their children."),
		nodes:       d("nqueens_nodes_total", "Search nodes visited by the committed tasks."),
		workers:     d("nqueens_workers", "Worker sessions attached now."),
		slots:       d("nqueens_slots", "Task slots of the attached workers."),
		workerTasks: d("nqueens_worker_tasks_committed_total", "Tasks committed by an attached worker, by its name.", "worker"),
		workerNodes: d("nqueens_worker_nodes_total", "Search nodes of the tasks an attached worker committed, by its name.", "worker"),
		leases:      d("nqueens_leases_total", "Tasks leased (first attempts, retries and verifications; each task of a run of tasks)."),
		expired:     d("nqueens_lease_expiries_total", "Leases that ran out without a heartbeat."),
		requeued:    d("nqueens_requeues_total", "Leased tasks taken back and queued again."),
		splits:      d("nqueens_splits_total", "Tasks split into their children on demand."),
		runs:        d("nqueens_runs_total", "Leases of several consecutive tasks (runs), one message each way."),
		rejected:    d("nqueens_rejections_total", "Results or batches dropped as invalid or foreign."),
		conflicts:   d("nqueens_conflicts_total", "Results that disagreed with a committed one."),
		duplicates:  d("nqueens_duplicates_total", "Repeated results equal to the committed one."),
		verified:    d("nqueens_verified_total", "Committed tasks confirmed by a second computation."),
		quarantined: d("nqueens_quarantines_total", "Workers caught reporting wrong counts and disconnected."),
		workDone:    d("nqueens_work_done_nodes", "Estimated search work done by this run, in nodes (restored tasks excluded)."),
		workTotal:   d("nqueens_work_total_nodes", "Estimated search work of this run, in nodes."),
		busy:        d("nqueens_busy_seconds_total", "Time with at least one worker attached."),
		eta:         d("nqueens_eta_seconds", "Estimated time left at the current rate; absent while unknown."),
		progress:    d("nqueens_progress_ratio", "Share (0..1) of the job's work done, restored work included: by search nodes, or by units for a join job, whose units report no nodes. The figure the progress line shows (which also holds it from falling when the node estimate grows)."),
		done:        d("nqueens_done", "1 once every task is committed or the job failed, else 0."),
		restored:    d("nqueens_restored_tasks", "Tasks committed by an earlier run and read from the journal."),
		jobInfo:     d("nqueens_job_info", "The job this coordinator runs: always 1, with its board size, kind (count, all, unique, pinned), plan depth and counting engine as labels.", "n", "kind", "depth", "engine"),
		trust:       newTrustDescs(d),
	}
}

// Describe implements prometheus.Collector.
func (c *collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.solutions, c.unique, c.tasks, c.planTasks, c.nodes, c.workers, c.slots,
		c.workerTasks, c.workerNodes, c.leases, c.expired, c.requeued, c.rejected, c.conflicts, c.duplicates, c.splits,
		c.verified, c.quarantined, c.workDone, c.workTotal, c.busy, c.eta, c.done, c.restored, c.runs, c.jobInfo, c.progress,
		c.trust.checked, c.trust.verifiedSols, c.trust.verifiedFrac, c.trust.nodesSaturated} {
		ch <- d
	}
}

// Collect implements prometheus.Collector from one snapshot.
func (c *collector) Collect(ch chan<- prometheus.Metric) {
	s := c.src.Status()
	sum := s.Summary
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	counter := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, labels...)
	}
	gauge(c.jobInfo, 1, strconv.Itoa(sum.N), sum.Kind, strconv.Itoa(sum.Depth), Engine)
	gauge(c.solutions, float64(sum.Solutions))
	gauge(c.unique, float64(sum.Unique))
	gauge(c.tasks, float64(s.Queued), "queued")
	gauge(c.tasks, float64(s.Leased), "leased")
	gauge(c.tasks, float64(sum.Committed), "committed")
	gauge(c.planTasks, float64(sum.Tasks))
	counter(c.nodes, float64(sum.Nodes))
	gauge(c.workers, float64(len(s.Workers)))
	gauge(c.slots, float64(Slots(s)))
	for _, w := range byName(s.Workers) {
		counter(c.workerTasks, float64(w.Tasks), w.Name)
		counter(c.workerNodes, float64(w.Nodes), w.Name)
	}
	for d, v := range map[*prometheus.Desc]uint64{c.leases: sum.Leased, c.expired: sum.Expired, c.requeued: sum.Requeued,
		c.rejected: sum.Rejected, c.conflicts: sum.Conflicts, c.duplicates: sum.Duplicates,
		c.verified: sum.Verified, c.quarantined: sum.Quarantined, c.splits: sum.Splits, c.runs: sum.Runs} {
		counter(d, float64(v))
	}
	e := EstimateOf(s)
	gauge(c.workDone, s.WorkDone)
	gauge(c.workTotal, s.WorkTotal)
	counter(c.busy, s.Busy.Seconds())
	if e.HasETA {
		gauge(c.eta, e.ETA.Seconds())
	}
	gauge(c.progress, e.Fraction)
	gauge(c.done, b2f(s.Done))
	gauge(c.restored, float64(s.Restored))
	c.trust.collect(ch, sum)
}

// workerSum is one worker label's figures.
type workerSum struct {
	Name         string
	Tasks, Nodes uint64
}

// byName adds up the attached sessions per worker name. The label's
// cardinality is bounded: only sessions attached now appear (at most the
// coordinator's session limit, 4096, and in practice the cluster's size),
// and two sessions of one name (a restarted worker whose old stream is not
// yet gone) share one series instead of making the scrape fail on a
// duplicate. A departed worker's series disappears; Prometheus' sum() over
// nqueens_worker_* is therefore "work by the workers attached now", while
// the job-wide counters above never go down.
func byName(ws []coordinator.WorkerStatus) []workerSum {
	idx := make(map[string]int, len(ws))
	var out []workerSum
	for _, w := range ws {
		name := w.Name
		if name == "" {
			name = w.ID
		}
		i, ok := idx[name]
		if !ok {
			i = len(out)
			idx[name] = i
			out = append(out, workerSum{Name: name})
		}
		out[i].Tasks += w.Tasks
		out[i].Nodes = solver.SaturatingAdd(out[i].Nodes, w.Nodes) // as the job's own node sum: never wraps
	}
	return out
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
