// Package listing makes a job's listing: from the class representatives
// that workers stream for each task to every solution, written to a Sink
// in lexicographic order (the sequential backtracker's order whatever the
// number of workers), with memory bounded. It knows nothing of gRPC: the
// coordinator takes what a worker sends off the wire, checks each batch
// with a Checker (valid placements of the task, in the search's order) and
// hands it over.
//
//	p, err := listing.New(listing.Options{Dir: dir, N: 10, Tasks: len(plan.Tasks), Sink: sink})
//	go func() { errc <- p.Run(ctx) }() // sorts tasks in as they come, then writes
//	spool := p.Spool()                 // one per worker session
//	a, err := spool.Open(leaseID, task) // a lease's first valid batch
//	err = a.Write(representatives)     // each validated batch, packed bytes
//	path, err := a.Close()             // the lease's Result
//	p.Add(task, path)                  // once the task is committed
//	spool.End(otherLease)              // a lease that ended without a Result
//	<-errc; p.Close()
//
// The way of a solution: each attempt (one lease) spills its batches to a
// file of its own (spool.go); only the committed attempt's file is kept
// (Add), the others are removed. Run turns each representative into the
// solutions of its class (solver.AppendClass, or packed.AppendClassKeys for
// n <= 16) and adds them to a bucket sort on disk (buckets.go); once every
// task is in, it writes the buckets in order to the Sink (as keys to a
// NibbleSink, packed bytes to a PackedSink). With Options.AsIs the workers
// stream whole solutions (the completions of pinned queens), and Run adds
// them as they are.
//
// Bounds: a spool holds a spill file only for a lease that
// is streaming (opened on its first batch, removed when the lease ends in
// any way), at most Options.MaxOpen files are open in all spools, and one
// spool may abandon at most Options.MaxAbandoned attempts; past a bound
// Open fails with ErrOverBudget, and the coordinator ends that worker's
// session, not the job.
package listing
