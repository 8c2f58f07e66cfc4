package main

import (
	"errors"
	"fmt"

	"github.com/nqueens/nqueens/coordinator"
	"github.com/nqueens/nqueens/solver"
)

// checkPublished fails a complete whole-board run whose final sums differ
// from the board's published counts (solver.Known): workers whose lies
// each looked plausible made N=13 end at 74,656 instead of 73,712,
// complete, exit 0 (issue 23 D3). The summary then says it is not
// complete, with the reason, and the command exits 1. Pinned runs count
// completions of a part of the board, and boards nobody has counted
// cannot be checked: both pass as they are.
func checkPublished(s *coordinator.Summary) error {
	if !s.Complete || s.Kind == coordinator.KindName(solver.KindPinned) {
		return nil
	}
	k, ok := solver.Known(s.N)
	if !ok || s.Solutions == k.Total && s.Unique == k.Unique {
		return nil
	}
	s.Complete = false
	s.Error = fmt.Sprintf("the final count, %d solutions (%d fundamental), differs from the published count of the %d-board, %d (%d): a worker reported wrong counts; run again with --verify-fraction 1",
		s.Solutions, s.Unique, s.N, k.Total, k.Unique)
	return errors.New(s.Error)
}
