package coordinator

import (
	"fmt"
	"runtime/debug"

	"github.com/nqueens/nqueens/coordinator/internal/sched"
)

// restore replays what an earlier run left (cfg.Restored, cfg.Splits) into
// the scheduler, in the one order that keeps a resume exact. The results
// are checked first (sched.Restorable): the workers that committed an
// impossible count are distrusted in the journal, so that the tasks they
// committed may be committed again. Then the splits, which the results may
// name as children; then the results; then the journal's read error, known
// only once the results were read.
func (j *Job) restore() error {
	cfg := j.cfg
	results := cfg.Restored
	if results != nil {
		restorable, bad, err := sched.Restorable(j.plan.N, results)
		if err == nil && cfg.restoredErr != nil {
			err = cfg.restoredErr() // the results ended early
		}
		if err != nil {
			return usageErr("resume refused: %v", err)
		}
		for _, w := range bad {
			j.log.Warn("journal records of a worker that committed an impossible count dropped; its tasks are computed again", "worker_key", fmt.Sprintf("%x", w))
			if cfg.Journal == nil {
				continue
			}
			if err := cfg.Journal.Distrust(w); err != nil {
				return fmt.Errorf("resume: distrusting worker %x: %w", w, err)
			}
		}
		results = restorable
	}
	for _, sp := range cfg.Splits {
		if err := j.sched.RestoreSplit(sp); err != nil {
			return err
		}
	}
	restored := 0
	if results != nil {
		for r := range results {
			if err := j.sched.Restore(r.Index, r.Counts); err != nil {
				return err
			}
			restored++
			j.restoredSolutions += r.Counts.Total
		}
	}
	if cfg.restoredErr != nil {
		if err := cfg.restoredErr(); err != nil {
			return fmt.Errorf("resume: reading the journal's results: %w", err)
		}
	}
	// The scheduler holds them now: what they are read from (a journal's
	// bytes, 300 MB for 10^7 tasks) must not stay for the whole run.
	j.cfg.Restored, j.cfg.Splits = nil, nil
	if restored >= bigResume {
		// The journal's replay took about as much again, freed now: give
		// it back to the system, or the process stays at its peak for a
		// run of days (a 988,030-task resume: 450 MB resident, 150 MB live).
		debug.FreeOSMemory()
	}
	j.sched.CheckDone()
	return nil
}
