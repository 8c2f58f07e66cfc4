package solver_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/nqueens/nqueens/solver"
)

func ExampleCount() {
	c, err := solver.Count(8)
	if err != nil {
		panic(err)
	}
	fmt.Println(c.Total, c.Unique)
	// Output: 92 12
}

func ExampleNewPlan() {
	// Split a count into tasks, as the coordinator does, and add them up.
	plan, err := solver.NewPlan(10, 3, solver.KindCount)
	if err != nil {
		panic(err)
	}
	var sum solver.Counts
	for _, t := range plan.Tasks {
		c, err := solver.CountTask(plan.N, t)
		if err != nil {
			panic(err)
		}
		if sum, err = sum.Add(c); err != nil {
			panic(err)
		}
	}
	fmt.Println(sum.Total, sum.Unique)
	// Output: 724 92
}

func ExampleSolutions() {
	// The first three solutions of the 8-board whose first queen is in
	// column 0, printed 1-based.
	i := 0
	for cols := range solver.Solutions(8, []int{0}) {
		for r, c := range cols {
			if r > 0 {
				fmt.Print(" ")
			}
			fmt.Print(c + 1)
		}
		fmt.Println()
		if i++; i == 3 {
			break
		}
	}
	// Output:
	// 1 5 8 6 3 7 2 4
	// 1 6 8 3 7 4 2 5
	// 1 7 4 6 8 2 5 3
}

func ExampleUniqueSolutions() {
	n := 0
	for range solver.UniqueSolutions(8, nil) {
		n++
	}
	fmt.Println(n)
	// Output: 12
}

func ExampleVerify() {
	fmt.Println(solver.Verify(4, []int{1, 3, 0, 2}))
	fmt.Println(solver.Verify(4, []int{1, 3, 2, 0}))
	// Output:
	// <nil>
	// queens (2,4) and (3,3) share a diagonal (1-based row,column)
}

func ExampleConstructive() {
	cols, err := solver.Constructive(1_000_000)
	if err != nil {
		panic(err)
	}
	fmt.Println(len(cols), solver.Verify(len(cols), cols))
	// Output: 1000000 <nil>
}

func ExampleLasVegas() {
	rng := rand.New(rand.NewPCG(1, 2)) // a fixed seed reproduces the run
	cols, _, err := solver.LasVegas(20, 12, rng)
	if err != nil {
		panic(err)
	}
	fmt.Println(solver.Verify(20, cols))
	// Output: <nil>
}
