package coordinator

import (
	"context"
	"testing"

	nqueenspb "github.com/nqueens/nqueens/proto/nqueens/v1"
)

// TestLyingWorkerQuarantined: a worker that reports wrong counts gets them
// committed first, is caught by --verify-fraction 1, quarantined and
// drained; the total stays exact.
func TestLyingWorkerQuarantined(t *testing.T) {
	checkLeaks(t)
	cfg := testConfig(10, 0)
	cfg.VerifyFraction = 1
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
	if s.Quarantined != 1 || s.Conflicts == 0 || s.Verified < uint64(s.Tasks) {
		t.Errorf("quarantined %d, conflicts %d, verified %d of %d tasks; want 1, at least 1, all", s.Quarantined, s.Conflicts, s.Verified, s.Tasks)
	}
	for _, err := range wait() {
		if err != nil {
			t.Errorf("honest worker: %v", err)
		}
	}
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
