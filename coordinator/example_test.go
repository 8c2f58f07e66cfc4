package coordinator_test

import (
	"context"
	"fmt"
	"io"

	"github.com/nqueens/nqueens/coordinator"
)

// Count the 8-queens solutions on two embedded workers: real gRPC clients
// of the coordinator over loopback.
func ExampleRun() {
	cfg := coordinator.NewConfig(8)
	cfg.Workers = 2
	cfg.Progress = coordinator.ProgressOff
	cfg.Stdout = io.Discard // the human summary
	sum, err := coordinator.Run(context.Background(), cfg, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(sum.Solutions, "solutions,", sum.Unique, "fundamental")
	// Output: 92 solutions, 12 fundamental
}
