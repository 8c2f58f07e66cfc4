// Package coordinator runs an N-Queens job on a cluster: it plans the
// search as tasks (subtrees with the first rows fixed, solver.NewPlan),
// leases them to workers over gRPC (nqueens.v1.CoordinatorService), and
// commits the first valid result of each task exactly once.
//
//	cfg := coordinator.NewConfig(12)
//	cfg.Workers = 4                       // embedded: real gRPC clients over loopback
//	job, err := coordinator.New(cfg, log) // plans, opens the journal, binds the listener
//	go watch(job.Status, job.Events)      // a copy of the job's state, any time
//	sum, err := job.Run(ctx)              // sum.Solutions == 14200, sum.Unique == 1787
//
// With cfg.Workers = 0 the job waits for remote workers (`worker --join
// job.Addr()`). The package prints nothing and draws nothing: the command
// opens the sinks (cfg.Sink, package render), the journal (cfg.OpenJournal,
// package journal) and the status server (package status), and prints the
// Summary that Run returns.
//
// The rooms, one job each:
//
//   - scheduler.go, commit.go, verify.go, observe.go, split.go, runs.go:
//     the lease policy in plain Go types (TaskID, Assignment, report,
//     verdict). One lock holds the queue, the leases and the committed
//     results; an injected Clock expires leases; every dependency comes
//     through schedOptions. It speaks no proto and is unit-tested alone
//     (scheduler_test.go).
//   - server.go, outbox.go, spill.go, limits.go: the wire. The gRPC
//     service turns WorkRequests into scheduler calls and the scheduler's
//     mailbox messages into WorkResponses (batched for workers that read
//     batches), checks every message against the limits, and spills a
//     listing's batches into the listing package's spools.
//   - Connections before anyone has joined are package connguard's:
//     handshake timeout, idle pre-join connections closed, a cap per
//     address (config.go's connLimits sets its bounds for the job).
//   - run.go: the Job: New, Run's start and shutdown, Status.
//
// How it stays exact. A worker grants credits (Ready) and gets at most
// that many leases (Assign). A lease ends with a Result, or is taken back
// when the worker's stream breaks, its deadline passes without a heartbeat,
// or the worker releases it; taken-back tasks go to the front of the
// queue. Only a failure reported by the solver itself counts against a
// task, and only once per worker name: a task that fails on MaxAttempts
// distinct workers fails the job, while a crash-looping worker does not.
// The first valid Result of a task id (plan fingerprint + index) from a
// worker that held a lease on it is committed, after cfg.Journal (when
// set) made it durable and before the worker's Ack; later results are
// compared and dropped, mismatches logged and counted as conflicts. A
// run (runs.go: one lease of consecutive plan tasks, for a worker that
// works their prefixes out) is judged task by task the same way.
// Implausible counts (odd totals, more fundamental solutions than
// solutions, more than the whole board has) are rejected and earn the
// worker a strike; maxStrikes strikes quarantine it. Totals are recomputed
// from the committed results with overflow-checked addition.
//
// Listing solutions. A listing runs the counting plan: each task streams
// the representative of every symmetry class it covers (solver.ListTask).
// Each batch is validated (codec.go: valid placements, representatives
// inside the task, in order) and spilled to a file of its own per attempt
// (package listing's Spool); only the committed attempt's file is kept,
// and package listing writes every solution in lexicographic order once
// every task is in.
//
// Pinned queens (pins.go, issue 15). With Config.Pins the job counts or
// lists their completions: a solver.KindPinned plan of plain row prefixes
// that hold the pins, sent as TASK_KIND_PINNED with the pins in every
// Assign. No symmetry is used (it is valid only for pin sets a symmetry
// keeps), so the fundamental count is not computed; a listing streams
// every completion whole, and the publisher adds them as they are.
//
// Trust: cfg.ServerOptions and cfg.WorkerDialOptions take interceptors
// and TLS credentials (package auth); cfg.VerifyFraction recomputes a
// sample of committed tasks on other workers and quarantines workers
// caught lying (verify.go).
//
// Bounds (limits.go, outbox.go, warn.go, internal/connguard): everything a peer
// can make the coordinator hold has a limit, named with its reason:
// message sizes, streams per connection, joined workers (maxSessions),
// credits, connections in all and per address before Join, the messages
// queued for one worker (maxOutbox), the ended leases remembered for late
// results (maxEndedLeases), the spill files of one session and of the job
// (package listing), the message rate and the warnings one worker may
// cause (warnBurst, warnEvery). A refusal is a gRPC status and a log line;
// the session ends, never the job.
package coordinator
