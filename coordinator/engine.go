package coordinator

import (
	"fmt"

	"github.com/nqueens/nqueens/solver"
)

// Engine names the counting engine a job's tasks use (Config.Engine).
type Engine string

// The engines. A count may use either; listings, pins and every other
// kind of job use the backtracker, the only engine that can list.
const (
	// EngineAuto (also the empty string) counts with the join where
	// solver.PreferJoin says it is faster and its tables fit the worker
	// memory budget, else with the backtracker.
	EngineAuto Engine = "auto"
	// EngineJoin counts with the quadrant join (solver.KindJoin tasks).
	EngineJoin Engine = "join"
	// EngineBacktrack counts with the bitmask backtracker.
	EngineBacktrack Engine = "backtrack"
)

// DefaultWorkerMemory is the memory a worker may spend on one job when
// Config.WorkerMemory is 0: the join is planned only if its tables fit
// (solver.JoinMemory; N=20 and 21, tables per group of row sets, at
// about 0.25 and 0.3 GiB). It is
// the compose and Kubernetes workers' memory limit too.
const DefaultWorkerMemory = 1 << 30

// ParseEngine reads an --engine value.
func ParseEngine(s string) (Engine, error) {
	switch e := Engine(s); e {
	case "", EngineAuto:
		return EngineAuto, nil
	case EngineJoin, EngineBacktrack:
		return e, nil
	}
	return "", fmt.Errorf("engine %q: want auto, join or backtrack", s)
}

// String returns the engine's name.
func (e Engine) String() string {
	if e == "" {
		return string(EngineAuto)
	}
	return string(e)
}

// engineOf names the engine of plan p's tasks, as the summary does.
func engineOf(p solver.Plan) string {
	if p.Kind == solver.KindJoin {
		return string(EngineJoin)
	}
	return string(EngineBacktrack)
}

// chooseEngine decides whether the job is counted by the join, and says
// why in a few words for the log. Asking for the join where it cannot
// serve (a listing, pins, a depth, a board beyond it or over the worker
// memory budget) is a FieldError; auto falls back to the backtracker.
func (c Config) chooseEngine() (join bool, why string, err error) {
	mem, budget := solver.JoinMemory(c.N), c.workerMemory()
	refuse := func(format string, args ...any) (bool, string, error) {
		if c.Engine == EngineJoin {
			return false, "", fieldErr("Engine", "join: "+format, args...)
		}
		return false, fmt.Sprintf(format, args...), nil
	}
	switch prefer, reason := solver.PreferJoin(c.N); {
	case c.Engine == EngineBacktrack:
		return false, "asked for", nil
	case c.kind() != solver.KindCount:
		return refuse("the join only counts: listings, --unique and --fix use the backtracker")
	case c.Depth != AutoDepth:
		return refuse("--depth %d plans backtracking tasks", c.Depth)
	case mem > budget:
		return refuse("its tables at n=%d need about %s a worker, over the %s worker memory budget", c.N, mib(mem), mib(budget))
	case c.Engine == EngineJoin:
		if _, err := solver.NewJoinTaskPlan(c.N); err != nil {
			return refuse("%v", err)
		}
		return true, "asked for", nil
	case !prefer:
		return false, reason, nil
	default:
		return true, fmt.Sprintf("%s; its tables need about %s a worker, within the %s budget", reason, mib(mem), mib(budget)), nil
	}
}

// overBudget reports whether a count that would prefer the join is
// planned with the backtracker for the worker memory budget alone.
func (c Config) overBudget() bool {
	prefer, _ := solver.PreferJoin(c.N)
	return prefer && c.kind() == solver.KindCount && (c.Engine == "" || c.Engine == EngineAuto) &&
		c.Depth == AutoDepth && solver.JoinMemory(c.N) > c.workerMemory()
}

// workerMemory is the budget, with its default.
func (c Config) workerMemory() int64 {
	if c.WorkerMemory > 0 {
		return c.WorkerMemory
	}
	return DefaultWorkerMemory
}

// mib writes a byte count in MiB.
func mib(b int64) string { return fmt.Sprintf("%d MiB", (b+1<<20-1)>>20) }

// fundamentalOf sets a finished join count's fundamental solutions: its
// tasks report none (solver.KindJoin), the total gives them by Burnside's
// lemma.
func fundamentalOf(p solver.Plan, s *Summary) {
	if p.Kind != solver.KindJoin || !s.Complete {
		return
	}
	s.Unique = solver.JoinFundamental(p.N, s.Solutions)
}
