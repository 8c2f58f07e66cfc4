package main

import (
	"errors"
	"fmt"
	"io/fs"
	"iter"
	"os"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/nqueens/nqueens/coordinator"
	"github.com/nqueens/nqueens/journal"
	"github.com/nqueens/nqueens/solver"
)

// journalCommits adapts a journal.Journal to coordinator.Journal.
type journalCommits struct{ j *journal.Journal }

func (c journalCommits) Commit(index int, k solver.Counts, worker uint64) error {
	return c.j.Queue(journal.Record{Index: index, Total: k.Total, Unique: k.Unique, Nodes: k.Nodes, Worker: worker})
}

// CommitRun writes a run's commits as one journal record.
func (c journalCommits) CommitRun(first int, cs []solver.Counts, worker uint64) error {
	rs := make([]journal.Record, len(cs))
	for i, k := range cs {
		rs[i] = journal.Record{Index: first + i, Total: k.Total, Unique: k.Unique, Nodes: k.Nodes, Worker: worker}
	}
	return c.j.QueueRun(rs)
}

func (c journalCommits) Sync() error { return c.j.Sync() }

func (c journalCommits) Distrust(worker uint64) error { return c.j.Distrust(worker) }

func (c journalCommits) Split(sp coordinator.Split) error {
	return c.j.Split(journal.Split{Parent: sp.Parent, First: sp.First, Count: sp.Count, Reopen: sp.Reopen})
}

// stateOpener returns the coordinator's OpenJournal hook for --state PATH
// (and --resume): it creates the journal for a fresh run, or opens it and
// replays the committed results for a resumed one. A journal of another
// job, a corrupt one, or a fresh run over an existing file are usage
// errors (exit 2). *opened receives the journal so main can close it.
func stateOpener(path string, resume bool, log hclog.Logger, onSync func(time.Duration), opened **journal.Journal) func(solver.Plan) (coordinator.Resumed, error) {
	return func(p solver.Plan) (coordinator.Resumed, error) {
		var none coordinator.Resumed
		s := journal.Settings{
			N: p.N, Depth: p.Depth, Kind: uint8(p.Kind), Fingerprint: p.Fingerprint(),
			SolverVersion: solver.Version, Tasks: p.Len(),
		}
		if !resume {
			j, err := journal.Create(path, s)
			if errors.Is(err, journal.ErrExists) {
				return none, fmt.Errorf("%w: --state %s already holds a job: add --resume to continue it, or remove it", coordinator.ErrUsage, path)
			}
			if errors.Is(err, journal.ErrLocked) {
				return none, inUse(path)
			}
			if err != nil {
				return none, fmt.Errorf("--state %s: %w", path, err)
			}
			log.Info("journal created", "state", path, "tasks", p.Len())
			j.ObserveSync(onSync)
			*opened = j
			return coordinator.Resumed{Journal: journalCommits{j}}, nil
		}
		j, rp, err := journal.Resume(path, s) // the results are read from the file's bytes, not held
		switch {
		case errors.Is(err, journal.ErrSettingsMismatch), errors.Is(err, journal.ErrCorrupt):
			return none, fmt.Errorf("%w: --resume refused: %v", coordinator.ErrUsage, err)
		case errors.Is(err, journal.ErrLocked):
			return none, inUse(path)
		case errors.Is(err, fs.ErrNotExist):
			return none, fmt.Errorf("%w: --resume: --state %s does not exist", coordinator.ErrUsage, path)
		case err != nil:
			return none, fmt.Errorf("--resume %s: %w", path, err)
		}
		if rp.Repaired != nil {
			log.Warn("journal torn tail truncated", "offset", rp.Repaired.Offset, "dropped_bytes", rp.Repaired.Dropped, "reason", rp.Repaired.Reason)
		}
		if c := rp.Compacted; c != nil && c.Err != nil {
			log.Warn("journal not compacted; resuming it as it is", "bytes", c.Before, "error", c.Err)
		} else if c != nil {
			log.Info("journal compacted", "bytes_before", c.Before, "bytes_after", c.After)
		}
		log.Info("resuming", "state", path, "committed_tasks", j.Len(), "tasks", p.Len())
		j.ObserveSync(onSync)
		*opened = j
		return coordinator.Resumed{Journal: journalCommits{j}, Results: results(rp.Results()), Entries: entries(rp.Entries()), ReadErr: rp.Err}, nil
	}
}

// entries converts the journal's entries to the ones New replays; it
// reads them as it goes.
func entries(es iter.Seq[journal.Entry]) iter.Seq[coordinator.JournalEntry] {
	return func(yield func(coordinator.JournalEntry) bool) {
		for e := range es {
			sp := coordinator.Split{Parent: e.Split.Parent, First: e.Split.First, Count: e.Split.Count, Reopen: e.Split.Reopen}
			r := e.Result
			c := solver.Counts{Total: r.Total, Unique: r.Unique, Nodes: r.Nodes}
			if !yield(coordinator.JournalEntry{IsSplit: e.IsSplit, Split: sp, Result: coordinator.JournalResult{Index: r.Index, Counts: c, Worker: r.Worker}}) {
				return
			}
		}
	}
}

// results converts the journal's records to the results New restores; it
// reads them as it goes.
func results(records iter.Seq[journal.Record]) iter.Seq[coordinator.JournalResult] {
	return func(yield func(coordinator.JournalResult) bool) {
		for r := range records {
			if !yield(coordinator.JournalResult{Index: r.Index, Counts: solver.Counts{Total: r.Total, Unique: r.Unique, Nodes: r.Nodes}, Worker: r.Worker}) {
				return
			}
		}
	}
}

// inUse is the usage error for a --state another coordinator holds.
func inUse(path string) error {
	return fmt.Errorf("%w: --state %s is in use by another coordinator", coordinator.ErrUsage, path)
}

// resolveResume sets lo.resume from --resume: on for --resume, and for
// --resume=auto when --state names a file that holds anything. A missing
// file, or an empty one (what a coordinator killed while creating the
// journal leaves, and which journal.Create takes over), means a fresh start.
// Anything else, even a corrupt or foreign journal, is resumed, so that
// resumeFrom refuses it with one line rather than a new job replacing it.
func resolveResume(lo *processOptions) error {
	lo.resume = lo.resumeMode == resumeOn
	if err := regularState(lo.state); err != nil {
		return err
	}
	if lo.resumeMode != resumeAuto || lo.state == "" {
		return nil // --resume without --state is refused with the other combinations
	}
	fi, err := os.Stat(lo.state)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("--resume=auto: %v", err)
	}
	lo.resume = fi.Size() > 0
	return nil
}

// regularState refuses a --state that exists and is not a regular file:
// a FIFO would block the first read of it for ever, and the coordinator
// with it, deaf to SIGTERM; a directory or a device is no
// journal either. A symbolic link to a regular file is fine.
func regularState(path string) error {
	if path == "" {
		return nil
	}
	fi, err := os.Stat(path) // does not open it: never blocks
	if err != nil || fi.Mode().IsRegular() {
		return nil // a missing file is created or reported later
	}
	return fmt.Errorf("--state %s is not a regular file (%s): give the path of a journal file", path, kindOfFile(fi.Mode()))
}

// kindOfFile names a file's type for an error line.
func kindOfFile(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "mode " + m.String()
}

// resumeFrom fills in N, depth and kind for --resume from the journal's
// header, so "--resume --state F" alone continues the job F holds. A flag
// that contradicts the journal is refused with a line that names it; a
// missing or unreadable journal is a usage error too (exit 2). The plan's
// fingerprint and solver version are checked when the journal is opened.
//
// Under --resume=auto (a container restarted by its runtime) the journal's
// N and depth win over contradicting flags instead: refusing would exit 2
// on every restart, a loop; the returned notice says what was kept.
func resumeFrom(cfg *options, lo processOptions) (notice string, err error) {
	path := lo.state
	s, err := journal.ReadSettings(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("--resume: --state %s does not exist (start the job without --resume)", path)
	case errors.Is(err, journal.ErrCorrupt):
		return "", fmt.Errorf("--resume refused: %v", err)
	case err != nil:
		return "", fmt.Errorf("--resume: %v", err)
	}
	nBad := lo.given["n"] && cfg.N != s.N
	depthBad := cfg.Depth != coordinator.AutoDepth && cfg.Depth != s.Depth
	switch {
	case (nBad || depthBad) && lo.resumeMode == resumeAuto:
		notice = fmt.Sprintf("--state %s holds n=%d depth %d, not the --n %d --depth %s asked for: resuming the journal's job (--resume=auto); remove the journal to start the new one", path, s.N, s.Depth, cfg.N, depthFlag{&cfg.Depth}.String())
		cfg.Depth = coordinator.AutoDepth // the journal's, set by resumeKind
	case nBad:
		return "", fmt.Errorf("--n %d contradicts --state %s, which holds n=%d (drop --n to resume it)", cfg.N, path, s.N)
	case depthBad:
		return "", fmt.Errorf("--depth %d contradicts --state %s, which holds depth %d (drop --depth to resume it)", cfg.Depth, path, s.Depth)
	}
	cfg.N = s.N
	return notice, resumeKind(cfg, path, s)
}

// resumeKind takes the engine, depth and kind of the journaled job s, or
// refuses flags that ask for another kind.
func resumeKind(cfg *options, path string, s journal.Settings) error {
	held, err := resumeEngine(cfg, path, solver.Kind(s.Kind))
	if err != nil {
		return err
	}
	if held == solver.KindJoin {
		held = solver.KindCount // a count, by the join: its plan has no depth
	} else {
		cfg.Depth = s.Depth
	}
	want := kindOf(*cfg)
	switch {
	case held == want:
	case held == solver.KindCount:
		return fmt.Errorf("--state %s holds a count: a resumed count cannot list solutions (drop --solutions, --png, --svg, --sheet and --unique)", path)
	case want == solver.KindCount:
		return fmt.Errorf("--state %s holds a listing (kind %s): resume it with the same --solutions, --png, --svg or --sheet flags", path, coordinator.KindName(held))
	default:
		return fmt.Errorf("--state %s holds a listing of kind %s, these flags ask for kind %s (check --unique)", path, coordinator.KindName(held), coordinator.KindName(want))
	}
	return nil
}

// resumeEngine sets --engine to the engine of the journaled count: a
// journal of one engine is never resumed as the other (their plans'
// fingerprints differ, so journal.Resume would refuse it with a vaguer
// line). It returns the journal's kind.
func resumeEngine(cfg *options, path string, held solver.Kind) (solver.Kind, error) {
	switch {
	case held == solver.KindJoin && cfg.Engine == coordinator.EngineBacktrack:
		return held, fmt.Errorf("--engine backtrack contradicts --state %s, which holds a count by the join engine (drop --engine to resume it)", path)
	case held == solver.KindJoin:
		cfg.Engine = coordinator.EngineJoin
	case held == solver.KindCount && cfg.Engine == coordinator.EngineJoin:
		return held, fmt.Errorf("--engine join contradicts --state %s, which holds a count by the backtracker (drop --engine to resume it)", path)
	case held == solver.KindCount:
		cfg.Engine = coordinator.EngineBacktrack
	}
	return held, nil
}

// kindOf is the plan kind cfg asks for (as coordinator.Run decides it).
func kindOf(cfg options) solver.Kind {
	switch {
	case cfg.Unique:
		return solver.KindUnique
	case cfg.Solutions != "" || cfg.PNGDir != "" || cfg.SVGDir != "" || cfg.SheetPath != "":
		return solver.KindAll
	}
	return solver.KindCount
}
