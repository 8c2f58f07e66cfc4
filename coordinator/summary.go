package coordinator

import (
	"fmt"
	"time"

	"github.com/nqueens/nqueens/coordinator/internal/sched"
)

// Summary is the result of a run: printed as a few human lines, or as one
// JSON object with --json. New fields may be added; existing ones keep
// their names and meaning.
type Summary struct {
	N              int     `json:"n"`
	Kind           string  `json:"kind"`                      // count, all (listing every solution), unique (listing fundamental ones) or pinned (Config.Pins)
	Engine         string  `json:"engine"`                    // join (the quadrant join; unique by Burnside's lemma from the total) or backtrack
	Solutions      uint64  `json:"solutions"`                 // total solutions (OEIS A000170)
	Unique         uint64  `json:"unique"`                    // fundamental solutions (OEIS A002562)
	Tasks          int     `json:"tasks"`                     // tasks to commit: the plan's, less those split, plus their children
	Committed      int     `json:"committed"`                 // tasks committed; equals tasks when complete
	Depth          int     `json:"depth"`                     // the plan's depth (prefix length)
	Splits         uint64  `json:"splits"`                    // tasks split into their children on demand
	Superseded     uint64  `json:"superseded"`                // results for tasks split meanwhile, dropped
	DeepestSplit   int     `json:"deepest_split"`             // the longest prefix of any task, split or not
	PeakLiveTasks  int     `json:"peak_live_tasks,omitempty"` // the most tasks held at once (queued, leased, split and not yet collapsed): memory follows these
	Workers        int     `json:"workers"`                   // embedded workers, or the most workers attached at once if more
	Nodes          uint64  `json:"nodes"`                     // search nodes visited (count plans)
	ElapsedSeconds float64 `json:"elapsed_seconds"`
	BusySeconds    float64 `json:"busy_seconds"` // time with at least one worker attached: the rate's time
	// RestoredSolutions are the solutions a resume took from the journal:
	// counted in Solutions, not in this run's rate.
	RestoredSolutions uint64 `json:"restored_solutions,omitempty"`
	Leased            uint64 `json:"leased"`      // tasks leased (first attempts, retries and verifications), each task of a run
	Runs              uint64 `json:"runs"`        // leases of several consecutive tasks, one message each way
	Conflicts         uint64 `json:"conflicts"`   // results that disagreed with a committed one
	Duplicates        uint64 `json:"duplicates"`  // repeated results, equal to the committed one
	Rejected          uint64 `json:"rejected"`    // results or batches dropped as invalid or foreign
	Requeued          uint64 `json:"requeued"`    // leased tasks taken back and queued again
	Expired           uint64 `json:"expired"`     // leases that ran out without a heartbeat
	Verified          uint64 `json:"verified"`    // committed tasks confirmed by a second computation (--verify-fraction)
	Quarantined       uint64 `json:"quarantined"` // workers caught reporting wrong counts and disconnected

	// How far the total can be trusted (trust.go). CheckedAgainstPublished:
	// the running sums are compared with the board's published count on
	// every commit and the final sums at the end, and a job whose sums
	// differ fails; false for a board nobody has counted (N ≥ 28), a
	// pinned run, a synthetic load, Config.AsUnpublished. Where it is
	// false, the verified share is the evidence: VerifiedSolutions are
	// the solutions of the Verified tasks, VerifiedFraction is Verified
	// over Committed, VerifiedSolutionsFraction VerifiedSolutions over
	// Solutions (both 0..1; this run's verifications, so restored tasks
	// count as unverified).
	CheckedAgainstPublished   bool    `json:"checked_against_published"`
	VerifiedSolutions         uint64  `json:"verified_solutions"`
	VerifiedFraction          float64 `json:"verified_fraction"`
	VerifiedSolutionsFraction float64 `json:"verified_solutions_fraction"`
	// NodesSaturated: the node counter stopped at 2^64-1 (Nodes); the
	// true count is higher. Counts of solutions never saturate: a sum that
	// would pass 2^64 fails the job.
	NodesSaturated bool `json:"nodes_saturated"`

	Complete bool   `json:"complete"`
	Error    string `json:"error,omitempty"`

	// Pinned runs only (Config.Pins): the pinned queens as 1-based [row,
	// col] pairs, the number of their completions (equal to solutions, and
	// present even when 0) and the note that unique, 0, was not computed.
	Pins        [][2]int `json:"pins,omitempty"`
	Completions *uint64  `json:"completions,omitempty"`
	Note        string   `json:"note,omitempty"`

	// First-solution runs only.
	Method   string `json:"method,omitempty"`
	Failures int    `json:"failures,omitempty"` // Las Vegas failed attempts before the solution
	K        int    `json:"k,omitempty"`        // Las Vegas random rows
}

// setStats copies the scheduler's counters into the summary.
func (s *Summary) setStats(st sched.Stats) {
	s.Leased, s.Conflicts, s.Duplicates, s.Rejected = st.Leased, st.Conflicts, st.Duplicates, st.Rejected
	s.Requeued, s.Expired, s.Verified, s.Quarantined = st.Requeued, st.Expired, st.Verified, st.Quarantined
	s.VerifiedSolutions = st.VerifiedSolutions
	s.Splits, s.Superseded, s.Runs = st.Splits, st.Superseded, st.Runs
}

// Human is the short human summary: count, fundamental count, time, rate.
// The rate is over the busy time (BusySeconds, shown when it is known), so
// time spent waiting for the first worker, or between workers, does not
// lower it; over the wall time when no busy time is known (--first). The
// solutions a resume restored are not this run's work and not in the rate.
func (s Summary) Human() string {
	elapsed := time.Duration(s.ElapsedSeconds * float64(time.Second))
	rate, busy := 0.0, ""
	switch {
	case s.BusySeconds > 0:
		rate = float64(s.Solutions-min(s.RestoredSolutions, s.Solutions)) / s.BusySeconds
		busy = fmt.Sprintf("busy %v, ", time.Duration(s.BusySeconds*float64(time.Second)).Round(time.Millisecond))
	case s.ElapsedSeconds > 0:
		rate = float64(s.Solutions) / s.ElapsedSeconds
	}
	status := ""
	if !s.Complete {
		status = fmt.Sprintf(" (PARTIAL: %d of %d tasks committed)", s.Committed, s.Tasks)
	}
	text := fmt.Sprintf("N=%d: %d solutions, %d fundamental%s\n", s.N, s.Solutions, s.Unique, status)
	if s.Kind == "unique" {
		text = fmt.Sprintf("N=%d: %d fundamental solutions (of %d in all)%s\n", s.N, s.Unique, s.Solutions, status)
	}
	if len(s.Pins) > 0 {
		text = s.pinnedHeadline(status) // pins.go
	}
	text += fmt.Sprintf("time %v, %s%s solutions/s; %s (depth %d) on %s",
		elapsed.Round(time.Millisecond), busy, HumanRate(rate), plural(s.Tasks, "task"), s.Depth, plural(s.Workers, "worker"))
	switch {
	case s.NodesSaturated:
		text += fmt.Sprintf(", at least %d nodes (the counter saturated)", s.Nodes)
	case s.Nodes > 0:
		text += fmt.Sprintf(", %d nodes", s.Nodes)
	}
	if trust := s.trustLine(); trust != "" {
		text += trust // the verified share
	} else if s.Verified > 0 {
		text += fmt.Sprintf("; %d tasks verified", s.Verified)
	}
	if s.Conflicts > 0 {
		text += fmt.Sprintf("; %d CONFLICTS", s.Conflicts)
	}
	if s.Quarantined > 0 {
		text += fmt.Sprintf("; %d workers QUARANTINED", s.Quarantined)
	}
	return text + "\n"
}

// plural says "1 worker" but "2 workers".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// HumanRate prints a rate with a k/M/G suffix, as the summary does.
func HumanRate(r float64) string {
	switch {
	case r >= 1e9:
		return fmt.Sprintf("%.2fG", r/1e9)
	case r >= 1e6:
		return fmt.Sprintf("%.2fM", r/1e6)
	case r >= 1e3:
		return fmt.Sprintf("%.1fk", r/1e3)
	}
	return fmt.Sprintf("%.0f", r)
}
