package main

import (
	"sync/atomic"

	"github.com/nqueens/nqueens/coordinator"
	"github.com/nqueens/nqueens/journal"
	"github.com/nqueens/nqueens/solver"
)

// durableJournal counts, around a coordinator.Journal, the commits that
// are on disk, for the progress displays (status.Durable):
// a commit is queued, then durable once a Sync that began after it
// returns. Restored commits are durable from the start.
type durableJournal struct {
	coordinator.Journal
	queued  atomic.Int64 // commits queued, restored ones included
	durable atomic.Int64 // of those, the ones a Sync made durable
}

func newDurableJournal(j coordinator.Journal, restored int) *durableJournal {
	d := &durableJournal{Journal: j}
	d.queued.Store(int64(restored))
	d.durable.Store(int64(restored))
	return d
}

func (d *durableJournal) Commit(index int, c solver.Counts, worker uint64) error {
	err := d.Journal.Commit(index, c, worker)
	if err == nil {
		d.queued.Add(1)
	}
	return err
}

func (d *durableJournal) CommitRun(first int, cs []solver.Counts, worker uint64) error {
	err := d.Journal.CommitRun(first, cs, worker)
	if err == nil {
		d.queued.Add(int64(len(cs)))
	}
	return err
}

func (d *durableJournal) Sync() error {
	q := d.queued.Load()
	err := d.Journal.Sync()
	if err == nil {
		for v := d.durable.Load(); v < q && !d.durable.CompareAndSwap(v, q); v = d.durable.Load() {
		}
	}
	return err
}

// DurableTasks is how many commits are on disk.
func (d *durableJournal) DurableTasks() int { return int(d.durable.Load()) }

// counting wraps the OpenJournal hook open so that the journal it opens
// counts its durable commits into *into; state is where open puts the
// journal file, whose committed tasks a resume restores.
func counting(open func(solver.Plan) (coordinator.Resumed, error), state **journal.Journal, into *atomic.Pointer[durableJournal]) func(solver.Plan) (coordinator.Resumed, error) {
	return func(p solver.Plan) (coordinator.Resumed, error) {
		r, err := open(p)
		if err != nil || r.Journal == nil {
			return r, err
		}
		restored := 0
		if *state != nil {
			restored = (*state).Len()
		}
		d := newDurableJournal(r.Journal, restored)
		into.Store(d)
		r.Journal = d
		return r, nil
	}
}

// journaledJob is a job with --state as the status displays see it: it
// also says how many committed tasks are on disk (status.Durable).
type journaledJob struct {
	*coordinator.Job
	journal *atomic.Pointer[durableJournal] // set once the journal is open
}

func (j journaledJob) DurableTasks() int {
	if d := j.journal.Load(); d != nil {
		return d.DurableTasks()
	}
	return 0
}
