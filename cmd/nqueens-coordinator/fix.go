package main

import (
	"errors"
	"flag"
	"fmt"

	"github.com/nqueens/nqueens/solver"
)

// fixUsage is the help text of --fix.
const fixUsage = "pin queens on the squares `ROW:COL,...` (1-based, as --format coords prints them) and count, or list with --solutions and pictures, their completions on the cluster; no symmetry is used, so the fundamental count is not computed; --depth D then fixes the rows down to the D-th row without a pin"

// registerFix adds --fix to fs; its text lands in *s.
func registerFix(fs *flag.FlagSet, s *string) { fs.StringVar(s, "fix", "", fixUsage) }

// fixConflicts refuses the flags that mean nothing with --fix, saying
// why; it runs before --resume looks for a journal.
func fixConflicts(cfg options, lo processOptions) error {
	if !lo.given["fix"] {
		return nil
	}
	switch {
	case cfg.First:
		return errors.New("--fix does not apply to --first, which builds one solution of the whole board without a search to pin queens in")
	case cfg.Unique:
		return errors.New("--fix does not apply to --unique: the board's symmetries move pinned queens, so the completions do not fall into whole classes")
	case lo.resumeMode != resumeOff || lo.state != "":
		return errors.New("--fix does not apply to --state or --resume: the journal does not keep the pins, so a pinned job cannot be resumed")
	}
	return nil
}

// parseFix reads --fix into cfg.Pins once the other flags are parsed:
// pins ParsePins refuses are one line naming the squares.
func parseFix(cfg *options, lo processOptions) error {
	if !lo.given["fix"] {
		return nil
	}
	pins, err := solver.ParsePins(cfg.N, lo.fix)
	if err != nil {
		return fmt.Errorf("--fix: %v", err)
	}
	cfg.Pins = pins
	return nil
}
