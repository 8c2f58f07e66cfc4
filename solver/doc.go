// Package solver counts, enumerates and constructs N-Queens solutions.
//
// It is pure Go with the standard library only: no goroutines, no I/O. The
// coordinator plans a search with NewPlan, hands the tasks to workers, and a
// worker runs one task with CountTask (counting) or ListTask (listing):
//
//	plan, err := solver.NewPlan(12, solver.AutoDepth(12, 8, solver.KindCount), solver.KindCount)
//	if err != nil { ... }
//	var sum solver.Counts
//	for _, t := range plan.Tasks {
//		c, err := solver.CountTask(plan.N, t)
//		if err != nil { ... }
//		if sum, err = sum.Add(c); err != nil { ... }
//	}
//	// sum.Total == 14200, sum.Unique == 1787
//
// Plans use all 8 symmetries of the board: a task fixes the queens of row
// 0 and of the first and last columns (a canonical border placement, as in
// the Q27 and NQueensFAF projects), so its prefix is not a row prefix (see
// CountTask). Total and fundamental counts come out of the same search.
// ListTask runs the same search and yields one representative per
// symmetry class; the caller makes the class's solutions from it and sorts
// them (the coordinator does, with a bucket sort), so listing a board costs
// little more than counting it.
//
// A second engine counts without backtracking through the whole board:
// the join engine (docs/engine.md). NewJoinPlan splits the count into units
// (ranges of the row sets whose queens go to the east half of the board);
// a goroutine counts units with its own JoinCounter, and the fundamental
// count follows from the total by Burnside's lemma:
//
//	plan, err := solver.NewJoinPlan(16, 0)
//	if err != nil { ... }
//	c := plan.NewCounter()
//	var total uint64
//	for i := range plan.NumTasks() {
//		t, err := c.Count(i)
//		if err != nil { ... }
//		total += t
//	}
//	// total == 14772512, plan.Fundamental(total) == 1846955
//
// It is faster than the backtracker from N=15, several times from N=16
// (PreferJoin says where), and holds tables of the board's quarters in
// memory; it only counts, so listings and pinned queens keep the
// backtracker.
//
// Solutions and UniqueSolutions list the solutions that extend a row
// prefix, in lexicographic order, with a plain backtracker: the order of
// the classic sequential programs, for small boards and tests.
//
// Pinned queens (the N-Queens completion problem): ParsePins reads them,
// CountCompletions and ListCompletions search their completions, and
// NewPinnedPlan splits that search into KindPinned tasks (plain row
// prefixes that hold the pins, run with CountPinnedTask or ListPinnedTask)
// for the cluster. They use no symmetry, so they count every solution once
// and compute no fundamental count.
//
// Single solutions for large boards come from Constructive (any n >= 4, in
// linear time) or LasVegas (random first rows, backtracking for the rest).
package solver
