package coordinator

import (
	"fmt"
	"strings"

	nqueenspb "github.com/nqueens/nqueens/proto/nqueens/v1"
	"github.com/nqueens/nqueens/solver"
)

// Pinned queens (Config.Pins): the job counts or lists the
// completions of the pins, the solutions that hold them all. The plan is
// a solver.KindPinned one: plain row prefixes that hold the pins, in
// lexicographic order, each solution counted once. No symmetry is used (a
// symmetry is valid only for pin sets it keeps in place), so the
// fundamental count is not computed: Summary.Unique stays 0 and
// Summary.Note says so. A listing streams every completion whole and the
// publisher adds them as they are (listing.Options.AsIs).

// pinnedNote is the summary's note on the fundamental count of a pinned
// job.
const pinnedNote = "fundamental count not computed for pinned queens"

// pinned reports whether the job pins queens.
func (c Config) pinned() bool { return len(c.Pins) > 0 }

// validatePins reports pins that solver.ParsePins would refuse, and the
// options that mean nothing with them, as FieldErrors.
func (c Config) validatePins() error {
	if !c.pinned() {
		return nil
	}
	if _, err := solver.ParsePins(c.N, c.Pins.String()); err != nil {
		return fieldErr("Pins", "%s: %v", c.Pins, err)
	}
	if c.Unique {
		return fieldErr("Unique", "does not apply to pinned queens: their completions are not closed under the board's symmetries")
	}
	return nil
}

// newPinnedPlan plans a pinned job: AutoDepth sizes it as newPlan does.
func (c Config) newPinnedPlan() (solver.Plan, error) {
	depth := c.Depth
	if depth == AutoDepth {
		slots := c.Workers
		if slots == 0 {
			slots = remoteSlots
		}
		depth = solver.AutoPinnedDepth(c.N, slots, c.Pins)
	}
	plan, err := solver.NewPinnedPlan(c.N, depth, c.Pins)
	if err != nil {
		return solver.Plan{}, fmt.Errorf("%w: %w", ErrUsage, err)
	}
	return plan, nil
}

// wirePins is the plan's pins as Job and Assign carry them (nil for an
// unpinned plan).
func wirePins(p solver.Plan) []uint32 { return solver.PinnedColumns(p.N, p.Pins) }

// wireKind is the TaskKind of the tasks of a plan whose wire pins are
// pins, or of a join plan: every other plan sends TASK_KIND_COUNT
// (listings too, see solver.ListTask).
func wireKind(pins []uint32, join bool) nqueenspb.TaskKind {
	if join {
		return nqueenspb.TaskKind_TASK_KIND_JOIN
	}
	if len(pins) > 0 {
		return nqueenspb.TaskKind_TASK_KIND_PINNED
	}
	return nqueenspb.TaskKind_TASK_KIND_COUNT
}

// setPins fills the pinned fields of a summary of plan p.
func (s *Summary) setPins(p solver.Plan) {
	if p.Kind != solver.KindPinned {
		return
	}
	s.Pins = make([][2]int, len(p.Pins))
	for i, pin := range p.Pins {
		s.Pins[i] = [2]int{pin.Row + 1, pin.Col + 1}
	}
	completions := s.Solutions
	s.Completions = &completions
	s.Note = pinnedNote
}

// pinnedHeadline is the first lines of the human summary of a pinned job:
// "N=8 with 2 pinned queens (1,1) (2,3): 0 completions" and the note.
func (s Summary) pinnedHeadline(status string) string {
	squares := make([]string, len(s.Pins))
	for i, p := range s.Pins {
		squares[i] = fmt.Sprintf("(%d,%d)", p[0], p[1])
	}
	queens := plural(len(s.Pins), "pinned queen")
	completions := fmt.Sprintf("%d completions", s.Solutions)
	if s.Solutions == 1 {
		completions = "1 completion"
	}
	return fmt.Sprintf("N=%d with %s %s: %s%s\n%s\n", s.N, queens, strings.Join(squares, " "), completions, status, s.Note)
}
