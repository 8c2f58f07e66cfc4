// Package worker is the gRPC client that runs N-Queens tasks for a
// coordinator. The worker binary runs it, and so does the coordinator for
// its embedded workers, so every run exercises the cluster path.
//
//	err := worker.Run(ctx, worker.Config{Join: "127.0.0.1:7070", Slots: 2}, log)
//	// nil once the coordinator drained the worker (job over) or ctx ended
//
// Run joins (retrying with backoff for Config.JoinTimeout), opens one Work
// stream, grants Slots credits and runs each leased task on its own
// goroutine: counts through solver.CountTask, listings through
// solver.ListTask, whose class representatives it streams in batches of at
// most BatchBytes. It heartbeats the
// leases it holds at the interval the coordinator asked for, returns a
// credit when a task ends, stops a task on Cancel, rejoins after a broken
// stream, and on ctx cancellation hands its leases back (Release) before it
// returns. Config.DialOptions takes TLS credentials and the join token
// (package auth).
package worker
