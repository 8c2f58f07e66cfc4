package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/nqueens/nqueens/internal/cli"
	"github.com/nqueens/nqueens/solver"
)

// Limits and defaults of the command line.
const (
	// maxSimWorkers bounds --workers: every simulated worker needs its own
	// loopback source address and a socket on each side.
	maxSimWorkers = 60000
	// maxSimSlots bounds --slots, as the coordinator bounds JoinRequest.slots.
	maxSimSlots = 4096
	// defaultJoins bounds the Joins under way at once (--joins), so a
	// thousand workers reach the coordinator as a fast stream rather than
	// one burst.
	defaultJoins = 64
)

// clusterConfig is the command line of nqbench cluster.
type clusterConfig struct {
	N, Depth, Workers int
	Slots, Prefetch   int
	State             string        // --state of the coordinator ("": no journal)
	Coordinator       string        // coordinator binary ("": go build it)
	Cache             string        // folder of count tables ("": os.UserCacheDir()/nqueens)
	Synthetic         bool          // answer total 2, unique 1 for every task, no table
	Batches           bool          // ask for batched messages, as package worker does
	Runs              bool          // ask for runs of tasks (Ready.runs), as package worker does
	Joins             int           // Joins in flight at once
	MinTasks          int           // the coordinator's --min-tasks (0: the plan's tasks, unsplit)
	Timeout           time.Duration // bound on the whole run
}

// errClusterUsage marks a bad command line (exit 2).
var errClusterUsage = errors.New("usage")

// maxSyntheticN is the largest board a synthetic run plans: the
// coordinator's largest for counting.
const maxSyntheticN = 32

// parseCluster reads and checks the command line.
func parseCluster(args []string, help io.Writer) (clusterConfig, error) {
	var c clusterConfig
	fs := flag.NewFlagSet("nqbench cluster", flag.ContinueOnError)
	fs.IntVar(&c.N, "n", 0, "board size `N` (one with a published count, 1..27; with --synthetic up to 32, where no count is published)")
	fs.IntVar(&c.Depth, "depth", 0, "plan depth `D` passed to the coordinator (0..7)")
	fs.IntVar(&c.Workers, "workers", 0, "simulated workers `K`, each on its own connection")
	fs.IntVar(&c.Slots, "slots", 1, "slots each simulated worker declares")
	fs.IntVar(&c.Prefetch, "prefetch", 2, "credits each worker grants beyond its slots (fixed: a real worker grows its reserve for short tasks)")
	fs.StringVar(&c.State, "state", "", "journal `FILE` for the coordinator's --state (must not exist)")
	fs.StringVar(&c.Coordinator, "coordinator", "", "coordinator `BIN` to run (default: go build it into a temporary folder)")
	fs.BoolVar(&c.Batches, "batches", true, "ask for AssignBatch and AckBatch and answer with ResultBatch, as package worker does (false: one message per task)")
	fs.BoolVar(&c.Runs, "runs", false, "ask for runs of consecutive tasks, one lease and one Result each, as package worker does; each task then reports its time to answer (under a microsecond), so the coordinator sizes runs as for tasks that short")
	fs.IntVar(&c.Joins, "joins", defaultJoins, "Joins in flight at once (the connection is dialled on the first)")
	fs.BoolVar(&c.Synthetic, "synthetic", false, "answer every task with total 2, fundamental 1 instead of its real counts (no solver, no table)")
	fs.IntVar(&c.MinTasks, "min-tasks", 0, "pass --min-tasks `M` to the coordinator, which then splits until at least M tasks are made (needs --synthetic: the split tasks are in no table)")
	fs.StringVar(&c.Cache, "cache", "", "`DIR` of cached count tables (default: the user cache folder's nqueens)")
	fs.DurationVar(&c.Timeout, "timeout", 30*time.Minute, "bound on the whole run")
	if err := cli.Parse(fs, args, help, clusterUsage); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return c, err
		}
		return c, fmt.Errorf("%w: %v (see nqbench cluster -h)", errClusterUsage, err)
	}
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s", errClusterUsage, fmt.Sprintf(format, a...))
	}
	switch {
	case fs.NArg() > 0:
		return c, bad("unexpected argument %q", fs.Arg(0))
	case c.Workers < 1 || c.Workers > maxSimWorkers:
		return c, bad("--workers %d out of range 1..%d", c.Workers, maxSimWorkers)
	case c.Slots < 1 || c.Slots > maxSimSlots:
		return c, bad("--slots %d out of range 1..%d", c.Slots, maxSimSlots)
	case c.Prefetch < 0 || c.Slots+c.Prefetch > maxSimSlots:
		return c, bad("--prefetch %d: want 0..%d", c.Prefetch, maxSimSlots-c.Slots)
	case c.Joins < 1:
		return c, bad("--joins %d must be at least 1", c.Joins)
	case c.MinTasks < 0 || c.MinTasks > 0 && !c.Synthetic:
		return c, bad("--min-tasks %d: want 0, or a count with --synthetic", c.MinTasks)
	case c.Timeout <= 0:
		return c, bad("--timeout %v must be positive", c.Timeout)
	}
	if c.Synthetic {
		if c.N < 1 || c.N > maxSyntheticN {
			return c, bad("--n %d out of range 1..%d", c.N, maxSyntheticN)
		}
	} else if k, ok := solver.Known(c.N); !ok || k.Total == 0 {
		return c, bad("--n %d: want a board with a published, non-zero count (or --synthetic)", c.N)
	}
	return c, nil
}
