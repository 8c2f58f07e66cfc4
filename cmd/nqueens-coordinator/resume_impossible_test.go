package main

import (
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nqueens/nqueens/journal"
	"github.com/nqueens/nqueens/solver"
)

// impossibleJournal writes a journal for the n=10 count at depth 2 whose
// only record, of task 0, is total 2^64-1 by worker key w.
func impossibleJournal(t *testing.T, path string, w uint64) {
	t.Helper()
	p, err := solver.NewPlan(10, 2, solver.KindCount)
	if err != nil {
		t.Fatal(err)
	}
	j, err := journal.Create(path, journal.Settings{N: p.N, Depth: p.Depth, Kind: uint8(p.Kind), Fingerprint: p.Fingerprint(), SolverVersion: solver.Version, Tasks: len(p.Tasks)})
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Append(journal.Record{Index: 0, Total: math.MaxUint64, Worker: w}); err != nil {
		t.Fatal(err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestResumeImpossibleRecord: a journal holding an
// impossible count (written before the check existed) resumes exact, its
// worker distrusted and its task computed again; one of the coordinator's
// own, which cannot be distrusted, is refused with one line (exit 2).
func TestResumeImpossibleRecord(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(dir, "bad.state")
	impossibleJournal(t, state, 0xbad)
	for run := range 2 { // the second resume replays the repaired journal
		code, stdout, stderr := runCmd("--resume", "--state", state, "--workers", "2", "--json", "--log-level", "off")
		var s struct {
			Solutions, Unique int
			Complete          bool
		}
		if err := json.Unmarshal([]byte(stdout), &s); code != 0 || err != nil || s.Solutions != 724 || s.Unique != 92 || !s.Complete {
			t.Fatalf("resume %d: exit %d, stdout %q, stderr %q; want exit 0, 724 solutions, 92 fundamental, complete", run+1, code, stdout, stderr)
		}
	}
	own := filepath.Join(dir, "own.state")
	impossibleJournal(t, own, 0)
	code, _, stderr := runCmd("--resume", "--state", own, "--workers", "2", "--log-level", "off")
	line := strings.TrimSuffix(stderr, "\n")
	if code != 2 || strings.Contains(line, "\n") || !strings.Contains(line, "task 0") || !strings.Contains(line, "cannot be taken back") {
		t.Errorf("resume of the coordinator's own impossible record: exit %d, stderr %q; want exit 2 and one line naming task 0", code, stderr)
	}
}
