package coordinator

import (
	"errors"
	"fmt"
	"io"
	"net"
	"runtime"
	"strconv"
	"time"

	"google.golang.org/grpc"

	"github.com/nqueens/nqueens/render"
	"github.com/nqueens/nqueens/solver"
)

// Defaults of Config.
const (
	// DefaultLease is how long a task stays with a silent worker: long
	// enough that a GC pause or a slow network does not steal healthy work,
	// short enough that a hung worker delays the job by seconds, not hours.
	DefaultLease = 30 * time.Second
	// DefaultMaxAttempts is the retry cap per task: a task whose attempts
	// fail this often (broken streams, expired leases, rejected results)
	// fails the job instead of looping forever.
	DefaultMaxAttempts = 5
	// DefaultDrainTimeout bounds graceful shutdown: after it, open streams
	// are cut (GracefulStop falls back to Stop).
	DefaultDrainTimeout = 10 * time.Second
	// DefaultProgressInterval is the period of progress log lines when
	// stderr is not a terminal.
	DefaultProgressInterval = 10 * time.Second
	// DefaultListen binds loopback on an ephemeral port: enough for the
	// embedded workers; remote workers need --listen 0.0.0.0:PORT or similar.
	DefaultListen = "127.0.0.1:0"
)

// AutoDepth asks Run to choose the prefix depth (solver.AutoDepth).
const AutoDepth = -1

// AutoK asks --method lasvegas to choose its random rows (solver.LasVegasK).
const AutoK = -1

// ErrUsage marks errors in the request (bad flags or values): the command
// exits 2 for them and 1 for failed runs.
var ErrUsage = errors.New("usage")

// usageErr wraps a message as a usage error.
func usageErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrUsage, fmt.Sprintf(format, args...))
}

// Progress says how Run reports progress on Stderr.
type Progress int

const (
	ProgressAuto Progress = iota // a live bar on a terminal, log lines otherwise
	ProgressBar                  // always the live bar
	ProgressLog                  // always periodic log lines
	ProgressOff                  // nothing
)

// Config is one coordinator run. The zero value is not valid: N is
// required; NewConfig returns the defaults the command line uses.
type Config struct {
	N     int // board size, 1..solver.MaxN
	Depth int // prefix depth of the plan, or AutoDepth

	Workers int    // embedded workers, one slot each; 0 = remote workers only
	Listen  string // HOST:PORT for the gRPC server ("127.0.0.1:0" picks a port)

	Lease         time.Duration // lease length (DefaultLease)
	Heartbeat     time.Duration // heartbeat interval sent to workers (default Lease/6)
	SweepInterval time.Duration // how often expired leases are looked for (default Lease/10, at most 1 s)
	MaxAttempts   int           // retry cap per task (DefaultMaxAttempts)
	DrainTimeout  time.Duration // graceful shutdown bound (DefaultDrainTimeout)

	Unique bool // list fundamental solutions only (KindUnique plan)

	// VerifyFraction is the fraction (0..1) of committed tasks computed
	// again on a different worker; a worker caught disagreeing with the
	// coordinator's own recomputation is quarantined (verify.go). Count
	// plans only.
	VerifyFraction float64

	// MessageRate is how many Work messages one worker may send per second
	// beyond three per task it is given (DefaultMessageRate; limits.go). A
	// worker that sends more is cut off with ResourceExhausted and its
	// leases go back to the queue.
	MessageRate float64

	// Output of the solutions, through render.Sink. Any of these makes the
	// workers stream solutions (a KindAll or KindUnique plan).
	Solutions string        // "" none, "-" stdout, else a file
	Format    render.Format // text format (render.Cols)
	PNGDir    string
	SVGDir    string
	SheetPath string
	Limit     int // pictures cap (0 = render's default)

	// First finds one solution instead of counting (Method "constructive"
	// or "lasvegas" with K and Seed), written through render.
	First  bool
	Method string
	K      int
	Seed   uint64

	JSON             bool          // one JSON object on Stdout instead of the human summary
	Progress         Progress      // how progress is shown on Stderr
	ProgressInterval time.Duration // period of progress log lines (DefaultProgressInterval)
	Stdout, Stderr   io.Writer     // default os.Stdout, os.Stderr

	// Seams for issue 6 and tests.
	Clock             Clock                 // lease clock (real time)
	SpillDir          string                // temp folder for streamed solutions (os.TempDir)
	ServerOptions     []grpc.ServerOption   // interceptors, TLS credentials for the server
	WorkerDialOptions []grpc.DialOption     // credentials for the embedded workers' connections
	Journal           Journal               // makes each commit durable before the worker's Ack
	Restored          map[int]solver.Counts // results committed by an earlier run (--resume)
	// OpenJournal, when set, is called once the plan is known (depth
	// chosen) and returns the Journal and the restored results to use; it
	// overrides Journal and Restored. Its errors are returned by Run as they
	// are (wrap ErrUsage for a journal that belongs to another job).
	OpenJournal func(plan solver.Plan) (Journal, map[int]solver.Counts, error)
	OnListen    func(addr string) // told the bound address once the server listens

	testJob   func(*job)  // tests: called once the job's scheduler exists
	maxConns  int         // tests: lowers maxConnections
	testConns *connLimits // tests: the connection limits instead of the defaults (listener.go)
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
		Listen:  DefaultListen,
		Lease:   DefaultLease,
		Format:  render.Cols,
		Method:  "constructive",
	}
}

// wantsSolutions reports whether the run streams solutions.
func (c Config) wantsSolutions() bool {
	return c.Solutions != "" || c.PNGDir != "" || c.SVGDir != "" || c.SheetPath != ""
}

// kind is the plan kind the run needs.
func (c Config) kind() solver.Kind {
	switch {
	case c.Unique:
		return solver.KindUnique
	case c.wantsSolutions():
		return solver.KindAll
	}
	return solver.KindCount
}

// Validate reports the first bad field as an ErrUsage error.
func (c Config) Validate() error {
	maxN := solver.MaxN
	if c.First {
		maxN = solver.MaxSingleN
	}
	if c.N < 1 || c.N > maxN {
		return usageErr("--n %d out of range 1..%d", c.N, maxN)
	}
	if c.First {
		switch c.Method {
		case "constructive", "":
		case "lasvegas":
			if c.K != AutoK && (c.K < 0 || c.K > c.N) {
				return usageErr("--k %d out of range 0..%d", c.K, c.N)
			}
		default:
			return usageErr("unknown --method %q: want constructive or lasvegas", c.Method)
		}
	}
	if c.Depth != AutoDepth {
		if maxd := solver.MaxDepth(c.N, c.kind()); c.Depth < 0 || c.Depth > maxd {
			return usageErr("--depth %d out of range: for n=%d it must be 0..%d", c.Depth, c.N, maxd)
		}
	}
	if c.Listen != "" {
		_, port, err := net.SplitHostPort(c.Listen)
		if err != nil {
			return usageErr("--listen %q: want HOST:PORT (%v)", c.Listen, err)
		}
		if p, err := strconv.Atoi(port); err != nil || p < 0 || p > 65535 {
			return usageErr("--listen %q: port %q is not a number in 0..65535", c.Listen, port)
		}
	}
	if c.Workers < 0 || c.Workers > maxSlots {
		return usageErr("--workers %d out of range 0..%d", c.Workers, maxSlots)
	}
	if c.Lease < 0 || c.Heartbeat < 0 || c.DrainTimeout < 0 || c.SweepInterval < 0 || c.ProgressInterval < 0 {
		return usageErr("durations must not be negative")
	}
	if c.Lease > 0 && c.Heartbeat >= c.Lease {
		return usageErr("heartbeat interval %v must be shorter than the lease %v", c.Heartbeat, c.Lease)
	}
	if c.VerifyFraction < 0 || c.VerifyFraction > 1 || c.VerifyFraction != c.VerifyFraction {
		return usageErr("--verify-fraction %v out of range 0..1", c.VerifyFraction)
	}
	if c.MessageRate < 0 || c.MessageRate != c.MessageRate {
		return usageErr("--max-message-rate %v must be positive", c.MessageRate)
	}
	if c.MaxAttempts < 0 {
		return usageErr("--max-attempts %d must be at least 1", c.MaxAttempts)
	}
	if c.Format != "" {
		if _, err := render.ParseFormat(string(c.Format)); err != nil {
			return usageErr("%v", err)
		}
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
	if c.ProgressInterval == 0 {
		c.ProgressInterval = DefaultProgressInterval
	}
	if c.Listen == "" {
		c.Listen = DefaultListen
	}
	if c.Format == "" {
		c.Format = render.Cols
	}
	if c.Clock == nil {
		c.Clock = realClock{}
	}
	return c
}
