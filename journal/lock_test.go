//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package journal

import (
	"errors"
	"path/filepath"
	"sync"
	"testing"
)

// createRaceRounds is how many times TestCreateRace races Creates on a
// fresh path; one round takes well under a millisecond.
const createRaceRounds = 200

// TestCreateRace starts four Creates of one path at the same moment, many
// times: exactly one succeeds, the others get ErrLocked, the winner's
// journal opens afterwards, and no temporary file is left.
func TestCreateRace(t *testing.T) {
	dir := t.TempDir()
	for round := range createRaceRounds {
		path := filepath.Join(dir, "j"+string(rune('a'+round%26))+string(rune('a'+round/26)))
		const racers = 4
		var start, done sync.WaitGroup
		start.Add(1)
		errs := make([]error, racers)
		js := make([]*Journal, racers)
		for i := range racers {
			done.Add(1)
			go func() {
				defer done.Done()
				start.Wait()
				js[i], errs[i] = Create(path, testSettings)
			}()
		}
		start.Done()
		done.Wait()
		won := 0
		for i, err := range errs {
			switch {
			case err == nil:
				won++
				js[i].Close()
			case !errors.Is(err, ErrLocked):
				t.Fatalf("round %d: racer %d: Create = %v, want nil or ErrLocked", round, i, err)
			}
		}
		if won != 1 {
			t.Fatalf("round %d: %d Creates succeeded, want exactly 1 (errors %v)", round, won, errs)
		}
		j, rp, err := Open(path, testSettings)
		if err != nil || len(rp.Records) != 0 {
			t.Fatalf("round %d: Open after the race = %v, %d records; want the winner's empty journal", round, err, len(rp.Records))
		}
		j.Close()
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*.tmp*")); len(left) > 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}
