package sched

import "time"

// Bounds on what one worker may make the scheduler hold. The wire's own
// limits (message sizes, rates) are package coordinator's.
const (
	// MaxCredits caps the credits one worker may hold (more are ignored),
	// so a broken or hostile peer cannot make the coordinator lease it the
	// whole plan.
	MaxCredits = 4096
	// DefaultMaxSessions bounds the joined workers, so Join calls in a
	// loop cannot grow the coordinator's memory without bound (those that
	// never open a Work stream are forgotten after attachTimeout). A Join
	// beyond it fails with ErrTooManyWorkers, which workers retry with
	// back-off. 16384 lets 10,000 single-slot pods join one coordinator; a
	// session costs about a kilobyte, so the bound is 16 MB.
	DefaultMaxSessions = 16384
	// attachTimeout is how long a joined session may wait for its Work
	// stream's first Ready before the coordinator forgets it (a lease, when
	// the lease is shorter). A worker opens its stream right after Join, one
	// round trip later; Joins that never open one (a worker that died in
	// between, a client that only joins) give their place back within
	// seconds, so a worker refused for capacity gets in well within its
	// --join-timeout. A worker forgotten this way is told so by Work
	// (FailedPrecondition) and joins again.
	attachTimeout = 5 * time.Second
	// MaxStrikes is how many invalid results or solution batches a worker
	// may send before it is quarantined: one can be a bug crossing a
	// restart, three are a broken or hostile worker.
	MaxStrikes = 3
	// MaxEndedLeases is how many ended leases are remembered for late
	// results: memory stays proportional to the live leases plus this,
	// and a result later than this many lease endings is compared as an
	// unknown worker's would be.
	MaxEndedLeases = 16384
	// DefaultLease is how long a task stays with a silent worker: long
	// enough that a GC pause or a slow network does not steal healthy work,
	// short enough that a hung worker delays the job by seconds, not hours.
	DefaultLease = 30 * time.Second
	// DefaultMaxAttempts is how many distinct workers may fail on one task
	// before the job fails instead of looping forever. A failure is the
	// solver's own (Result.failure) or a result that would carry the sums
	// past the published count (an earlier liar may be to blame, so no
	// strike). Broken streams, expired leases and results rejected as
	// implausible are the worker's or the network's fault and do not count.
	DefaultMaxAttempts = 5
)
