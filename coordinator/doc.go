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
//   - internal/sched: the lease policy in plain Go types: the queue, the
//     leases, commits, verification, splits and runs, under one lock. It
//     imports neither gRPC nor the proto (a test checks), is unit-tested
//     alone, and reaches workers through the Mailbox the wire gives it.
//   - server.go, outbox.go, spill.go: the gRPC edge. The service turns
//     WorkRequests into scheduler calls and the scheduler's mailbox
//     messages into WorkResponses (batched for workers that read
//     batches), and spills a listing's batches, checked by
//     listing.Checker, into the listing package's spools.
//   - internal/wire: what is accepted from the network before anything
//     reaches the scheduler: every message's bounds, the server's caps
//     and each worker's message rate.
//   - Connections before anyone has joined are package connguard's:
//     handshake timeout, idle pre-join connections closed, a cap per
//     address (config.go's connLimits sets its bounds for the job).
//   - run.go: the Job: New, Run's start and shutdown, Status.
//
// How it stays exact: see package sched. The first valid Result of a task
// is committed once, after cfg.Journal (when set) made it durable and
// before the worker's Ack.
//
// Listing solutions. A listing runs the counting plan: each task streams
// the representative of every symmetry class it covers (solver.ListTask).
// Each batch is validated (listing.Checker: valid placements, representatives
// inside the task, in order) and spilled to a file of its own per attempt
// (package listing's Spool); only the committed attempt's file is kept,
// and package listing writes every solution in lexicographic order once
// every task is in.
//
// Pinned queens (pins.go). With Config.Pins the job counts or
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
// Bounds (internal/wire, outbox.go, warn.go, internal/connguard): everything a peer
// can make the coordinator hold has a limit, named with its reason:
// message sizes, streams per connection, joined workers (maxSessions),
// credits, connections in all and per address before Join, the messages
// queued for one worker (maxOutbox), the ended leases remembered for late
// results (sched.MaxEndedLeases), the spill files of one session and of the job
// (package listing), the message rate and the warnings one worker may
// cause (sched.WarnBurst, sched.WarnEvery). A refusal is a gRPC status and a log line;
// the session ends, never the job.
package coordinator
