package sched

import (
	"testing"

	"github.com/nqueens/nqueens/solver"
)

// BenchmarkSchedCommit measures the lease policy alone: one worker with
// 64 credits takes every task of the N=12 depth-4 plan and commits it,
// with the counts computed beforehand, so the figure (tasks/s) is the
// scheduler's own cost per lease and commit, without the wire or the
// solver.
func BenchmarkSchedCommit(b *testing.B) {
	for _, runs := range []bool{false, true} {
		name := "single"
		if runs {
			name = "runs"
		}
		b.Run(name, func(b *testing.B) { benchCommit(b, runs) })
	}
}

func benchCommit(b *testing.B, runs bool) {
	plan, err := solver.NewPlan(12, 4, solver.KindCount)
	if err != nil {
		b.Fatal(err)
	}
	truth := make([]solver.Counts, plan.Len())
	for i := range truth {
		if truth[i], err = solver.CountTask(plan.N, plan.Tasks[i]); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	tasks := 0
	for range b.N {
		s := NewScheduler(Options{Plan: plan, Clock: newFakeClock(), NoSplit: true})
		rec := &recorder{}
		sess, err := s.Join(JoinRequest{Name: "bench", Slots: 1})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.Attach(sess.ID(), "127.0.0.1:1", 64, runs, func(bool) Mailbox { return rec }); err != nil {
			b.Fatal(err)
		}
		for as := rec.fresh(); len(as) > 0; as = rec.fresh() {
			for _, a := range as {
				r := Report{Task: a.Task, Lease: a.Lease, Counts: truth[a.Task.Index]}
				if a.Run > 1 {
					r.Counts = solver.Counts{}
					for i := range a.Run {
						c := truth[a.Task.Index+i]
						r.Run = append(r.Run, c)
						r.Counts = solver.Counts{Total: r.Counts.Total + c.Total, Unique: r.Counts.Unique + c.Unique, Nodes: r.Counts.Nodes + c.Nodes}
					}
				}
				if v := s.Result(sess, r); v.Outcome != OutcomeCommitted {
					b.Fatalf("task %d: outcome %d (%s)", a.Task.Index, v.Outcome, v.Reason)
				}
				s.Ready(sess, 1)
			}
		}
		c, committed, _, err := s.Totals()
		if err != nil || committed != plan.Len() || c.Total != known[12].total {
			b.Fatalf("committed %d of %d, %d solutions, err %v; want all, %d", committed, plan.Len(), c.Total, err, known[12].total)
		}
		tasks += committed
	}
	b.ReportMetric(float64(tasks)/b.Elapsed().Seconds(), "tasks/s")
}
