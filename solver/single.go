package solver

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"time"
)

// MaxSingleN bounds Constructive and LasVegas: their boards are plain
// int slices, so the limit is memory (a 10^8 board is 800 MB).
const MaxSingleN = 100_000_000

// Constructive returns a solution of the n-board in O(n) time by the
// classic explicit construction (even columns, then odd ones, with fixed
// swaps when n mod 6 is 2 or 3). It works for n = 1 and every n >= 4; there
// is no solution for n = 2 or 3.
func Constructive(n int) ([]int, error) {
	if n < 1 || n > MaxSingleN {
		return nil, fmt.Errorf("board size %d out of range: n must be 1..%d", n, MaxSingleN)
	}
	if n == 2 || n == 3 {
		return nil, fmt.Errorf("n=%d has no solution", n)
	}
	// Build 1-based columns, then shift to 0-based.
	cols := make([]int, 0, n)
	evens := func() {
		for c := 2; c <= n; c += 2 {
			cols = append(cols, c)
		}
	}
	odds := func() {
		for c := 1; c <= n; c += 2 {
			cols = append(cols, c)
		}
	}
	switch n % 6 {
	case 2:
		// evens, then odds with 1 and 3 swapped and 5 moved to the end.
		evens()
		cols = append(cols, 3, 1)
		for c := 7; c <= n; c += 2 {
			cols = append(cols, c)
		}
		cols = append(cols, 5)
	case 3:
		// evens with 2 moved to the end, then odds with 1 and 3 moved to the end.
		for c := 4; c <= n; c += 2 {
			cols = append(cols, c)
		}
		cols = append(cols, 2)
		for c := 5; c <= n; c += 2 {
			cols = append(cols, c)
		}
		cols = append(cols, 1, 3)
	default:
		evens()
		odds()
	}
	for i := range cols {
		cols[i]--
	}
	return cols, nil
}

// maxLasVegasAttempts bounds the restarts of one LasVegas call, so that a
// hopeless setting ends with an error instead of running forever.
const maxLasVegasAttempts = 1 << 30

// LasVegas finds one solution of the n-board by the classic Las Vegas
// method: the queens of rows 0..k-1 go each to a uniformly random column
// among those still safe (the attempt fails if there is none), then rows
// k..n-1 are filled by deterministic backtracking (the attempt fails if it
// finds nothing); a failed attempt restarts from scratch. It returns the
// solution and the number of failed attempts before it. All randomness
// comes from rng, so a fixed seed reproduces the run.
//
// The board is kept in plain arrays, so n is not bound by MaxN; the
// practical limit is time: for n in the hundreds and more, keep k close to
// n (n-k of about 20 or less), since the deterministic backtracking of the
// rest grows exponentially with n-k.
func LasVegas(n, k int, rng *rand.Rand) (cols []int, failures int, err error) {
	return LasVegasUntil(n, k, rng, nil)
}

// ErrStopped is returned by LasVegasUntil, JoinCounter.CountStop and
// JoinTaskBacktrackStop when their stop function ended the search.
var ErrStopped = errors.New("stopped")

// LasVegasUntil is LasVegas that can be stopped: stop (if not nil) is
// called with the failures so far after every failed attempt, every 256
// random rows (every row of a board above 65536) and every 65536
// backtracking steps, and a true answer ends the search with ErrStopped.
// It is how a caller shows progress and honours an interrupt.
func LasVegasUntil(n, k int, rng *rand.Rand, stop func(failures int) bool) (cols []int, failures int, err error) {
	if n < 1 || n > MaxSingleN {
		return nil, 0, fmt.Errorf("board size %d out of range: n must be 1..%d", n, MaxSingleN)
	}
	if k < 0 || k > n {
		return nil, 0, fmt.Errorf("random rows k=%d out of range: k must be 0..%d", k, n)
	}
	if n == 2 || n == 3 {
		return nil, 0, fmt.Errorf("n=%d has no solution", n)
	}
	if rng == nil {
		return nil, 0, fmt.Errorf("nil random generator")
	}
	lv := newLasVegas(n)
	for attempt := 0; attempt < maxLasVegasAttempts; attempt++ {
		if stop != nil {
			lv.stop = func() bool { return stop(attempt) }
		}
		ok := lv.attempt(k, rng)
		if lv.stopped {
			return nil, attempt, ErrStopped
		}
		if ok {
			return lv.cols, attempt, nil
		}
		if stop != nil && stop(attempt+1) {
			return nil, attempt + 1, ErrStopped
		}
	}
	return nil, maxLasVegasAttempts, fmt.Errorf("no solution after %d attempts", maxLasVegasAttempts)
}

// LasVegasK is the number of random rows --method lasvegas uses when none
// is given: all but the last min(20, max(4, 0.4·n)) rows (every row is
// backtracked for n < 4). The study (README) finds the best k near N/2 to
// 0.6·N for N = 12..20; for large boards the backtracked rest must stay
// short, since its cost grows exponentially with n-k, and about 20 rows
// are where failures and backtracking cost balance for n in the hundreds
// and thousands.
func LasVegasK(n int) int {
	back := min(20, max(4, (4*n+9)/10))
	return max(0, n-back)
}

// lasVegas holds one board and its occupancy arrays, reused across attempts.
type lasVegas struct {
	n          int
	cols       []int
	col        []bool      // column taken
	diag, anti []bool      // r+c, r-c+n-1 taken
	safe       []int       // scratch: safe columns of the current row
	free       []int       // scratch: the columns the random rows left, ascending
	at         []int       // scratch: per backtracked row, its index in free
	stop       func() bool // asked now and then during an attempt; nil: never
	stopped    bool        // stop said yes: the attempt was abandoned
}

func newLasVegas(n int) *lasVegas {
	return &lasVegas{
		n:    n,
		cols: make([]int, n),
		col:  make([]bool, n),
		diag: make([]bool, 2*n-1),
		anti: make([]bool, 2*n-1),
		safe: make([]int, 0, n),
		free: make([]int, 0, n),
		at:   make([]int, n),
	}
}

func (lv *lasVegas) ok(r, c int) bool {
	return !lv.col[c] && !lv.diag[r+c] && !lv.anti[r-c+lv.n-1]
}

func (lv *lasVegas) set(r, c int, v bool) {
	lv.col[c], lv.diag[r+c], lv.anti[r-c+lv.n-1] = v, v, v
}

// attempt runs one try: k random rows, then backtracking. It reports
// success; on success lv.cols holds the solution.
func (lv *lasVegas) attempt(k int, rng *rand.Rand) bool {
	n := lv.n
	clear(lv.col)
	clear(lv.diag)
	clear(lv.anti)
	for r := 0; r < k; r++ {
		// A row costs n steps: ask stop every 256 rows, or every row
		// of a large board.
		if lv.stop != nil && (r&0xff == 0 || n > 1<<16) && lv.stop() {
			lv.stopped = true
			return false
		}
		lv.safe = lv.safe[:0]
		for c := 0; c < n; c++ {
			if lv.ok(r, c) {
				lv.safe = append(lv.safe, c)
			}
		}
		if len(lv.safe) == 0 {
			return false
		}
		c := lv.safe[rng.IntN(len(lv.safe))]
		lv.cols[r] = c
		lv.set(r, c, true)
	}
	// Deterministic backtracking over rows k..n-1, through the columns
	// the random rows left free, in increasing order: the same search as
	// trying every column of each row, but each step costs n-k instead of
	// n, which is what makes large boards with n-k of about 20 fast.
	if k == n {
		return true
	}
	lv.free = lv.free[:0]
	for c := 0; c < n; c++ {
		if !lv.col[c] {
			lv.free = append(lv.free, c)
		}
	}
	m := len(lv.free)
	at := lv.at[:n] // at[r]: index in free of row r's column; -1 before the first
	r := k
	at[r] = -1
	for steps := 1; r >= k; steps++ {
		if steps&0xffff == 0 && lv.stop != nil && lv.stop() {
			lv.stopped = true
			return false
		}
		i := at[r]
		if i >= 0 {
			lv.set(r, lv.free[i], false)
		}
		for i++; i < m && !lv.ok(r, lv.free[i]); i++ {
		}
		if i == m {
			r--
			continue
		}
		at[r] = i
		lv.cols[r] = lv.free[i]
		lv.set(r, lv.free[i], true)
		if r == n-1 {
			return true
		}
		r++
		at[r] = -1
	}
	return false
}

// Study is the result of StudyLasVegas: over Trials runs of LasVegas(N, K),
// the mean number of failed attempts before the first success and the mean
// wall time to the first success.
type Study struct {
	N, K, Trials int
	MeanFailures float64
	MeanTime     time.Duration
}

// StudyLasVegas runs LasVegas(n, k) trials times with the one generator rng
// (seed it once per study: re-seeding per attempt from the clock repeats
// the same attempts) and averages failures and time to success.
func StudyLasVegas(n, k, trials int, rng *rand.Rand) (Study, error) {
	if trials < 1 {
		return Study{}, fmt.Errorf("trials %d out of range: must be at least 1", trials)
	}
	s := Study{N: n, K: k, Trials: trials}
	var total time.Duration
	var sumFail float64
	for i := 0; i < trials; i++ {
		t0 := time.Now()
		_, f, err := LasVegas(n, k, rng)
		if err != nil {
			return Study{}, err
		}
		total += time.Since(t0)
		sumFail += float64(f)
	}
	s.MeanFailures = sumFail / float64(trials)
	s.MeanTime = total / time.Duration(trials)
	return s, nil
}
