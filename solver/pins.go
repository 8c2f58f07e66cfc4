package solver

import (
	"fmt"
	"math/bits"
	"slices"
	"strconv"
	"strings"
)

// Pin is a queen fixed on the square of row Row and column Col (0-based).
type Pin struct{ Row, Col int }

// String names the square as --format coords prints it, 1-based: "(2,5)".
func (p Pin) String() string { return fmt.Sprintf("(%d,%d)", p.Row+1, p.Col+1) }

// Pins are queens fixed before the search, at most one a row, sorted by row:
// the N-Queens completion problem asks for the solutions that contain them.
type Pins []Pin

// String is the pins as ParsePins reads them: "1:1,3:5".
func (ps Pins) String() string {
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = strconv.Itoa(p.Row+1) + ":" + strconv.Itoa(p.Col+1)
	}
	return strings.Join(parts, ",")
}

// ParsePins reads pins from s, "ROW:COL,ROW:COL,..." with 1-based rows and
// columns (spaces around the numbers allowed), for an n-board. It refuses,
// in one line that names the squares: a pin off the board, two pins on one
// row or one column, two pins on a diagonal, and anything that is not a
// list of ROW:COL pairs. The pins come back sorted by row.
func ParsePins(n int, s string) (Pins, error) {
	if err := checkN(n); err != nil {
		return nil, err
	}
	if strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf("no pins: want ROW:COL,... (1-based)")
	}
	var ps Pins
	for _, field := range strings.Split(s, ",") {
		rs, cs, ok := strings.Cut(field, ":")
		r, rerr := strconv.Atoi(strings.TrimSpace(rs))
		c, cerr := strconv.Atoi(strings.TrimSpace(cs))
		if !ok || rerr != nil || cerr != nil {
			return nil, fmt.Errorf("pin %q: want ROW:COL (1-based)", strings.TrimSpace(field))
		}
		p := Pin{r - 1, c - 1}
		if r < 1 || r > n || c < 1 || c > n {
			return nil, fmt.Errorf("pin %v is off the board: rows and columns are 1..%d", p, n)
		}
		for _, q := range ps {
			switch {
			case q == p:
				return nil, fmt.Errorf("pin %v is given twice", p)
			case q.Row == p.Row:
				return nil, fmt.Errorf("pins %v and %v are on the same row", q, p)
			case q.Col == p.Col:
				return nil, fmt.Errorf("pins %v and %v are on the same column", q, p)
			case q.Row-p.Row == q.Col-p.Col || q.Row-p.Row == p.Col-q.Col:
				return nil, fmt.Errorf("pins %v and %v attack each other on a diagonal", q, p)
			}
		}
		ps = append(ps, p)
	}
	slices.SortFunc(ps, func(a, b Pin) int { return a.Row - b.Row })
	return ps, nil
}

// check reports pins that ParsePins would refuse, for pins built by hand.
func (ps Pins) check(n int) error {
	if _, err := ParsePins(n, ps.String()); err != nil && len(ps) > 0 {
		return err
	}
	return nil
}

// completions is the plain row-by-row bitmask backtracker with pins: a
// pinned row may hold only its pin; every other row only the columns that
// attack no pin (forbid). Pins do not attack each other, so the queens
// placed are never attacked by a pin further down.
type completions struct {
	n      int
	all    uint64
	pinned []uint64 // per row: the pin's bit, or 0
	forbid []uint64 // per row: columns that attack a pin of another row
	cols   []int
	nodes  uint64
	yield  func([]int) bool // nil when counting
	count  uint64
}

// newCompletions builds the search of the completions of pins that start
// with prefix, and folds prefix into the masks. ok is false when prefix
// contradicts a pin (another column on a pinned row, or a queen that
// attacks a pin): then there is no completion.
func newCompletions(n int, pins Pins, prefix []int) (s *completions, c, l, r uint64, ok bool, err error) {
	if err := CheckPrefix(n, prefix); err != nil {
		return nil, 0, 0, 0, false, err
	}
	if err := pins.check(n); err != nil {
		return nil, 0, 0, 0, false, err
	}
	s = &completions{n: n, all: 1<<uint(n) - 1, pinned: make([]uint64, n), forbid: make([]uint64, n), cols: make([]int, n)}
	for _, p := range pins {
		s.pinned[p.Row] = 1 << uint(p.Col)
		for row := range n {
			if row == p.Row {
				continue
			}
			d := row - p.Row
			s.forbid[row] |= 1 << uint(p.Col)
			if c := p.Col + d; c >= 0 && c < n {
				s.forbid[row] |= 1 << uint(c)
			}
			if c := p.Col - d; c >= 0 && c < n {
				s.forbid[row] |= 1 << uint(c)
			}
		}
	}
	for row, col := range prefix {
		bit := uint64(1) << uint(col)
		if (s.pinned[row] != 0 && s.pinned[row] != bit) || s.forbid[row]&bit != 0 {
			return s, 0, 0, 0, false, nil
		}
		s.cols[row] = col
		c, l, r = c|bit, (l|bit)<<1&s.all, (r|bit)>>1
	}
	return s, c, l, r, true, nil
}

// search places rows row..n-1; it returns false when yield asked to stop.
func (s *completions) search(row int, c, l, r uint64) bool {
	if row == s.n {
		s.count++
		if s.yield != nil {
			return s.yield(s.cols)
		}
		return true
	}
	free := s.all &^ (c | l | r | s.forbid[row])
	if p := s.pinned[row]; p != 0 {
		free = p &^ (c | l | r)
	}
	for free != 0 {
		bit := free & -free
		free ^= bit
		s.nodes++
		s.cols[row] = bits.TrailingZeros64(bit)
		if !s.search(row+1, c|bit, (l|bit)<<1&s.all, (r|bit)>>1) {
			return false
		}
	}
	return true
}

// CountCompletions counts the solutions of the n-board that contain every
// pin and start with prefix (0-based columns of the first rows; nil for
// none): Total is the count, Nodes the queens the search placed, Unique is
// 0 (symmetry is not used: it holds only for pin sets that a symmetry
// keeps). A prefix that contradicts a pin has no completion. An invalid
// n, prefix (CheckPrefix) or pin set (ParsePins) is an error.
func CountCompletions(n int, pins Pins, prefix []int) (Counts, error) {
	return ListCompletions(n, pins, prefix, nil)
}

// ListCompletions is CountCompletions that also hands each completion to
// yield, in lexicographic order of the column lists, as Solutions does;
// yield returning false stops the search (the counts are then of the
// solutions yielded). The slice is reused: copy it to keep it. A nil yield
// only counts.
func ListCompletions(n int, pins Pins, prefix []int, yield func(cols []int) bool) (Counts, error) {
	s, c, l, r, ok, err := newCompletions(n, pins, prefix)
	if err != nil || !ok {
		return Counts{}, err
	}
	s.yield = yield
	s.search(len(prefix), c, l, r)
	return Counts{Total: s.count, Nodes: s.nodes}, nil
}
