package coordinator

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nqueens/nqueens/internal/packed"
	nqueenspb "github.com/nqueens/nqueens/proto/nqueens/v1"
	"github.com/nqueens/nqueens/render"
	"github.com/nqueens/nqueens/solver"
)

// allSolutions is the sequential listing of the n-board.
func allSolutions(n int) [][]int {
	var all [][]int
	for cols := range solver.Solutions(n, nil) {
		all = append(all, slices.Clone(cols))
	}
	return all
}

// holding filters sols by pins: the oracle of the completions.
func holding(sols [][]int, pins solver.Pins) [][]int {
	var out [][]int
	for _, cols := range sols {
		if !slices.ContainsFunc(pins, func(p solver.Pin) bool { return cols[p.Row] != p.Col }) {
			out = append(out, cols)
		}
	}
	return out
}

// drawPins draws a valid pin set of 1..k queens on an n-board: half the
// time squares of a solution (so it has completions), else random squares
// until ParsePins takes them.
func drawPins(rng *rand.Rand, n, k int, all [][]int) solver.Pins {
	for {
		rows := rng.Perm(n)[:1+rng.IntN(min(k, n))]
		parts := make([]string, len(rows))
		sol := []int(nil)
		if len(all) > 0 && rng.IntN(2) == 0 {
			sol = all[rng.IntN(len(all))]
		}
		for i, r := range rows {
			c := rng.IntN(n)
			if sol != nil {
				c = sol[r]
			}
			parts[i] = fmt.Sprintf("%d:%d", r+1, c+1)
		}
		if pins, err := solver.ParsePins(n, strings.Join(parts, ",")); err == nil {
			return pins
		}
	}
}

// TestPinnedCountsThroughCluster, a property test: for N <= 12
// and many random valid pin sets (seeded), the cluster's completion count,
// through real embedded workers, equals the filter of the full listing;
// the fundamental count is not computed, and the summary says so.
func TestPinnedCountsThroughCluster(t *testing.T) {
	checkLeaks(t)
	rng := rand.New(rand.NewPCG(15, 3))
	runs, nonzero, zero := 0, 0, 0
	for n := 1; n <= 12; n++ {
		all := allSolutions(n)
		draws := 6
		if n >= 8 {
			draws = 10
		}
		for range draws {
			pins := drawPins(rng, n, 4, all)
			want := uint64(len(holding(all, pins)))
			cfg := testConfig(n, 2)
			cfg.Pins = pins
			if rng.IntN(3) == 0 {
				cfg.Depth = rng.IntN(min(solver.MaxDepth(n, solver.KindPinned), n-len(pins)) + 1)
			}
			s := runJob(t, cfg)
			runs++
			if s.Solutions != want || s.Completions == nil || *s.Completions != want || s.Unique != 0 {
				t.Fatalf("N=%d pins %v depth %d: %d completions (%v), unique %d; want %d, 0",
					n, pins, s.Depth, s.Solutions, s.Completions, s.Unique, want)
			}
			if !s.Complete || s.Kind != "pinned" || s.Note != pinnedNote || len(s.Pins) != len(pins) {
				t.Fatalf("N=%d pins %v: summary %+v", n, pins, s)
			}
			if want > 0 {
				nonzero++
			} else {
				zero++
			}
		}
	}
	t.Logf("%d runs: %d with completions, %d without", runs, nonzero, zero)
	if nonzero < 30 || zero < 5 {
		t.Errorf("%d runs: %d with completions, %d without; the draw must exercise both", runs, nonzero, zero)
	}
}

// TestPinnedListingThroughCluster: a listing of the completions through
// three workers is the filter of the sequential listing, in its order,
// byte for byte, on both sort paths; N=8 with (1,1) pinned gives issue
// 15's 4 solutions.
func TestPinnedListingThroughCluster(t *testing.T) {
	checkLeaks(t)
	dir := t.TempDir()
	for _, tc := range []struct {
		n       int
		pins    string
		format  render.Format
		records bool
		want    int // completions, or -1: whatever the filter says
		depth   int
	}{
		{8, "1:1", render.Cols, false, 4, AutoDepth},
		{8, "1:1", render.Coords, true, 4, 0},
		{10, "2:3", render.Board, false, -1, AutoDepth},
		{10, "5:5,1:2", render.Cols, true, -1, 0},
		{10, "5:5,1:2", render.Cols, false, -1, 2},
		{8, "1:1,2:3", render.Cols, false, 0, AutoDepth},
	} {
		pins, err := solver.ParsePins(tc.n, tc.pins)
		if err != nil {
			t.Fatal(err)
		}
		cfg := testConfig(tc.n, 3)
		cfg.Pins, cfg.testRecords, cfg.SpillDir, cfg.Depth = pins, tc.records, dir, tc.depth
		out := filepath.Join(dir, "out.txt")
		listTo(t, &cfg, out, tc.format)
		s := runJob(t, cfg)
		wantSols := holding(allSolutions(tc.n), pins)
		var want bytes.Buffer
		for _, cols := range wantSols {
			render.WriteText(&want, tc.format, cols)
		}
		got, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want.Bytes()) || s.Solutions != uint64(len(wantSols)) || tc.want >= 0 && len(wantSols) != tc.want {
			t.Errorf("N=%d pins %s %v: %d completions, listing\n%s\nwant %d:\n%s", tc.n, tc.pins, tc.format, s.Solutions, got, len(wantSols), want.Bytes())
		}
	}
}

// TestPinnedSummary: the human summary names the pinned queens and the
// count, 0 included, and the note on the fundamental count.
func TestPinnedSummary(t *testing.T) {
	pins, _ := solver.ParsePins(8, "2:3,1:1")
	cfg := testConfig(8, 1)
	cfg.Pins = pins
	s := runJob(t, cfg)
	h := s.Human()
	for _, want := range []string{"N=8 with 2 pinned queens (1,1) (2,3): 0 completions\n", pinnedNote + "\n", "time "} {
		if !strings.Contains(h, want) {
			t.Errorf("summary %q lacks %q", h, want)
		}
	}
	if s.Completions == nil || *s.Completions != 0 || !s.Complete {
		t.Errorf("summary %+v: want 0 completions, complete", s)
	}
	one := Summary{N: 8, Pins: [][2]int{{1, 1}}, Solutions: 1, Note: pinnedNote, Complete: true}
	if h := one.Human(); !strings.HasPrefix(h, "N=8 with 1 pinned queen (1,1): 1 completion\n") {
		t.Errorf("summary %q", h)
	}
}

func TestPinnedBadConfig(t *testing.T) {
	for _, tc := range []struct {
		cfg   func(*Config)
		field string
		want  string
	}{
		{func(c *Config) { c.Pins = solver.Pins{{Row: 0, Col: 0}, {Row: 1, Col: 1}} }, "Pins", "attack each other on a diagonal"},
		{func(c *Config) { c.Pins = solver.Pins{{Row: 0, Col: 9}} }, "Pins", "off the board"},
		{func(c *Config) { c.Pins = solver.Pins{{Row: 0, Col: 0}}; c.Unique = true }, "Unique", "pinned"},
	} {
		cfg := testConfig(8, 1)
		tc.cfg(&cfg)
		_, err := New(cfg, nil)
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != tc.field || !strings.Contains(fe.Msg, tc.want) || !errors.Is(err, ErrUsage) {
			t.Errorf("New(%+v) = %v, want a %s FieldError with %q", cfg.Pins, err, tc.field, tc.want)
		}
	}
	// Depth beyond the free rows is a usage error.
	cfg := testConfig(4, 1)
	cfg.Pins, _ = solver.ParsePins(4, "1:2,2:4,3:1")
	cfg.Depth = 2
	if _, err := New(cfg, nil); !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), "must be 0..1") {
		t.Errorf("depth 2 with 1 free row: %v", err)
	}
}

// TestPinnedWire: a worker of a pinned job learns the pins from Join and
// from each Assign (TASK_KIND_PINNED); a batch with a solution that does
// not hold the pin is rejected, as is its attempt's Result, and honest
// workers finish the job exactly.
func TestPinnedWire(t *testing.T) {
	checkLeaks(t)
	pins, _ := solver.ParsePins(8, "1:1")
	cfg := testConfig(8, 0)
	cfg.Pins, cfg.Depth = pins, 1
	out := filepath.Join(t.TempDir(), "out.txt")
	listTo(t, &cfg, out, render.Cols)
	r := startJob(t, context.Background(), cfg)
	raw := dialRaw(t, r.addr)
	wantCols := []uint32{1, 0, 0, 0, 0, 0, 0, 0}
	if j := raw.join.GetJob(); j.GetKind() != nqueenspb.TaskKind_TASK_KIND_PINNED || !slices.Equal(j.GetPinnedColumns(), wantCols) {
		t.Fatalf("Join's job %v: want TASK_KIND_PINNED with pinned columns %v", j, wantCols)
	}
	raw.ready(1)
	a := raw.next("assign").GetAssign()
	if a.GetKind() != nqueenspb.TaskKind_TASK_KIND_PINNED || !slices.Equal(a.GetPinnedColumns(), wantCols) || !a.GetWantSolutions() {
		t.Fatalf("Assign %v: want a pinned listing task with pinned columns %v", a, wantCols)
	}
	// A real solution of N=8, but without the pinned queen.
	lie := packed.Append(nil, []int{1, 3, 5, 7, 2, 0, 6, 4})
	raw.send(&nqueenspb.WorkRequest{Msg: &nqueenspb.WorkRequest_SolutionBatch{SolutionBatch: &nqueenspb.SolutionBatch{
		TaskId: a.GetTaskId(), LeaseId: a.GetLeaseId(), Count: 1, Packed: lie,
	}}})
	raw.result(&nqueenspb.Result{TaskId: a.GetTaskId(), LeaseId: a.GetLeaseId(), Total: 1})
	if ack := raw.next("ack").GetAck(); ack.GetOutcome() != nqueenspb.Ack_OUTCOME_REJECTED {
		t.Errorf("ack of a lying attempt: %v, want REJECTED", ack)
	}
	raw.close()
	wait := startWorkers(context.Background(), r.addr) // one: a second might find the job already done
	s, err := r.wait(t)
	for _, werr := range wait() {
		if werr != nil {
			t.Errorf("honest worker: %v", werr)
		}
	}
	if err != nil || s.Solutions != 4 || s.Rejected == 0 {
		t.Fatalf("summary %+v, %v: want 4 completions and the lie rejected", s, err)
	}
	got, _ := os.ReadFile(out)
	if want := "1 5 8 6 3 7 2 4\n1 6 8 3 7 4 2 5\n1 7 4 6 8 2 5 3\n1 7 5 8 2 4 6 3\n"; string(got) != want {
		t.Errorf("listing %q, want %q", got, want)
	}
}
