package coordinator

import (
	"fmt"
	"iter"
	"runtime/debug"

	"github.com/nqueens/nqueens/coordinator/internal/sched"
)

// restore replays what an earlier run left (cfg.Restored, cfg.Splits,
// cfg.entries) into the scheduler, in the one order that keeps a resume
// exact. The results are checked first (sched.Restorable): the workers
// that committed an impossible count are distrusted in the journal, so
// that the tasks they committed may be committed again. Then the splits
// and results in the journal's order (entries), or the splits, which the
// results may name as children, then the results; then the journal's
// read error, known only once the results were read.
func (j *Job) restore() error {
	cfg := j.cfg
	results := cfg.Restored
	isBad := map[uint64]bool{}
	if results != nil {
		restorable, bad, err := sched.Restorable(j.plan.N, results)
		if err == nil && cfg.restoredErr != nil {
			err = cfg.restoredErr() // the results ended early
		}
		if err != nil {
			return usageErr("resume refused: %v", err)
		}
		for _, w := range bad {
			isBad[w] = true
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
	var restored int
	var err error
	if cfg.entries != nil {
		restored, err = j.replay(cfg.entries, isBad)
	} else {
		restored, err = j.replayApart(cfg.Splits, results)
	}
	if err != nil {
		return err
	}
	if cfg.restoredErr != nil {
		if err := cfg.restoredErr(); err != nil {
			return fmt.Errorf("resume: reading the journal's results: %w", err)
		}
	}
	// The scheduler holds them now: what they are read from (a journal's
	// bytes, 300 MB for 10^7 tasks) must not stay for the whole run.
	j.cfg.Restored, j.cfg.Splits, j.cfg.entries = nil, nil, nil
	if restored >= bigResume {
		// The journal's replay took about as much again, freed now: give
		// it back to the system, or the process stays at its peak for a
		// run of days (a 988,030-task resume: 450 MB resident, 150 MB live).
		debug.FreeOSMemory()
	}
	j.sched.CheckDone()
	return nil
}

// replay applies a journal's entries in its order, leaving out the
// results of the workers in bad: each split's subtree collapses as its
// last result is restored, so the scheduler holds what the run held at
// that point, never every task made.
func (j *Job) replay(entries iter.Seq[JournalEntry], bad map[uint64]bool) (restored int, err error) {
	for e := range entries {
		switch {
		case e.IsSplit:
			err = j.sched.RestoreSplit(e.Split)
		case bad[e.Result.Worker] && e.Result.Worker != 0:
			continue
		default:
			err = j.sched.Restore(e.Result.Index, e.Result.Counts)
			restored++
			j.restoredSolutions += e.Result.Counts.Total
		}
		if err != nil {
			return restored, err
		}
	}
	return restored, nil
}

// replayApart applies the splits, then the results: for a journal read
// whole (its entries' order is not kept).
func (j *Job) replayApart(splits []Split, results iter.Seq[JournalResult]) (restored int, err error) {
	for _, sp := range splits {
		if err := j.sched.RestoreSplit(sp); err != nil {
			return 0, err
		}
	}
	if results == nil {
		return 0, nil
	}
	for r := range results {
		if err := j.sched.Restore(r.Index, r.Counts); err != nil {
			return restored, err
		}
		restored++
		j.restoredSolutions += r.Counts.Total
	}
	return restored, nil
}
