package main

import (
	"strings"
	"testing"

	"github.com/nqueens/nqueens/coordinator"
)

// TestCheckPublished (issue 23 D3): a complete run whose sums differ from
// the published count fails, not complete, with one line naming both; a
// right one, a pinned one and a board nobody counted pass unchanged.
func TestCheckPublished(t *testing.T) {
	for _, tc := range []struct {
		s    coordinator.Summary
		fail bool
	}{
		{coordinator.Summary{N: 13, Kind: "count", Solutions: 73712, Unique: 9233, Complete: true}, false},
		{coordinator.Summary{N: 13, Kind: "count", Solutions: 74656, Unique: 9233, Complete: true}, true},
		{coordinator.Summary{N: 16, Kind: "count", Solutions: 14772512, Unique: 1846954, Complete: true}, true},
		{coordinator.Summary{N: 8, Kind: "unique", Solutions: 92, Unique: 12, Complete: true}, false},
		{coordinator.Summary{N: 8, Kind: "all", Solutions: 94, Unique: 12, Complete: true}, true},
		{coordinator.Summary{N: 13, Kind: "count", Solutions: 70000, Unique: 9000, Complete: false}, false}, // partial
		{coordinator.Summary{N: 13, Kind: "pinned", Solutions: 12, Complete: true}, false},
		{coordinator.Summary{N: 28, Kind: "count", Solutions: 1, Unique: 1, Complete: true}, false}, // unpublished
	} {
		s := tc.s
		err := checkPublished(&s)
		switch {
		case tc.fail && (err == nil || s.Complete || s.Error != err.Error() || strings.Contains(err.Error(), "\n")):
			t.Errorf("%+v: %v, complete %v; want one line of error and not complete", tc.s, err, s.Complete)
		case tc.fail && !strings.Contains(err.Error(), "published"):
			t.Errorf("%+v: %q does not name the published count", tc.s, err)
		case !tc.fail && (err != nil || s.Complete != tc.s.Complete || s.Error != ""):
			t.Errorf("%+v: %v, summary changed to %+v; want it to pass unchanged", tc.s, err, s)
		}
	}
}
