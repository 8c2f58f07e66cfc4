// Package status shows a running job to the people watching it: an HTTP
// server with Prometheus metrics, a JSON status, a live dashboard and
// health, and a terminal progress display. Everything reads a Source (a
// coordinator.Job) through snapshots, never the scheduler's own state.
//
//	reg := status.NewRegistry()                          // Go and process metrics, build info
//	sopts := status.GRPCServerOptions(reg)               // gRPC metrics + panic recovery, before auth's
//	state.ObserveSync(status.JournalSyncObserver(reg))   // journal fsync latency
//	job, err := coordinator.New(cfg, log)                // (cfg carrying sopts)
//	h := status.NewHandler(job, status.Options{Registry: reg, Token: token, Pprof: pprof})
//	addr, done, err := status.Serve(ctx, "0.0.0.0:8080", h, log)
//	log.Info("status server listening", "addr", addr)
//
// The handler serves / (the dashboard, live through server-sent events on
// /events, at most DefaultMaxStreams at once; worker rows go only to a
// page that shows them, as changes: APIWorkers), /api/status (the --json
// summary's fields plus workers, rates and ETA: APIStatus), /api/events,
// /board.svg (one solution drawn by package render), /metrics, /healthz
// (always open), and /debug/pprof/ with Options.Pprof. With a token,
// everything but /healthz needs "Authorization: Bearer TOKEN" or the
// HttpOnly cookie that a browser gets from ?token=TOKEN or /login.
//
// Rates and ETAs go by work, not tasks, and by Busy time (time with a
// worker attached), leaving out tasks restored from a journal: EstimateOf.
package status
