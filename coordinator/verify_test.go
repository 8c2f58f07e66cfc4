package coordinator

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/nqueens/nqueens/journal"
	nqueenspb "github.com/nqueens/nqueens/proto/nqueens/v1"
	"github.com/nqueens/nqueens/render"
	"github.com/nqueens/nqueens/solver"
)

// TestLyingWorkerQuarantined: a worker that reports wrong counts gets them
// committed first, is caught by --verify-fraction 1, quarantined and
// drained; the total stays exact.
func TestLyingWorkerQuarantined(t *testing.T) {
	checkLeaks(t)
	cfg := testConfig(10, 0)
	cfg.VerifyFraction = 1
	s := countWithLiar(t, cfg)
	if s.Quarantined != 1 || s.Conflicts == 0 || s.Verified < uint64(s.Tasks) {
		t.Errorf("quarantined %d, conflicts %d, verified %d of %d tasks; want 1, at least 1, all", s.Quarantined, s.Conflicts, s.Verified, s.Tasks)
	}
}

// countWithLiar runs the N=10 count of cfg with a raw worker that commits
// two results 2 solutions too high, then two honest workers; the liar
// must be drained and the total exact.
func countWithLiar(t *testing.T, cfg Config) Summary {
	t.Helper()
	r := startJob(t, context.Background(), cfg)
	liar := dialRaw(t, r.addr)
	liar.ready(2)
	assigns := []*nqueenspb.Assign{liar.next("assign").GetAssign(), liar.next("assign").GetAssign()}
	for _, a := range assigns {
		res := countResult(t, a)
		res.Total += 2
		liar.result(res)
		if got := liar.next("ack").GetAck().GetOutcome(); got != nqueenspb.Ack_OUTCOME_COMMITTED {
			t.Fatalf("the liar's first result: %v, want COMMITTED", got)
		}
	}
	wait := startWorkers(context.Background(), r.addr, r.addr)
	if d := liar.next("drain").GetDrain(); d == nil {
		t.Error("the liar was not drained")
	}
	s, err := r.wait(t)
	checkTotal(t, s, err, 10)
	for _, err := range wait() {
		if err != nil {
			t.Errorf("honest worker: %v", err)
		}
	}
	return s
}

// recordJournal is cmd/nqueens-coordinator's adapter of a real journal, for tests.
type recordJournal struct{ j *journal.Journal }

func (r recordJournal) Commit(index int, c solver.Counts, worker uint64) error {
	return r.j.Queue(journal.Record{Index: index, Total: c.Total, Unique: c.Unique, Nodes: c.Nodes, Worker: worker})
}

func (r recordJournal) CommitRun(first int, cs []solver.Counts, worker uint64) error {
	return r.j.QueueRun(runRecords(first, cs, worker))
}

// runRecords is a run's counts as journal records, as cmd/nqueens-coordinator
// writes them.
func runRecords(first int, cs []solver.Counts, worker uint64) []journal.Record {
	rs := make([]journal.Record, len(cs))
	for i, c := range cs {
		rs[i] = journal.Record{Index: first + i, Total: c.Total, Unique: c.Unique, Nodes: c.Nodes, Worker: worker}
	}
	return rs
}

func (r recordJournal) Sync() error { return r.j.Sync() }

func (r recordJournal) Distrust(worker uint64) error { return r.j.Distrust(worker) }

func (r recordJournal) Split(sp Split) error {
	return r.j.Split(journal.Split{Parent: sp.Parent, First: sp.First, Count: sp.Count})
}

// TestLyingWorkerJournaled: with --state, a quarantined worker's commits
// leave the journal, including the ones it made before it was caught and
// the ones whose fsync was still under way: every replayed result is the
// truth, and a resumed run gives the exact total.
func TestLyingWorkerJournaled(t *testing.T) {
	checkLeaks(t)
	path := filepath.Join(t.TempDir(), "state")
	var plan solver.Plan
	settings := func(p solver.Plan) journal.Settings {
		return journal.Settings{N: p.N, Depth: p.Depth, Kind: uint8(p.Kind), Fingerprint: p.Fingerprint(), SolverVersion: solver.Version, Tasks: p.Len()}
	}
	var jr *journal.Journal
	cfg := testConfig(10, 0)
	cfg.VerifyFraction = 1
	cfg.OpenJournal = func(p solver.Plan) (Resumed, error) {
		plan = p
		j, err := journal.Create(path, settings(p))
		jr = j
		return Resumed{Journal: recordJournal{j}}, err
	}
	s := countWithLiar(t, cfg)
	if s.Quarantined != 1 {
		t.Fatalf("quarantined %d, want 1", s.Quarantined)
	}
	jr.Close()

	rp, err := journal.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	var restored []JournalResult
	for _, rec := range rp.Records {
		truth, err := solver.CountTask(plan.N, solver.Task{Index: rec.Index, Prefix: plan.Prefix(rec.Index)})
		if err != nil || rec.Total != truth.Total || rec.Unique != truth.Unique {
			t.Errorf("journal keeps task %d as %d total, %d unique; the truth is %d, %d (%v)", rec.Index, rec.Total, rec.Unique, truth.Total, truth.Unique, err)
		}
		restored = append(restored, JournalResult{Index: rec.Index, Counts: solver.Counts{Total: rec.Total, Unique: rec.Unique, Nodes: rec.Nodes}, Worker: rec.Worker})
	}
	if len(restored) == plan.Len() {
		t.Errorf("the journal holds every task: the liar's verified task should have left it")
	}
	resumed := testConfig(10, 2)
	resumed.Depth = plan.Depth // a resume runs the journal's plan (the command reads it from the journal)
	resumed.Restored = slices.Values(restored)
	checkTotal(t, runJob(t, resumed), nil, 10)
}

// TestVerifyAlone: with one worker, the coordinator verifies the sampled
// tasks itself.
func TestVerifyAlone(t *testing.T) {
	checkLeaks(t)
	cfg := testConfig(9, 1)
	cfg.VerifyFraction = 0.5
	s := runJob(t, cfg)
	checkTotal(t, s, nil, 9)
	if s.Verified == 0 || s.Verified >= uint64(s.Tasks) || s.Quarantined != 0 {
		t.Errorf("verified %d of %d tasks, quarantined %d; want about half, none", s.Verified, s.Tasks, s.Quarantined)
	}
}

// TestLyingListerQuarantined: in a listing, a worker that leaves out a
// class representative and reports counts to match passes the batch
// checks and commits; --verify-fraction 1 catches it, the task is listed
// again by an honest worker, and the file is exact.
func TestLyingListerQuarantined(t *testing.T) {
	checkLeaks(t)
	dir := t.TempDir()
	cfg := testConfig(10, 0)
	cfg.Depth = 0 // one task: the liar's
	cfg.VerifyFraction = 1
	out := filepath.Join(dir, "out.txt")
	listTo(t, &cfg, out, render.Cols)
	cfg.SpillDir = dir
	logger, logs := bufLogger()
	r := startJobLog(t, context.Background(), cfg, logger)
	defer func() {
		if t.Failed() {
			t.Log(logs.String())
		}
	}()
	liar := dialRaw(t, r.addr)
	liar.ready(1)
	a := liar.next("assign").GetAssign()
	// The lie: the 11th class representative is left out.
	var packed []byte
	var sent solver.Counts
	_, err := solver.ListTask(10, solver.Task{}, func(cols []int) bool {
		if sent.Unique++; sent.Unique == 11 {
			sent.Unique--
			return true
		}
		for _, c := range cols {
			packed = append(packed, byte(c))
		}
		sent.Total += uint64(solver.ClassSize(cols))
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	liar.send(&nqueenspb.WorkRequest{Msg: &nqueenspb.WorkRequest_SolutionBatch{SolutionBatch: &nqueenspb.SolutionBatch{
		TaskId: a.GetTaskId(), LeaseId: a.GetLeaseId(), Count: uint32(len(packed) / 10), Packed: packed}}})
	liar.result(&nqueenspb.Result{TaskId: a.GetTaskId(), LeaseId: a.GetLeaseId(), Total: sent.Total, Unique: sent.Unique})
	// The coordinator may recount the one task itself and drain the liar
	// before its Ack goes out: the Drain can come first.
	drained := false
	for {
		m := liar.nextOf("ack", "drain")
		if m.GetDrain() != nil {
			drained = true
			continue
		}
		if got := m.GetAck().GetOutcome(); got != nqueenspb.Ack_OUTCOME_COMMITTED {
			t.Fatalf("the liar's result: %v, want COMMITTED", got)
		}
		break
	}
	wait := startWorkers(context.Background(), r.addr)
	if !drained && liar.next("drain").GetDrain() == nil {
		t.Error("the liar was not drained")
	}
	s, err := r.wait(t)
	checkTotal(t, s, err, 10)
	if s.Quarantined != 1 || s.Verified == 0 {
		t.Errorf("quarantined %d, verified %d; want 1, at least 1", s.Quarantined, s.Verified)
	}
	checkListing(t, out, 10, false, render.Cols)
	for _, err := range wait() {
		if err != nil {
			t.Errorf("honest worker: %v", err)
		}
	}
}

// TestVerifiedListing: with honest workers and half the tasks verified,
// the listing waits for the verifications and comes out exact.
func TestVerifiedListing(t *testing.T) {
	checkLeaks(t)
	dir := t.TempDir()
	cfg := testConfig(9, 3)
	cfg.VerifyFraction = 0.5
	out := filepath.Join(dir, "out.txt")
	listTo(t, &cfg, out, render.Cols)
	cfg.SpillDir = dir
	s := runJob(t, cfg)
	checkTotal(t, s, nil, 9)
	if s.Verified == 0 || s.Quarantined != 0 {
		t.Errorf("verified %d, quarantined %d; want some, none", s.Verified, s.Quarantined)
	}
	checkListing(t, out, 9, false, render.Cols)
}
