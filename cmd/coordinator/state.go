package main

import (
	"errors"
	"fmt"

	"github.com/hashicorp/go-hclog"

	"github.com/nqueens/nqueens/coordinator"
	"github.com/nqueens/nqueens/journal"
	"github.com/nqueens/nqueens/solver"
)

// journalCommits adapts a journal.Journal to coordinator.Journal.
type journalCommits struct{ j *journal.Journal }

func (c journalCommits) Commit(index int, k solver.Counts, worker uint64) error {
	return c.j.Append(journal.Record{Index: index, Total: k.Total, Unique: k.Unique, Nodes: k.Nodes, Worker: worker})
}

func (c journalCommits) Distrust(worker uint64) error { return c.j.Distrust(worker) }

// stateOpener returns the coordinator's OpenJournal hook for --state PATH
// (and --resume): it creates the journal for a fresh run, or opens it and
// replays the committed results for a resumed one. A journal of another
// job, a corrupt one, or a fresh run over an existing file are usage
// errors (exit 2). *opened receives the journal so main can close it.
func stateOpener(path string, resume bool, log hclog.Logger, opened **journal.Journal) func(solver.Plan) (coordinator.Journal, map[int]solver.Counts, error) {
	return func(p solver.Plan) (coordinator.Journal, map[int]solver.Counts, error) {
		s := journal.Settings{
			N: p.N, Depth: p.Depth, Kind: uint8(p.Kind), Fingerprint: p.Fingerprint(),
			SolverVersion: solver.Version, Tasks: len(p.Tasks),
		}
		if !resume {
			j, err := journal.Create(path, s)
			if errors.Is(err, journal.ErrExists) {
				return nil, nil, fmt.Errorf("%w: --state %s already holds a job: add --resume to continue it, or remove it", coordinator.ErrUsage, path)
			}
			if err != nil {
				return nil, nil, fmt.Errorf("--state %s: %w", path, err)
			}
			*opened = j
			return journalCommits{j}, nil, nil
		}
		j, rp, err := journal.Open(path, s)
		switch {
		case errors.Is(err, journal.ErrSettingsMismatch), errors.Is(err, journal.ErrCorrupt):
			return nil, nil, fmt.Errorf("%w: --resume refused: %v", coordinator.ErrUsage, err)
		case err != nil:
			return nil, nil, fmt.Errorf("--resume %s: %w", path, err)
		}
		if rp.Repaired != nil {
			log.Warn("journal torn tail truncated", "offset", rp.Repaired.Offset, "dropped_bytes", rp.Repaired.Dropped, "reason", rp.Repaired.Reason)
		}
		restored := make(map[int]solver.Counts, len(rp.Records))
		for _, r := range rp.Records {
			restored[r.Index] = solver.Counts{Total: r.Total, Unique: r.Unique, Nodes: r.Nodes}
		}
		log.Info("resuming", "state", path, "committed_tasks", len(restored), "tasks", len(p.Tasks))
		*opened = j
		return journalCommits{j}, restored, nil
	}
}
