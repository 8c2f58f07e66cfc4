package coordinator_test

import (
	"context"
	"fmt"

	"github.com/nqueens/nqueens/coordinator"
)

// Count the 8-queens solutions on two embedded workers: real gRPC clients
// of the coordinator over loopback.
func ExampleRun() {
	cfg := coordinator.NewConfig(8)
	cfg.Workers = 2
	sum, err := coordinator.Run(context.Background(), cfg, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(sum.Solutions, "solutions,", sum.Unique, "fundamental")
	// Output: 92 solutions, 12 fundamental
}

// Watch a job while it runs: New binds the listener (workers may join
// Addr), Status is a snapshot that is safe to take from any goroutine.
func ExampleJob_Status() {
	cfg := coordinator.NewConfig(10)
	cfg.Workers = 1
	job, err := coordinator.New(cfg, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	before := job.Status()
	sum, err := job.Run(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	after := job.Status()
	fmt.Println(before.Summary.Committed, "of", before.Summary.Tasks > 0, "tasks before;", after.Summary.Solutions, "solutions after,", sum.Complete)
	// Output: 0 of true tasks before; 724 solutions after, true
}
