package browsertest_test

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/nqueens/nqueens/coordinator"
	"github.com/nqueens/nqueens/status"
)

// The fakes of package status's own tests (status/fake_test.go,
// exact_test.go, workers_test.go), copied: this module cannot see them.

// fakeJob is a Source whose snapshots advance: each step commits one more
// of tasks tasks of an N=15 count on two workers, and the last step makes
// it Done with the known total (DESIGN.md §5: 2279184, 285053).
type fakeJob struct {
	mu     sync.Mutex
	step   int
	steps  int
	start  time.Time
	events []coordinator.Event
}

const (
	fakeTotal  = 2279184
	fakeUnique = 285053
	fakeTasks  = 40
	fakeWork   = 4e9
)

func newFakeJob(steps int) *fakeJob {
	f := &fakeJob{steps: steps, start: time.Date(2026, 12, 1, 20, 0, 0, 0, time.UTC)}
	f.addLocked(coordinator.EventJoin, "alpha", "2 slots")
	f.addLocked(coordinator.EventJoin, "beta", "1 slot")
	return f
}

func (f *fakeJob) addLocked(k coordinator.EventKind, w, d string) {
	seq := uint64(len(f.events) + 1)
	f.events = append(f.events, coordinator.Event{Seq: seq, Time: f.start.Add(time.Duration(seq) * time.Second), Kind: k, Worker: w, Detail: d})
}

// Advance moves the job one step on; the last step finishes it.
func (f *fakeJob) Advance() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.step < f.steps {
		f.step++
		if f.step == f.steps/2 {
			f.addLocked(coordinator.EventExpire, "beta", "task 7 lease expired")
		}
		if f.step == f.steps {
			f.addLocked(coordinator.EventDone, "", "every task committed")
		}
	}
}

func (f *fakeJob) Status() coordinator.Status {
	f.mu.Lock()
	defer f.mu.Unlock()
	frac := float64(f.step) / float64(f.steps)
	done := f.step == f.steps
	committed := int(frac * fakeTasks)
	sols, uniq := uint64(frac*fakeTotal), uint64(frac*fakeUnique)
	if done {
		sols, uniq = fakeTotal, fakeUnique
	}
	busy := time.Duration(f.step) * time.Second
	s := coordinator.Status{
		Summary: coordinator.Summary{
			N: 15, Kind: "count", Solutions: sols, Unique: uniq, Tasks: fakeTasks, Committed: committed, Depth: 3,
			Workers: 2, Nodes: uint64(frac * fakeWork), ElapsedSeconds: busy.Seconds() + 0.5, BusySeconds: busy.Seconds(), Leased: uint64(committed + 3),
			Requeued: 1, Runs: 3, Expired: 1, Rejected: 2, Conflicts: 0, Quarantined: 0, Complete: done,
		},
		Queued: fakeTasks - committed - min(3, fakeTasks-committed), Leased: min(3, fakeTasks-committed),
		Started: f.start, Busy: busy, WorkDone: frac * fakeWork, WorkTotal: fakeWork, Done: done,
		Workers: []coordinator.WorkerStatus{
			{ID: "w1", Name: "alpha", Addr: "127.0.0.1:40001", Version: "v1.2.3 (rev abc)", Slots: 2, Leases: 2,
				Tasks: uint64(committed * 2 / 3), Nodes: uint64(frac * fakeWork * 2 / 3), Joined: f.start, LastSeen: f.start.Add(busy)},
			{ID: "w2", Name: "beta", Addr: "127.0.0.1:40002", Slots: 1, Leases: 1,
				Tasks: uint64(committed - committed*2/3), Nodes: uint64(frac * fakeWork / 3), Joined: f.start, LastSeen: f.start.Add(busy)},
		},
	}
	return s
}

func (f *fakeJob) Events(after uint64) []coordinator.Event {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []coordinator.Event
	for _, e := range f.events {
		if e.Seq > after {
			out = append(out, e)
		}
	}
	return out
}

// serve starts h on a loopback port for the test's lifetime.
func serve(t *testing.T, h http.Handler) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	addr, done, err := status.Serve(ctx, "127.0.0.1:0", h, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Serve ended with %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Error("Serve did not end 10s after its context")
		}
	})
	return "http://" + addr
}

// N=27's counts (OEIS A000170, A002562): both above 2^53, so a JSON number
// parsed as a float64 (JavaScript, jq) loses their last digits.
const (
	n27Total  = "234907967154122528"
	n27Unique = "29363495934315694"
	n27Nodes  = "9007199254740993" // 2^53 + 1, the first integer a float64 cannot hold
)

// bigJob is the fake job with N=27-sized counts: 3/4 of both totals while
// it runs (so the page's first render shows other digits), the totals
// once done.
type bigJob struct{ *fakeJob }

func (b bigJob) Status() coordinator.Status {
	s := b.fakeJob.Status()
	s.Summary.N = 27
	s.Summary.Solutions, s.Summary.Unique = 234907967154122528/4*3, 29363495934315694/4*3
	if s.Done {
		s.Summary.Solutions, s.Summary.Unique = 234907967154122528, 29363495934315694
	}
	s.Summary.Nodes = 1<<53 + 1
	return s
}

// manyWorkers is the size of the big fake cluster.
const manyWorkers = 1000

// manyJob is the fake job with a thousand attached workers: worker i has
// committed i+1 units of nodes since it joined 100 s ago (so w0000 is the
// slowest), every tenth holds no lease (idle), w0500..w0504 were last
// heard from 11..15 s ago (late) and w0900..w0902 21..23 s ago (silent).
type manyJob struct{ *fakeJob }

func (m manyJob) Status() coordinator.Status {
	s := m.fakeJob.Status()
	now := m.start.Add(100 * time.Second)
	s.Workers = make([]coordinator.WorkerStatus, manyWorkers)
	for i := range s.Workers {
		seen := now
		switch {
		case i >= 500 && i < 505:
			seen = now.Add(-time.Duration(11+i-500) * time.Second)
		case i >= 900 && i < 903:
			seen = now.Add(-time.Duration(21+i-900) * time.Second)
		}
		leases := 1
		if i%10 == 9 {
			leases = 0
		}
		s.Workers[i] = coordinator.WorkerStatus{ID: fmt.Sprintf("x%d", i), Name: fmt.Sprintf("w%04d", i), Addr: "10.0.0.1:40000",
			Version: "v1.2.3 (rev abc)", Slots: 2, Leases: leases, Tasks: uint64(i), Nodes: uint64(i+1) * 1e6,
			Joined: m.start, LastSeen: seen}
	}
	return s
}

// newManyHandler serves manyJob with the clock at its 100th second.
func newManyHandler() http.Handler {
	job := manyJob{newFakeJob(4)}
	return status.NewHandler(job, status.Options{Interval: 100 * time.Millisecond, Now: func() time.Time { return job.start.Add(100 * time.Second) }})
}
