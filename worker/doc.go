// Package worker is the gRPC client that runs N-Queens tasks for a
// coordinator. The worker binary runs it, and so does the coordinator for
// its embedded workers, so every run exercises the cluster path.
//
//	err := worker.Run(ctx, worker.Config{Join: "127.0.0.1:7070", Slots: 2}, log)
//	// nil once the coordinator drained the worker (job over) or ctx ended
//
// Run joins (join.go): it sends its name, slots, solver version and build,
// and retries a coordinator that is down or full with jittered exponential
// back-off for Config.JoinTimeout (Config.JoinOnce: one attempt), logging
// "waiting for coordinator" every few seconds; a refusal for what it sent (a bad token, another solver
// version) ends it with ErrRefused. Then it opens one Work stream, a
// session (session.go): sendLoop is the stream's only sender, recvLoop
// feeds serve, heartbeatLoop reports the leases held at the interval the
// coordinator asked for, and startTask queues each leased task, in lease
// order, for the slots' goroutines (counts through solver.CountTask,
// listings through solver.ListTask, whose class representatives it
// streams in batches of at most BatchBytes), returning a credit when it
// ends. A worker that made
// the job's plan itself (runs.go) says so in its first Ready and may be
// leased runs of consecutive tasks, which one slot computes in turn and
// one Result reports. A Cancel stops a
// task; a broken stream makes Run join again; on ctx cancellation finish
// hands the leases back (Release) before Run returns. Config.DialOptions
// takes TLS credentials and the join token (package auth). Config.Count
// replaces the solver for counting tasks: nqbench cluster runs a thousand
// of these sessions in one process, each answering from a table of known
// counts, so the load generator speaks the protocol through this code.
package worker
