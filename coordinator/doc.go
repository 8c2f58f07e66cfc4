// Package coordinator runs an N-Queens job on a cluster: it plans the
// search as tasks (subtrees with the first rows fixed, solver.NewPlan),
// leases them to workers over gRPC (nqueens.v1.CoordinatorService), and
// commits the first valid result of each task exactly once.
//
//	cfg := coordinator.NewConfig(12) // embedded workers: one per CPU
//	cfg.Workers = 4                  // real gRPC clients over loopback
//	sum, err := coordinator.Run(ctx, cfg, hclog.NewNullLogger())
//	// sum.Solutions == 14200, sum.Unique == 1787; the summary is on cfg.Stdout
//
// With cfg.Workers = 0 the job waits for remote workers (`worker --join
// ADDR`); cfg.Listen says where (the bound address is logged and given to
// cfg.OnListen).
//
// How it stays exact. The scheduler (scheduler.go) holds all job state
// under one lock: the queue, the leases, the committed results. A worker
// grants credits (Ready) and gets at most that many leases (Assign). A
// lease ends with a Result, or is taken back when the worker's stream
// breaks, its deadline passes without a heartbeat (the injected Clock), or
// the worker releases it; taken-back tasks go to the front of the queue,
// and each task has a retry cap (MaxAttempts) after which the job fails.
// The first valid Result of a task id (plan fingerprint + index) from a
// worker that held a lease on it is committed, after Config.Journal (when
// set) made it durable and before the worker's Ack; later results are
// compared and dropped, mismatches logged and counted as conflicts. Totals
// are recomputed from the committed results with overflow-checked
// addition.
//
// Listing solutions. A listing runs the counting plan: with --solutions
// or pictures each task streams the representative of every symmetry
// class it covers (solver.ListTask), about an eighth of its solutions. Each
// batch is validated (codec.go: valid placements, representatives inside
// the task, in order) and spilled to a temporary file per attempt (a
// listing.Spool per session). Only the committed attempt's file is kept;
// package listing turns each representative into the solutions of its
// class, sorts them on disk, and once every task is in, writes them to the
// Sink in lexicographic order: the sequential backtracker's order whatever
// the number of workers, with memory bounded. An attempt's file goes as
// soon as its lease ends without a Result; a session that abandons too
// many, or finds the job's spill files all taken, is ended with
// ResourceExhausted (listing.ErrOverBudget), never the job.
//
// Pinned queens (pins.go, issue 15). With Config.Pins the job counts or
// lists their completions: a solver.KindPinned plan of plain row prefixes
// that hold the pins, sent as TASK_KIND_PINNED with the pins in every
// Assign. No symmetry is used (it is valid only for pin sets a symmetry
// keeps), so the fundamental count is not computed; a listing streams
// every completion whole, and the publisher adds them as they are.
//
// Trust (issue 6): Config.ServerOptions and Config.WorkerDialOptions take
// interceptors and TLS credentials (package auth, wired by the coordinator
// command's --token and --tls-* flags); Config.OpenJournal opens a journal
// once the plan is known, so every commit is durable before its Ack and a
// resumed run skips the committed tasks (package journal, --state and
// --resume); Config.VerifyFraction recomputes a sample of committed tasks
// on other workers and quarantines workers caught lying (verify.go).
//
// Limits (limits.go). Everything a worker sends is bounded: messages of
// at most MaxRecvMsgSize (4 MiB) and 64 streams per connection; Join
// checks the solver version, slots (1..4096) and the name (256 bytes), and
// at most 4096 workers are joined; validateWork refuses Work messages no
// correct worker sends (a result or batch without a task id, more than
// 4096 lease ids, a batch over 1 MiB or not a whole number of solutions, a
// batch in a counting job); and a token bucket lets each worker send
// Config.MessageRate messages per second (DefaultMessageRate) beyond three
// per task it is given. A refusal is a gRPC status (InvalidArgument,
// FailedPrecondition or ResourceExhausted) and a log line; a refused Work
// session ends and its leases go back to the queue.
package coordinator
