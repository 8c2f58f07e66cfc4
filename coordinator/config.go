package coordinator

import (
	"errors"
	"fmt"
	"iter"
	"net"
	"runtime"
	"strconv"
	"time"

	"google.golang.org/grpc"

	"github.com/nqueens/nqueens/coordinator/internal/sched"
	"github.com/nqueens/nqueens/coordinator/internal/wire"
	"github.com/nqueens/nqueens/internal/connguard"
	nqueenspb "github.com/nqueens/nqueens/proto/nqueens/v1"
	"github.com/nqueens/nqueens/solver"
)

// Defaults of Config.
const (
	// DefaultLease is how long a task stays with a silent worker
	// (sched.DefaultLease).
	DefaultLease = sched.DefaultLease
	// DefaultMaxAttempts is how many distinct workers may fail on one task
	// before the job fails (sched.DefaultMaxAttempts says what counts).
	DefaultMaxAttempts = sched.DefaultMaxAttempts
	// DefaultDrainTimeout bounds graceful shutdown: after it, open streams
	// are cut (GracefulStop falls back to Stop).
	DefaultDrainTimeout = 10 * time.Second
	// DefaultListen binds loopback on an ephemeral port: enough for the
	// embedded workers; remote workers need --listen 0.0.0.0:PORT or similar.
	DefaultListen = "127.0.0.1:0"
	// DefaultMessageRate is the Work messages one worker may send per
	// second beyond three per task it is given (wire.DefaultMessageRate).
	DefaultMessageRate = wire.DefaultMessageRate
)

// Bounds on the workers and connections a job holds.
const (
	// maxSessions bounds the joined workers (sched.DefaultMaxSessions):
	// a Join beyond it is refused with ResourceExhausted, which workers
	// retry with back-off.
	maxSessions = sched.DefaultMaxSessions
	// maxConnections bounds the open TCP connections: every joined worker
	// (maxSessions) with room for health probes and Joins in flight, so a
	// flood of connections cannot use up the coordinator's file
	// descriptors and memory. A connection beyond it pushes out the oldest
	// one that has not joined (listener.go), so idle connections cannot
	// lock workers out either.
	maxConnections = maxSessions + 256
)

// AutoDepth asks Run to choose the prefix depth (solver.AutoDepth).
const AutoDepth = -1

// ErrUsage marks errors in the request (bad flags or values): the command
// exits 2 for them and 1 for failed runs.
var ErrUsage = errors.New("usage")

// usageErr wraps a message as a usage error.
func usageErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrUsage, fmt.Sprintf(format, args...))
}

// FieldError is a Config field with a bad value. It is an ErrUsage error;
// the command names the flag of the field (the library knows no flags).
type FieldError struct {
	Field string // the Config field: "N", "Depth", "Listen", ...
	Msg   string // the value and what is wrong with it: "0 out of range 1..32"
}

func (e *FieldError) Error() string { return e.Field + " " + e.Msg }

// Is makes every FieldError an ErrUsage.
func (e *FieldError) Is(target error) bool { return target == ErrUsage }

// fieldErr makes a FieldError.
func fieldErr(field, format string, args ...any) error {
	return &FieldError{Field: field, Msg: fmt.Sprintf(format, args...)}
}

// Sink receives the committed solutions of a listing, in order (the
// command opens one with package render).
type Sink interface {
	Write(cols []int) error // called once per solution, in order; must not keep cols
	Close(total uint64) error
}

// Config is one coordinator run. The zero value is not valid: N is
// required; NewConfig returns the defaults the command line uses.
type Config struct {
	// The job.
	N      int  // board size, 1..solver.MaxN
	Depth  int  // prefix depth of the plan, or AutoDepth
	Unique bool // fundamental solutions: a KindUnique plan (listed, with Sink)
	Sink   Sink // receives every solution (or, with Unique, every fundamental one); nil: count only
	// Pins, when not empty, asks for the completions of these queens only:
	// the solutions that hold them all, counted (or listed) once each,
	// without symmetry (a KindPinned plan; pins.go).
	Pins solver.Pins
	// Engine counts the job with the quadrant join or the backtracker
	// (engine.go); "" is EngineAuto.
	Engine Engine
	// WorkerMemory is the bytes a worker may spend on the job's tables
	// (0: DefaultWorkerMemory): EngineAuto plans a join only below it.
	WorkerMemory int64

	// Where it runs.
	Workers int // embedded workers, one slot each; 0 = remote workers only
	// Listen is the gRPC server's HOST:PORT ("127.0.0.1:0" picks a port).
	// Empty means DefaultListen, and then, with embedded workers, the bound
	// address is logged at debug level only: nobody asked for it.
	Listen string

	// Policy: how long things may take and how often they may fail.
	Lease         time.Duration // lease length (DefaultLease)
	Heartbeat     time.Duration // heartbeat interval sent to workers (default Lease/6)
	SweepInterval time.Duration // how often expired leases are looked for (default Lease/10, at most 1 s)
	MaxAttempts   int           // distinct workers a task may fail on (DefaultMaxAttempts)
	DrainTimeout  time.Duration // graceful shutdown bound (DefaultDrainTimeout)

	// VerifyFraction is the fraction (0..1) of committed tasks computed
	// again on a different worker; a worker caught disagreeing with the
	// coordinator's own recomputation is quarantined (verify.go). Count
	// plans only.
	VerifyFraction float64
	// RemoteVerifyFraction is the fraction of a remote worker's commits
	// computed again elsewhere when the job's total cannot be compared
	// with a published count (a board beyond solver.Known, or pinned),
	// if above VerifyFraction: there, a second computation is the only
	// check of a worker nobody vouches for. Embedded workers (Workers)
	// are the coordinator's own code and are trusted. NewConfig sets
	// DefaultRemoteVerifyFraction; 0 turns it off.
	RemoteVerifyFraction float64
	// AsUnpublished treats the board as one whose count is not published:
	// the sums are not compared with solver.Known's and
	// RemoteVerifyFraction applies. A rehearsal, at a size that runs in
	// minutes, of a run of a board nobody has counted (N ≥ 28).
	AsUnpublished bool

	// MessageRate is how many Work messages one worker may send per second
	// beyond three per task it is given (DefaultMessageRate). A
	// worker that sends more is cut off with ResourceExhausted and its
	// leases go back to the queue.
	MessageRate float64

	// MaxWorkers bounds the workers joined at once (0: 16384, maxSessions);
	// a Join beyond it is refused with ResourceExhausted, which workers
	// retry. Lower it to keep a small coordinator small.
	MaxWorkers int

	// Trust and durability (package auth, package journal).
	ServerOptions     []grpc.ServerOption     // interceptors, TLS credentials for the server
	WorkerDialOptions []grpc.DialOption       // credentials for the embedded workers' connections
	SpillDir          string                  // temp folder for streamed solutions (os.TempDir)
	Journal           Journal                 // makes each commit durable before the worker's Ack
	Restored          iter.Seq[JournalResult] // results committed by an earlier run (--resume), at most one per task; read once
	restoredErr       func() error            // Resumed.ReadErr
	Splits            []Split                 // the earlier run's splits, in its order (--resume)
	entries           iter.Seq[JournalEntry]  // Resumed.Entries: splits and results in the journal's order
	// OpenJournal, when set, is called once the plan is known (depth
	// chosen) and returns the Journal, the restored results and splits to
	// use; it overrides Journal, Restored and Splits. Its errors are
	// returned by New as they are (wrap ErrUsage for a journal that
	// belongs to another job).
	OpenJournal func(plan solver.Plan) (Resumed, error)

	// TaskTarget is the task duration that splitting aims at (0:
	// DefaultTaskTarget, a minute): a task estimated to take longer is
	// split into its children before it is leased, and near the end a
	// task leased for longer is taken back and split (split.go).
	TaskTarget time.Duration
	// MinTasks, when positive, makes splitting go on until every task is
	// at most 1/MinTasks of the board's work, so that at least MinTasks
	// tasks are made over the run: the bookkeeping of a run of
	// minute-long tasks on a board far bigger than the workers can count
	// (nqbench cluster --synthetic). 0: splitting follows TaskTarget only.
	MinTasks int
	// NoSplit keeps the plan's tasks as they are (a load generator that
	// answers from a table of them).
	NoSplit bool
	// SyntheticLoad says the workers answer made-up counts (nqbench
	// cluster --synthetic): the sums are not compared with the board's
	// published counts, which they would pass.
	SyntheticLoad bool

	// Test seams.
	clock     Clock             // lease clock (real time)
	maxConns  int               // lowers maxConnections
	testConns *connguard.Limits // the connection limits instead of the defaults
	// testRecords makes the listing sort n-byte records, the path of n
	// above 16, on a board small enough to test.
	testRecords bool
}

// NewConfig returns a Config with the command line's defaults for board n.
func NewConfig(n int) Config {
	return Config{
		N:       n,
		Depth:   AutoDepth,
		Workers: runtime.NumCPU(),
		Lease:   DefaultLease,

		RemoteVerifyFraction: DefaultRemoteVerifyFraction,
	}
}

// kind is the plan kind the run needs.
func (c Config) kind() solver.Kind {
	switch {
	case c.pinned():
		return solver.KindPinned
	case c.Unique:
		return solver.KindUnique
	case c.Sink != nil:
		return solver.KindAll
	}
	return solver.KindCount
}

// Validate reports the first bad field as a FieldError (an ErrUsage).
func (c Config) Validate() error {
	if c.N < 1 || c.N > solver.MaxN {
		return fieldErr("N", "%d out of range 1..%d", c.N, solver.MaxN)
	}
	if c.Depth != AutoDepth {
		if maxd := solver.MaxDepth(c.N, c.kind()); c.Depth < 0 || c.Depth > maxd {
			return fieldErr("Depth", "%d out of range: for n=%d it must be 0..%d", c.Depth, c.N, maxd)
		}
	}
	if _, err := ParseEngine(string(c.Engine)); err != nil {
		return fieldErr("Engine", "%v", err)
	}
	if c.WorkerMemory < 0 {
		return fieldErr("WorkerMemory", "%d must not be negative", c.WorkerMemory)
	}
	if err := c.validatePins(); err != nil {
		return err
	}
	if c.Listen != "" {
		if err := checkHostPort(c.Listen); err != nil {
			return err
		}
	}
	if c.Workers < 0 || c.Workers > wire.MaxSlots {
		return fieldErr("Workers", "%d out of range 0..%d", c.Workers, wire.MaxSlots)
	}
	for _, d := range []struct {
		field string
		v     time.Duration
	}{{"Lease", c.Lease}, {"Heartbeat", c.Heartbeat}, {"DrainTimeout", c.DrainTimeout}, {"SweepInterval", c.SweepInterval}} {
		if d.v < 0 {
			return fieldErr(d.field, "%v must not be negative", d.v)
		}
	}
	if c.Lease > 0 && c.Heartbeat >= c.Lease {
		return fieldErr("Heartbeat", "%v must be shorter than the lease %v", c.Heartbeat, c.Lease)
	}
	if c.TaskTarget < 0 {
		return fieldErr("TaskTarget", "%v is negative", c.TaskTarget)
	}
	if c.MinTasks < 0 || c.MinTasks > 0 && c.NoSplit {
		return fieldErr("MinTasks", "%d needs splitting and must not be negative", c.MinTasks)
	}
	if c.VerifyFraction < 0 || c.VerifyFraction > 1 || c.VerifyFraction != c.VerifyFraction {
		return fieldErr("VerifyFraction", "%v out of range 0..1", c.VerifyFraction)
	}
	if c.RemoteVerifyFraction < 0 || c.RemoteVerifyFraction > 1 || c.RemoteVerifyFraction != c.RemoteVerifyFraction {
		return fieldErr("RemoteVerifyFraction", "%v out of range 0..1", c.RemoteVerifyFraction)
	}
	if c.MessageRate < 0 || c.MessageRate != c.MessageRate {
		return fieldErr("MessageRate", "%v must be positive", c.MessageRate)
	}
	if c.MaxWorkers < 0 || c.MaxWorkers > maxSessions {
		return fieldErr("MaxWorkers", "%d out of range 0..%d", c.MaxWorkers, maxSessions)
	}
	if c.MaxAttempts < 0 {
		return fieldErr("MaxAttempts", "%d must be at least 1", c.MaxAttempts)
	}
	return nil
}

// checkHostPort checks a Listen address.
func checkHostPort(addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fieldErr("Listen", "%q: want HOST:PORT (%v)", addr, err)
	}
	if p, err := strconv.Atoi(port); err != nil || p < 0 || p > 65535 {
		return fieldErr("Listen", "%q: port %q is not a number in 0..65535", addr, port)
	}
	return nil
}

// withDefaults fills the zero fields.
func (c Config) withDefaults() Config {
	if c.Lease == 0 {
		c.Lease = DefaultLease
	}
	if c.Heartbeat == 0 {
		c.Heartbeat = c.Lease / 6
	}
	if c.SweepInterval == 0 {
		c.SweepInterval = min(c.Lease/10, time.Second)
	}
	if c.MaxAttempts == 0 {
		c.MaxAttempts = DefaultMaxAttempts
	}
	if c.MessageRate == 0 {
		c.MessageRate = DefaultMessageRate
	}
	if c.DrainTimeout == 0 {
		c.DrainTimeout = DefaultDrainTimeout
	}
	if c.Listen == "" {
		c.Listen = DefaultListen
	}
	if c.clock == nil {
		c.clock = sched.RealClock{}
	}
	return c
}

// connLimits returns the connection limits of c's run (package connguard):
// every joined worker with room for probes and Joins in flight, and the
// embedded workers on loopback beyond the per-address cap.
func (c Config) connLimits() connguard.Limits {
	if c.testConns != nil {
		return *c.testConns
	}
	l := connguard.DefaultLimits(maxConnections)
	l.Loopback = c.Workers
	l.JoinMethod = nqueenspb.CoordinatorService_Join_FullMethodName
	if c.maxConns > 0 {
		l.Total = c.maxConns
	}
	return l
}

// Boards from which a count's sum may no longer fit the uint64 the
// coordinator adds task counts into: the total grows about 10.6 times per
// N (OEIS A000170: 2.3e17 at N=27), so N=28 ends near 2.5e18 and N=29 near
// 2.7e19, past 2^64 ≈ 1.8e19; the fundamental count, about an eighth of
// the total, passes it one board later.
const (
	totalOverflowN  = 29
	uniqueOverflowN = 30
)

// SumWarning is one line saying the job's final sum could pass 2^64, or
// "" when it cannot. The coordinator logs it before it starts: a sum never
// wraps (the scheduler fails the job when one would overflow), but a
// year-long run at N ≥ 29 should know from the start that it ends that
// way; its per-task counts (each far below 2^64) stay in the journal.
func (c Config) SumWarning() string {
	const end = "the job fails when its sum passes 2^64 (the journal keeps every task's counts, to add in 128 bits)"
	switch {
	case c.kind() == solver.KindUnique && c.N >= uniqueOverflowN:
		return fmt.Sprintf("n=%d: the fundamental count may pass 2^64: %s", c.N, end)
	case c.kind() != solver.KindUnique && c.N >= totalOverflowN:
		return fmt.Sprintf("n=%d: the total may pass 2^64 (about 2.7e19 at n=29): %s", c.N, end)
	}
	return ""
}
