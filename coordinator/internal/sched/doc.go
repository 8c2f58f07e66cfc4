// Package sched is the coordinator's lease policy: which task is queued,
// leased to whom until when, committed with which counts, split or
// verified. It speaks plain Go types (TaskID, Assignment, Report,
// Verdict); package coordinator's gRPC service turns wire messages into
// its calls and its Mailbox messages into wire messages. Every dependency
// comes through Options (an injected Clock expires leases, a Journal makes
// commits durable, a ListingPublisher takes listings), so it is
// unit-tested alone, and it imports neither gRPC nor the generated proto
// (imports_test.go keeps it so).
//
// How it stays exact. A worker grants credits (Ready) and gets at most
// that many leases (Assign). A lease covers the tasks [task, task+run):
// one task, a run of them, or (with the verify flag) a committed task to
// compute again, and one table (holder) says who holds each task;
// invariants.go states what every step must leave true (each task
// exactly one of queued, leased, committed or split; every sampled task
// queued for verification or on a verification lease; the counters agree)
// and the package's tests check it after every step, and
// scripts/mutate_sched.sh checks that the tests catch twenty-odd plausible
// bugs. A lease ends with a Result, or is taken back
// when the worker's stream breaks, its deadline passes without a heartbeat,
// or the worker releases it; taken-back tasks go to the front of the
// queue. Only a failure reported by the solver itself, or a result that
// would carry the sums past the published count, counts against a task,
// and only once per worker name: a task that fails on MaxAttempts
// distinct workers fails the job, while a crash-looping worker does not.
// The first valid Result of a task id (plan fingerprint + index) from a
// worker that held a lease on it is committed, after cfg.Journal (when
// set) made it durable and before the worker's Ack; later results are
// compared and dropped, mismatches logged and counted as conflicts. A
// run (runs.go: one lease of consecutive plan tasks, for a worker that
// works their prefixes out) is judged task by task the same way.
// Implausible counts (odd totals, more fundamental solutions than
// solutions, more than the whole board has) are rejected and earn the
// worker a strike; MaxStrikes strikes quarantine it. Totals are recomputed
// from the committed results with overflow-checked addition.
//
// Memory follows the live work (collapse.go): a split whose children are
// all committed collapses into one committed record of its subtree's
// sums, task records live in chunks released when every task in them is
// gone, and the size rule splits depth first, so the scheduler holds the
// queued, leased and not-yet-collapsed tasks, never every task made.
package sched
