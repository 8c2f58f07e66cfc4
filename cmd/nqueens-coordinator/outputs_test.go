package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/nqueens/nqueens/solver"
)

// fundamental is OEIS A002562 (DESIGN.md §5), the oracle for --unique.
var fundamental = []int{1: 1, 0, 0, 1, 2, 1, 6, 12, 46, 92, 341, 1787}

// parseCols reads cols-format lines (1-based columns) into 0-based lists.
func parseCols(t *testing.T, out string) [][]int {
	t.Helper()
	var sols [][]int
	for line := range strings.Lines(out) {
		fields := strings.Fields(line)
		cols := make([]int, len(fields))
		for i, f := range fields {
			c, err := strconv.Atoi(f)
			if err != nil {
				t.Fatalf("line %q: %v", line, err)
			}
			cols[i] = c - 1
		}
		sols = append(sols, cols)
	}
	return sols
}

// TestUniqueListing lists the fundamental solutions of N=1..12 through the
// cluster: as many as A002562 says, each a valid solution, each the
// canonical member of its class, in strictly increasing order.
func TestUniqueListing(t *testing.T) {
	for n := 1; n <= 12; n++ {
		var stdout, stderr bytes.Buffer
		args := []string{"--n", strconv.Itoa(n), "--unique", "--solutions", "-", "--workers", "2", "--progress", "off", "--log-level", "off", "--json"}
		if code := run(context.Background(), args, &stdout, &stderr); code != 0 {
			t.Fatalf("n=%d: exit %d: %s", n, code, stderr.String())
		}
		// The listing has stdout to itself; --json goes to stderr.
		listing := stdout.String()
		if !strings.Contains(stderr.String(), `"unique":`+strconv.Itoa(fundamental[n])) {
			t.Errorf("n=%d: result %q, want unique %d", n, stderr.String(), fundamental[n])
		}
		sols := parseCols(t, listing)
		if len(sols) != fundamental[n] {
			t.Fatalf("n=%d: --unique listed %d solutions, want %d", n, len(sols), fundamental[n])
		}
		for i, cols := range sols {
			if err := solver.Verify(n, cols); err != nil {
				t.Errorf("n=%d: solution %d %v: %v", n, i+1, cols, err)
			}
			if !solver.Canonical(cols) {
				t.Errorf("n=%d: solution %d %v is not the canonical member of its class", n, i+1, cols)
			}
			if i > 0 && slices.Compare(sols[i-1], cols) >= 0 {
				t.Errorf("n=%d: solution %d %v does not follow %v", n, i+1, cols, sols[i-1])
			}
		}
	}
}

// TestFirstVerifies asks --first for one solution of many board sizes, by
// construction and by the Las Vegas method, and checks each with Verify.
func TestFirstVerifies(t *testing.T) {
	sizes := []int{1, 1000, 1_000_000}
	for n := 4; n <= 200; n++ {
		sizes = append(sizes, n)
	}
	for _, n := range sizes {
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), []string{"--n", strconv.Itoa(n), "--first", "--log-level", "off"}, &stdout, &stderr); code != 0 {
			t.Fatalf("n=%d: exit %d: %s", n, code, stderr.String())
		}
		sols := parseCols(t, stdout.String())
		if len(sols) != 1 {
			t.Fatalf("n=%d: --first printed %d lines, want 1", n, len(sols))
		}
		if err := solver.Verify(n, sols[0]); err != nil {
			t.Errorf("n=%d: --first: %v", n, err)
		}
	}
	for n := 4; n <= 30; n++ {
		var stdout, stderr bytes.Buffer
		k := max(0, n-12) // keep n-k small: backtracking the rest stays short
		args := []string{"--n", strconv.Itoa(n), "--first", "--method", "lasvegas", "--k", strconv.Itoa(k), "--seed", "3", "--log-level", "off"}
		if code := run(context.Background(), args, &stdout, &stderr); code != 0 {
			t.Fatalf("n=%d lasvegas: exit %d: %s", n, code, stderr.String())
		}
		sols := parseCols(t, stdout.String())
		if len(sols) != 1 {
			t.Fatalf("n=%d lasvegas: printed %d lines, want 1", n, len(sols))
		}
		if err := solver.Verify(n, sols[0]); err != nil {
			t.Errorf("n=%d lasvegas k=%d: %v", n, k, err)
		}
	}
	// Without --k the random rows are chosen for the board (solver.LasVegasK).
	for _, n := range []int{4, 5, 8, 13, 21, 34, 55, 89, 1000} {
		var stdout, stderr bytes.Buffer
		args := []string{"--n", strconv.Itoa(n), "--first", "--method", "lasvegas", "--seed", "3", "--json", "--solutions", filepath.Join(t.TempDir(), "s.txt")}
		if code := run(context.Background(), args, &stdout, &stderr); code != 0 {
			t.Fatalf("n=%d lasvegas, automatic k: exit %d: %s", n, code, stderr.String())
		}
		var sum struct{ K int }
		if err := json.Unmarshal(stdout.Bytes(), &sum); err != nil || sum.K != solver.LasVegasK(n) {
			t.Errorf("n=%d lasvegas, automatic k: --json says k=%d (%v), want %d", n, sum.K, err, solver.LasVegasK(n))
		}
		data, err := os.ReadFile(filepath.Join(filepath.Dir(args[len(args)-1]), "s.txt"))
		if err != nil {
			t.Fatal(err)
		}
		if sols := parseCols(t, string(data)); len(sols) != 1 || solver.Verify(n, sols[0]) != nil {
			t.Errorf("n=%d lasvegas, automatic k: wrote %q, want one solution", n, data)
		}
	}
}

// TestLasVegasInterrupted: a cancelled context (Ctrl-C) ends a Las Vegas
// search that would run for long, with exit 1 and one line saying so.
func TestLasVegasInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var stdout, stderr bytes.Buffer
	code := run(ctx, []string{"--n", "50000", "--first", "--method", "lasvegas", "--log-level", "off"}, &stdout, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), "interrupted after") || stdout.Len() != 0 {
		t.Errorf("interrupted lasvegas: exit %d, stdout %q, stderr %q; want exit 1, nothing on stdout and \"interrupted after\"", code, stdout.String(), stderr.String())
	}
}
