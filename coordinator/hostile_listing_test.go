package coordinator

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/nqueens/nqueens/internal/packed"
	"github.com/nqueens/nqueens/listing"
	nqueenspb "github.com/nqueens/nqueens/proto/nqueens/v1"
	"github.com/nqueens/nqueens/render"
	"github.com/nqueens/nqueens/solver"
)

// hostileFDSlack is how many file descriptors the process may gain while
// the spill churn runs: the attacker's connection (two ends, in this
// process), gRPC's and the runtime's odds and ends, and a few spill files
// in flight. Before the fix every cycle kept one more (20,000 in 8 s).
const hostileFDSlack = 32

// TestHostileSpillChurn: a worker with the token streams
// one valid batch per lease, releases the lease, repeats. Each released
// attempt must give its spill file back at once, so the process's open
// files stay flat; the session is cut off (ResourceExhausted) after
// listing.DefaultMaxAbandoned such attempts, each time it comes back; and
// the job, finished by honest workers, lists N=10's 724 solutions byte for
// byte as the sequential backtracker does.
func TestHostileSpillChurn(t *testing.T) {
	checkLeaks(t)
	cycles := 3000
	if *longTests {
		cycles = 200_000
	}
	const n = 10
	dir := t.TempDir()
	cfg := testConfig(n, 0)
	cfg.Depth = 3
	cfg.SpillDir = dir
	out := filepath.Join(dir, "out.txt")
	listTo(t, &cfg, out, render.Cols)
	r := startJob(t, context.Background(), cfg)

	conn, err := grpc.NewClient(r.addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	client := nqueenspb.NewCoordinatorServiceClient(conn)
	churn := &spillChurner{t: t, client: client, n: n, reps: make(map[string][]byte)}
	// A first cycle opens the connection; count from there.
	done, err := churn.session(1)
	if done != 1 || err != nil {
		t.Fatalf("first session: %d cycles, %v; want 1, nil", done, err)
	}
	baseline := openFDs()
	if baseline < 0 {
		t.Skip("cannot count open files: no /proc/self/fd")
	}
	stop := make(chan struct{})
	var peak peakCounter
	var sampler sync.WaitGroup
	sampler.Go(func() {
		for {
			peak.observe(openFDs(), spillFiles(dir))
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
			}
		}
	})
	sessions, cut := 1, 0
	for done < cycles {
		got, err := churn.session(cycles - done)
		done += got
		sessions++
		if done < cycles && status.Code(err) != codes.ResourceExhausted {
			close(stop)
			sampler.Wait()
			t.Fatalf("session %d ended after %d cycles with %v, want ResourceExhausted", sessions, got, err)
		}
		if status.Code(err) == codes.ResourceExhausted {
			cut++
		}
	}
	close(stop)
	sampler.Wait()
	if p := r.job.pub.OpenFiles(); p != 0 {
		t.Errorf("%d spill files open after the attacker left, want 0", p)
	}
	t.Logf("%d cycles in %d sessions, %d cut off; open files: %d at the start, at most %d; spill files at most %d",
		done, sessions, cut, baseline, peak.fds, peak.spills)
	if peak.fds > baseline+hostileFDSlack {
		t.Errorf("open files rose from %d to %d during %d batch-and-release cycles, want at most %d more", baseline, peak.fds, done, hostileFDSlack)
	}
	if peak.spills > 4 {
		t.Errorf("%d spill files at once from one attacker, want at most 4", peak.spills)
	}
	if want := (done - 1) / (listing.DefaultMaxAbandoned + 1); cut < want {
		t.Errorf("%d cycles cut off %d sessions, want %d (one each %d abandoned attempts)", done, cut, want, listing.DefaultMaxAbandoned)
	}

	wait := startWorkers(context.Background(), r.addr, r.addr)
	s, err := r.wait(t)
	checkTotal(t, s, err, n)
	for _, err := range wait() {
		if err != nil {
			t.Errorf("honest worker: %v", err)
		}
	}
	checkListing(t, out, n, false, render.Cols)
	if s.Rejected != 0 {
		t.Errorf("Rejected = %d: the attacker's batches were valid", s.Rejected)
	}
}

// spillChurner is the attacker of TestHostileSpillChurn, built on the
// generated stubs: per lease one valid batch (the task's first
// representative), then Release and one more credit.
type spillChurner struct {
	t      *testing.T
	client nqueenspb.CoordinatorServiceClient
	n      int
	reps   map[string][]byte // first representative by prefix, nil if none
}

// session joins and churns until the coordinator ends the stream, and
// returns the cycles done and the stream's status; or until max cycles are
// done, and then it leaves and returns nil.
func (c *spillChurner) session(max int) (int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	jr, err := c.client.Join(ctx, &nqueenspb.JoinRequest{Name: "churner", Slots: 1, SolverVersion: solver.Version})
	if err != nil {
		c.t.Fatalf("Join: %v", err)
	}
	stream, err := c.client.Work(ctx)
	if err != nil {
		c.t.Fatalf("Work: %v", err)
	}
	send := func(m *nqueenspb.WorkRequest) error { return stream.Send(m) }
	ready := func(credits uint32) error {
		return send(&nqueenspb.WorkRequest{Msg: &nqueenspb.WorkRequest_Ready{Ready: &nqueenspb.Ready{WorkerId: jr.GetWorkerId(), Credits: credits}}})
	}
	if err := ready(1); err != nil {
		return 0, err
	}
	done := 0
	for {
		m, err := stream.Recv()
		if err != nil {
			return done, err
		}
		a := m.GetAssign()
		if a == nil {
			continue
		}
		rep := c.first(a.GetPrefix())
		if rep == nil { // nothing to stream: keep the lease, ask for another
			if err := ready(1); err != nil {
				return done, err
			}
			continue
		}
		if done == max {
			return done, nil // cancel ends the stream
		}
		batch := &nqueenspb.SolutionBatch{TaskId: a.GetTaskId(), LeaseId: a.GetLeaseId(), Seq: 0, Count: 1, Packed: rep}
		release := &nqueenspb.Release{LeaseIds: []uint64{a.GetLeaseId()}}
		for _, m := range []*nqueenspb.WorkRequest{
			{Msg: &nqueenspb.WorkRequest_SolutionBatch{SolutionBatch: batch}},
			{Msg: &nqueenspb.WorkRequest_Release{Release: release}},
		} {
			if err := send(m); err != nil {
				return done, recvErr(stream, err)
			}
		}
		done++
		if err := ready(1); err != nil {
			return done, recvErr(stream, err)
		}
	}
}

// recvErr is the stream's status once a Send failed (Send reports only
// io.EOF; Recv tells why).
func recvErr(stream nqueenspb.CoordinatorService_WorkClient, _ error) error {
	for {
		if _, err := stream.Recv(); err != nil {
			return err
		}
	}
}

// first returns the first representative of the task prefix, packed, or
// nil when the task has none.
func (c *spillChurner) first(prefix []uint32) []byte {
	key := fmt.Sprint(prefix)
	if rep, ok := c.reps[key]; ok {
		return rep
	}
	p := make([]int, len(prefix))
	for i, x := range prefix {
		p[i] = int(x)
	}
	var rep []byte
	if _, err := solver.ListTask(c.n, solver.Task{Prefix: p}, func(cols []int) bool {
		rep = packed.Append(nil, cols)
		return false
	}); err != nil {
		c.t.Fatalf("ListTask(%v): %v", p, err)
	}
	c.reps[key] = rep
	return rep
}

// peakCounter keeps the largest counts seen.
type peakCounter struct {
	fds, spills int
}

func (p *peakCounter) observe(fds, spills int) {
	p.fds, p.spills = max(p.fds, fds), max(p.spills, spills)
}

// openFDs counts the process's open file descriptors, or returns -1 when
// it cannot.
func openFDs() int {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	return len(entries)
}

// spillFiles counts the attempt files in the job's spill folder under dir.
func spillFiles(dir string) int {
	files, _ := filepath.Glob(filepath.Join(dir, "nqueens-spill-*", "task-*.sol"))
	return len(files)
}

// TestHostileSpillExpired: an attempt whose lease expires (the worker
// streamed, then went silent) gives its spill file back when the Cancel
// goes out, not when the stream ends; so does one whose batch is rejected.
func TestHostileSpillExpired(t *testing.T) {
	checkLeaks(t)
	const n = 10
	dir := t.TempDir()
	clock := newFakeClock()
	cfg := testConfig(n, 0)
	cfg.Depth = 3
	cfg.clock = clock
	cfg.SweepInterval = 5 * time.Millisecond
	cfg.SpillDir = dir
	out := filepath.Join(dir, "out.txt")
	listTo(t, &cfg, out, render.Cols)
	r := startJob(t, context.Background(), cfg)
	churn := &spillChurner{t: t, n: n, reps: make(map[string][]byte)}

	c := dialRaw(t, r.addr)
	c.ready(uint32(r.job.plan.Len()))
	var streamed []*nqueenspb.Assign
	for len(streamed) < 2 {
		a := c.next("assign").GetAssign()
		rep := churn.first(a.GetPrefix())
		if rep == nil {
			continue
		}
		c.send(&nqueenspb.WorkRequest{Msg: &nqueenspb.WorkRequest_SolutionBatch{SolutionBatch: &nqueenspb.SolutionBatch{
			TaskId: a.GetTaskId(), LeaseId: a.GetLeaseId(), Count: 1, Packed: rep}}})
		streamed = append(streamed, a)
	}
	waitFor(t, "two spill files", func() bool { return spillFiles(dir) == 2 })
	// A second batch that repeats the first is invalid: rejected, its file
	// goes at once.
	a := streamed[0]
	c.send(&nqueenspb.WorkRequest{Msg: &nqueenspb.WorkRequest_SolutionBatch{SolutionBatch: &nqueenspb.SolutionBatch{
		TaskId: a.GetTaskId(), LeaseId: a.GetLeaseId(), Seq: 1, Count: 1, Packed: churn.first(a.GetPrefix())}}})
	waitFor(t, "the rejected attempt's file removed", func() bool { return spillFiles(dir) == 1 })
	// The rest expire with the clock: every file goes while the stream is
	// still open.
	clock.Advance(cfg.Lease + time.Second)
	waitFor(t, "the expired attempt's file removed", func() bool { return spillFiles(dir) == 0 && r.job.pub.OpenFiles() == 0 })
	c.close()

	wait := startWorkers(context.Background(), r.addr)
	s, err := r.wait(t)
	checkTotal(t, s, err, n)
	wait()
	checkListing(t, out, n, false, render.Cols)
}
