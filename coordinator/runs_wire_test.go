package coordinator

import (
	"context"
	"errors"
	"testing"

	"github.com/hashicorp/go-hclog"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	nqueenspb "github.com/nqueens/nqueens/proto/nqueens/v1"
	"github.com/nqueens/nqueens/solver"
	"github.com/nqueens/nqueens/worker"
)

// Runs of tasks over real gRPC: the wire's half of runs.go.

// runResult computes a leased run honestly, as a worker does.
func runResult(t *testing.T, a *nqueenspb.Assign, job *nqueenspb.Job) *nqueenspb.Result {
	t.Helper()
	plan, err := solver.NewLazyPlan(int(job.GetN()), int(job.GetDepth()), solver.KindCount)
	if err != nil || plan.Fingerprint() != job.GetPlanFingerprint() {
		t.Fatalf("the job's plan: %v (fingerprint %x, want %x)", err, plan.Fingerprint(), job.GetPlanFingerprint())
	}
	res := &nqueenspb.Result{TaskId: a.GetTaskId(), LeaseId: a.GetLeaseId()}
	plan.Prefixes(int(a.GetTaskId().GetIndex()), int(a.GetRun()), func(i int, p []int) bool {
		c, err := solver.CountTask(plan.N, solver.Task{Index: i, Prefix: p})
		if err != nil {
			t.Fatal(err)
		}
		res.RunCounts = append(res.RunCounts, c.Total, c.Unique, c.Nodes)
		res.Total, res.Unique, res.Nodes = res.Total+c.Total, res.Unique+c.Unique, res.Nodes+c.Nodes
		return true
	})
	return res
}

// TestRunsOverTheWire: a worker that asks for runs gets Assigns of
// several tasks without prefixes and commits them with one Result; one
// that does not (worker.Config.NoRuns) gets single tasks; together they
// count the board exactly, with fewer leases than tasks.
func TestRunsOverTheWire(t *testing.T) {
	checkLeaks(t)
	ctx := context.Background()
	cfg := testConfig(12, 0)
	cfg.Depth = 4
	r := startJob(t, ctx, cfg)
	raw := dialRawWith(t, r.addr, "raw-runs", true)
	raw.ready(1)
	a := raw.next("assign").GetAssign()
	if a.GetRun() < 2 || len(a.GetPrefix()) != 0 {
		t.Fatalf("assign to a worker that takes runs: run %d, prefix %v; want a run without a prefix", a.GetRun(), a.GetPrefix())
	}
	raw.result(runResult(t, a, raw.join.GetJob()))
	if ack := raw.next("ack").GetAck(); ack.GetOutcome() != nqueenspb.Ack_OUTCOME_COMMITTED {
		t.Fatalf("honest run: %v (%s), want committed", ack.GetOutcome(), ack.GetReason())
	}
	raw.close()
	errs := make(chan error, 2)
	for i, noRuns := range []bool{true, false} {
		go func() {
			err := worker.Run(ctx, worker.Config{Join: r.addr, Slots: 1 + i, Name: "test", JoinTimeout: workerJoinTimeout, NoRuns: noRuns}, hclog.NewNullLogger())
			if errors.Is(err, worker.ErrJoin) && !errors.Is(err, worker.ErrRefused) {
				err = nil // the other one finished the job first
			}
			errs <- err
		}()
	}
	s, err := r.wait(t)
	checkTotal(t, s, err, 12)
	for range 2 {
		if err := <-errs; err != nil {
			t.Errorf("worker: %v", err)
		}
	}
	if s.Runs == 0 || s.Leased != uint64(s.Tasks)+s.Requeued {
		t.Errorf("%d runs, %d tasks leased, %d requeued, %d tasks; want runs, and each task leased once more per requeue", s.Runs, s.Leased, s.Requeued, s.Tasks)
	}
}

// TestRunResultMalformed: run counts that do not come in threes end the
// session (InvalidArgument); counts of the wrong number of tasks are
// refused, and the run is leased again.
func TestRunResultMalformed(t *testing.T) {
	checkLeaks(t)
	ctx := context.Background()
	cfg := testConfig(10, 0)
	cfg.Depth = 4
	r := startJob(t, ctx, cfg)
	raw := dialRawWith(t, r.addr, "raw-runs", true)
	raw.ready(1)
	a := raw.next("assign").GetAssign()
	res := runResult(t, a, raw.join.GetJob())
	res.RunCounts = res.RunCounts[:len(res.RunCounts)-3] // one task short
	raw.result(res)
	if ack := raw.next("ack").GetAck(); ack.GetOutcome() != nqueenspb.Ack_OUTCOME_REJECTED {
		t.Fatalf("a run one task short: %v (%s), want rejected", ack.GetOutcome(), ack.GetReason())
	}
	raw.ready(1)
	again := raw.next("assign").GetAssign()
	if again.GetTaskId().GetIndex() != a.GetTaskId().GetIndex() {
		t.Fatalf("after a refused run from task %d, task %d was leased; want the run's first again", a.GetTaskId().GetIndex(), again.GetTaskId().GetIndex())
	}
	bad := runResult(t, again, raw.join.GetJob())
	bad.RunCounts = append(bad.RunCounts, 1)
	raw.result(bad)
	<-raw.done
	if status.Code(raw.err) != codes.InvalidArgument {
		t.Fatalf("run counts not in threes: stream ended with %v, want InvalidArgument", raw.err)
	}
	w := startWorkers(ctx, r.addr)
	s, err := r.wait(t)
	checkTotal(t, s, err, 10)
	if errs := w(); errs[0] != nil {
		t.Errorf("worker: %v", errs[0])
	}
}
