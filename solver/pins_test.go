package solver

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestParsePins(t *testing.T) {
	ps, err := ParsePins(8, " 3:5, 1:1 ")
	if err != nil {
		t.Fatal(err)
	}
	if want := (Pins{{0, 0}, {2, 4}}); !slices.Equal(ps, want) {
		t.Errorf("ParsePins(8, \" 3:5, 1:1 \") = %v, want %v", ps, want)
	}
	if got := ps.String(); got != "1:1,3:5" {
		t.Errorf("String() = %q, want 1:1,3:5", got)
	}
	for _, tt := range []struct {
		n    int
		s    string
		want string
	}{
		{8, "1:1,2:4,3:4", "pins (2,4) and (3,4) are on the same column"},
		{8, "1:1,1:5", "pins (1,1) and (1,5) are on the same row"},
		{8, "1:1,3:3", "pins (1,1) and (3,3) attack each other on a diagonal"},
		{8, "2:4,4:2", "pins (2,4) and (4,2) attack each other on a diagonal"},
		{8, "2:4,2:4", "pin (2,4) is given twice"},
		{8, "9:1", "pin (9,1) is off the board: rows and columns are 1..8"},
		{8, "1:0", "pin (1,0) is off the board"},
		{8, "1-1", `pin "1-1": want ROW:COL`},
		{8, "1:1,", `pin "": want ROW:COL`},
		{8, "", "no pins"},
		{33, "1:1", "board size 33 out of range"},
	} {
		_, err := ParsePins(tt.n, tt.s)
		if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("ParsePins(%d, %q) error = %v, want one line containing %q", tt.n, tt.s, err, tt.want)
		}
	}
}

// TestCompletionsN8Corner: N=8 with a queen pinned on
// (1,1) has 4 solutions, in the classic order.
func TestCompletionsN8Corner(t *testing.T) {
	pins, err := ParsePins(8, "1:1")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	c, err := ListCompletions(8, pins, nil, func(cols []int) bool {
		got = append(got, fmt.Sprint(cols))
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"[0 4 7 5 2 6 1 3]", "[0 5 7 2 6 3 1 4]", "[0 6 3 5 7 1 4 2]", "[0 6 4 7 1 3 5 2]"}
	if c.Total != 4 || strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("completions of (1,1) on N=8: %d, %v; want 4, %v", c.Total, got, want)
	}
	if n, err := CountCompletions(8, pins, nil); err != nil || n.Total != 4 {
		t.Errorf("CountCompletions(8, 1:1) = %v, %v; want 4", n.Total, err)
	}
	// Zero completions is an answer, not an error: no solution of N=8 starts 1 3.
	pins, _ = ParsePins(8, "1:1,2:3")
	if n, err := CountCompletions(8, pins, nil); err != nil || n.Total != 0 {
		t.Errorf("CountCompletions(8, 1:1,2:3) = %v, %v; want 0, nil", n.Total, err)
	}
}

// filter lists the solutions of the full listing that hold every pin and
// start with prefix: the oracle of the completions.
func filter(n int, pins Pins, prefix []int) [][]int {
	var out [][]int
	for cols := range Solutions(n, nil) {
		if !slices.Equal(cols[:len(prefix)], prefix) {
			continue
		}
		if slices.ContainsFunc(pins, func(p Pin) bool { return cols[p.Row] != p.Col }) {
			continue
		}
		out = append(out, slices.Clone(cols))
	}
	return out
}

// randomPins draws up to k squares of an n-board; the set may be invalid.
func randomPins(rng *rand.Rand, n, k int) string {
	parts := make([]string, 1+rng.IntN(k))
	for i := range parts {
		parts[i] = fmt.Sprintf("%d:%d", 1+rng.IntN(n), 1+rng.IntN(n))
	}
	return strings.Join(parts, ",")
}

// TestCompletionsAreAFilterOfTheListing draws random pin sets and prefixes
// for N=1..10 (seeded): the completions are exactly, and in the same
// order, the solutions of the full listing that hold the pins; an invalid
// pin set is refused by both ParsePins and the search.
func TestCompletionsAreAFilterOfTheListing(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 3))
	valid, nonzero := 0, 0
	for n := 1; n <= 10; n++ {
		var all [][]int
		for cols := range Solutions(n, nil) {
			all = append(all, slices.Clone(cols))
		}
		for range 40 {
			s := randomPins(rng, n, 3)
			pins, err := ParsePins(n, s)
			if err != nil {
				continue
			}
			valid++
			var prefix []int
			switch rng.IntN(3) {
			case 1: // the first rows of a solution, which may miss the pins
				if len(all) > 0 {
					prefix = all[rng.IntN(len(all))][:rng.IntN(n/2+1)]
				}
			case 2: // a row prefix of one queen
				prefix = []int{rng.IntN(n)}
			}
			want := filter(n, pins, prefix)
			var got [][]int
			c, err := ListCompletions(n, pins, prefix, func(cols []int) bool {
				got = append(got, slices.Clone(cols))
				return true
			})
			if err != nil {
				t.Fatalf("ListCompletions(%d, %v, %v): %v", n, pins, prefix, err)
			}
			if fmt.Sprint(got) != fmt.Sprint(want) || c.Total != uint64(len(want)) {
				t.Fatalf("N=%d pins %v prefix %v: completions %v (count %d), want %v", n, pins, prefix, got, c.Total, want)
			}
			if cc, err := CountCompletions(n, pins, prefix); err != nil || cc != c {
				t.Errorf("CountCompletions(%d, %v, %v) = %+v, %v; ListCompletions counted %+v", n, pins, prefix, cc, err, c)
			}
			if len(want) > 0 {
				nonzero++
			}
		}
	}
	// The draw must exercise both answers, or the test proves little.
	if valid < 100 || nonzero < 30 {
		t.Errorf("only %d valid pin sets, %d with completions: draw more", valid, nonzero)
	}
}

func TestCompletionsRefuseBadInput(t *testing.T) {
	for _, tt := range []struct {
		n      int
		pins   Pins
		prefix []int
		want   string
	}{
		{8, Pins{{0, 0}, {1, 1}}, nil, "attack each other"},
		{8, Pins{{8, 0}}, nil, "off the board"},
		{8, nil, []int{0, 1}, "attack each other"},
		{0, nil, nil, "out of range"},
	} {
		if _, err := CountCompletions(tt.n, tt.pins, tt.prefix); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("CountCompletions(%d, %v, %v) error = %v, want %q", tt.n, tt.pins, tt.prefix, err, tt.want)
		}
	}
	// No pins is the whole board.
	if c, err := CountCompletions(8, nil, nil); err != nil || c.Total != 92 {
		t.Errorf("CountCompletions(8, no pins) = %d, %v; want 92", c.Total, err)
	}
	// Stopping early.
	seen := 0
	c, err := ListCompletions(8, nil, nil, func([]int) bool { seen++; return seen < 3 })
	if err != nil || seen != 3 || c.Total != 3 {
		t.Errorf("ListCompletions stopped after %d (count %d, %v), want 3", seen, c.Total, err)
	}
}
