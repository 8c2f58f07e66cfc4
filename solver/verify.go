package solver

import "fmt"

// Verify checks in O(n) time that cols (0-based column of the queen in each
// row) is a solution of the n-board. Its error names the two queens that
// attack each other, in 1-based (row, column) form as the text formats
// print them.
func Verify(n int, cols []int) error {
	if n < 1 {
		return fmt.Errorf("board size %d out of range: n must be at least 1", n)
	}
	if len(cols) != n {
		return fmt.Errorf("placement has %d queens, want %d", len(cols), n)
	}
	// For each column and diagonal, 1 + the row of the queen that holds it.
	colAt := make([]int32, n)
	diag := make([]int32, 2*n-1) // r + c
	anti := make([]int32, 2*n-1) // r - c + n - 1
	for r, c := range cols {
		if c < 0 || c >= n {
			return fmt.Errorf("queen in row %d: column %d out of range 1..%d", r+1, c+1, n)
		}
		if o := colAt[c]; o != 0 {
			return attackErr(int(o-1), cols, r, "column")
		}
		if o := diag[r+c]; o != 0 {
			return attackErr(int(o-1), cols, r, "diagonal")
		}
		if o := anti[r-c+n-1]; o != 0 {
			return attackErr(int(o-1), cols, r, "diagonal")
		}
		colAt[c], diag[r+c], anti[r-c+n-1] = int32(r+1), int32(r+1), int32(r+1)
	}
	return nil
}

func attackErr(r1 int, cols []int, r2 int, line string) error {
	return fmt.Errorf("queens (%d,%d) and (%d,%d) share a %s (1-based row,column)", r1+1, cols[r1]+1, r2+1, cols[r2]+1, line)
}
