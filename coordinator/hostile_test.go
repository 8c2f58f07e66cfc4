package coordinator

import (
	"context"
	"math"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/nqueens/nqueens/coordinator/internal/sched"
	"github.com/nqueens/nqueens/coordinator/internal/wire"
	"github.com/nqueens/nqueens/journal"
	nqueenspb "github.com/nqueens/nqueens/proto/nqueens/v1"
	"github.com/nqueens/nqueens/solver"
)

// The hostile-client suite: each test drives a
// real coordinator on loopback with a misbehaving client built on the
// generated stubs and asserts the bound that keeps the row fixed. D1 is in
// hostile_listing_test.go, D2 and D3 in listener_test.go, D9 to D16 in
// cmd/nqueens-coordinator.

// heapSlack is how much the live heap may grow while a hostile client
// churns after warm-up: gRPC's buffers and the runtime's odds and ends.
// Before the D4 fix every lease kept ~100 bytes (1.4 M leases: 263 MB).
const heapSlack = 2 << 20

// liveHeap is the heap in use after a full collection.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// leaseRecords returns the scheduler's lease records and the live ones,
// read under its lock.
func leaseRecords(s *sched.Scheduler) (records, live int) { return s.Leases() }

// TestHostileLeaseChurn: a worker with the token takes
// leases, releases them and asks for more, over and over. The scheduler
// keeps a record per live lease plus at most sched.MaxEndedLeases ended ones,
// and the heap does not grow with the cycles; honest workers then finish
// the job exact.
func TestHostileLeaseChurn(t *testing.T) {
	checkLeaks(t)
	warm, cycles := sched.MaxEndedLeases+4096, 60_000
	if *longTests {
		cycles = 1_500_000 // the 1.4 M leases, 263 MB before the fix
	}
	const n, per = 10, 64 // leases per round trip
	cfg := testConfig(n, 0)
	cfg.Depth = 3
	r := startJob(t, context.Background(), cfg)
	c := dialRawNamed(t, r.addr, "churner")
	maxRecords, maxLive := 0, 0
	churn := func(leases int) {
		for done := 0; done < leases; done += per {
			c.ready(per)
			ids := make([]uint64, 0, per)
			for range per {
				ids = append(ids, c.next("assign").GetAssign().GetLeaseId())
			}
			records, live := leaseRecords(r.job.sched)
			maxRecords, maxLive = max(maxRecords, records), max(maxLive, live)
			if records > live+sched.MaxEndedLeases {
				t.Fatalf("after %d leases: %d lease records for %d live leases, want at most %d more", done+per, records, live, sched.MaxEndedLeases)
			}
			c.send(&nqueenspb.WorkRequest{Msg: &nqueenspb.WorkRequest_Release{Release: &nqueenspb.Release{LeaseIds: ids}}})
		}
	}
	churn(warm) // the ring of ended leases fills
	before := liveHeap()
	start := time.Now()
	churn(cycles)
	after := liveHeap()
	growth := int64(after) - int64(before)
	t.Logf("%d leases after %d of warm-up in %v: at most %d lease records (%d live); heap %+.2f MB",
		cycles, warm, time.Since(start).Round(time.Millisecond), maxRecords, maxLive, float64(growth)/(1<<20))
	if growth > heapSlack {
		t.Errorf("heap grew by %d bytes over %d lease cycles, want at most %d", growth, cycles, heapSlack)
	}
	if maxLive > per {
		t.Errorf("%d live leases at once, want at most %d (the credits given)", maxLive, per)
	}
	c.close()

	wait := startWorkers(context.Background(), r.addr, r.addr)
	s, err := r.wait(t)
	checkTotal(t, s, err, n)
	for _, err := range wait() {
		if err != nil {
			t.Errorf("honest worker: %v", err)
		}
	}
	if want := uint64(warm + cycles); s.Requeued < want {
		t.Errorf("Requeued = %d, want at least the %d released leases", s.Requeued, want)
	}
}

// silentClient joins and opens a Work stream it never reads (until the
// test asks it for the status the stream ended with). Its connection has
// a fixed flow-control window (no BDP estimation), so what the
// coordinator sends it piles up in the coordinator.
type silentClient struct {
	conn   *grpc.ClientConn
	stream nqueenspb.CoordinatorService_WorkClient
	cancel context.CancelFunc
}

func dialSilent(t *testing.T, addr, name string) *silentClient {
	t.Helper()
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithInitialWindowSize(64<<10), grpc.WithInitialConnWindowSize(64<<10))
	if err != nil {
		t.Fatal(err)
	}
	client := nqueenspb.NewCoordinatorServiceClient(conn)
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	jr, err := client.Join(ctx, &nqueenspb.JoinRequest{Name: name, Slots: 1, SolverVersion: solver.Version})
	if err != nil {
		cancel()
		t.Fatalf("Join: %v", err)
	}
	stream, err := client.Work(ctx)
	if err != nil {
		cancel()
		t.Fatalf("Work: %v", err)
	}
	c := &silentClient{conn: conn, stream: stream, cancel: cancel}
	t.Cleanup(func() { c.cancel(); c.conn.Close() })
	if err := stream.Send(&nqueenspb.WorkRequest{Msg: &nqueenspb.WorkRequest_Ready{Ready: &nqueenspb.Ready{WorkerId: jr.GetWorkerId()}}}); err != nil {
		t.Fatalf("Ready: %v", err)
	}
	return c
}

// unknownResult is a Result for a task of no plan: rejected, acknowledged
// with OUTCOME_REJECTED, never a strike.
var unknownResult = &nqueenspb.WorkRequest{Msg: &nqueenspb.WorkRequest_Result{Result: &nqueenspb.Result{
	TaskId: &nqueenspb.TaskId{PlanFingerprint: 1, Index: 0}, Total: 2, Unique: 1}}}

// floodRate is the pace of the rejected-results floods: half the default
// message rate, so the limiter never cuts the flooder off.
const floodRate = wire.DefaultMessageRate / 2

// floodRejected sends up to max unknown results at floodRate and returns how many
// went out before Send failed (the coordinator ended the stream).
func floodRejected(send func(*nqueenspb.WorkRequest) error, max int) int {
	const step = 100
	start := time.Now()
	for sent := 0; sent < max; sent++ {
		if sent%step == 0 {
			if ahead := time.Duration(sent)*time.Second/floodRate - time.Since(start); ahead > 0 {
				time.Sleep(ahead)
			}
		}
		if send(unknownResult) != nil {
			return sent
		}
	}
	return max
}

// outboxSlack is how many replies beyond maxOutbox may be on their way
// when the session ends: those in the connection's windows and buffers
// (64 KiB each way: Acks of ~50 bytes coming, Results of ~20 going).
const outboxSlack = 16384

// outboxPeak is the longest outbox of the job's sessions, sampled under
// their locks.
func outboxPeak(v *service) int {
	v.mu.Lock()
	defer v.mu.Unlock()
	peak := 0
	for o := range v.outboxes {
		o.mu.Lock()
		peak = max(peak, len(o.q))
		o.mu.Unlock()
	}
	return peak
}

// leftWith returns the detail of the named worker's leave event, if any.
func leftWith(j *Job, name string) (string, bool) {
	for _, ev := range j.Events(0) {
		if ev.Kind == EventLeave && ev.Worker == name {
			return ev.Detail, true
		}
	}
	return "", false
}

// TestHostileSilentReader: a client that never reads its
// stream while it sends results the coordinator rejects, under the message
// rate. Its replies queue up to maxOutbox, then its session ends with
// ResourceExhausted ("does not read"); the heap stays bounded and the job
// goes on.
func TestHostileSilentReader(t *testing.T) {
	checkLeaks(t)
	const n = 9
	r := startJob(t, context.Background(), testConfig(n, 0))
	before := liveHeap()
	c := dialSilent(t, r.addr, "silent")
	queued := watchOutboxes(r.job.svc)
	limit := maxOutbox + outboxSlack + 50_000 // well past the bound: before the fix, never cut off
	start := time.Now()
	sent, flooded := c.flood(limit)
	waitFor(t, "the silent reader's session to end", func() bool {
		_, ok := leftWith(r.job, "silent")
		return ok || sent.Load() == int64(limit)
	})
	during := liveHeap()
	peak := queued()
	if sent.Load() == int64(limit) {
		t.Fatalf("%d rejected results sent without reading a reply, and the session still stands (maxOutbox %d)", limit, maxOutbox)
	}
	// Its connection is closed: the flood's Send fails by itself, it does
	// not block for as long as the client likes.
	select {
	case <-flooded:
	case <-time.After(eventTimeout):
		t.Errorf("the silent reader was still blocked in Send %v after its session ended", eventTimeout)
	}
	unread, got := c.readToEnd(t) // the replies that reached it before the cut, then the error
	c.cancel()
	<-flooded
	why, _ := leftWith(r.job, "silent")
	growth := int64(during) - int64(before)
	t.Logf("session ended after %d results sent, none read, in %v (%q); outbox at most %d (bound %d); heap %+.2f MB; then %d replies read and %v",
		sent.Load(), time.Since(start).Round(time.Millisecond), why, peak, maxOutbox, float64(growth)/(1<<20), unread, got)
	if want := status.Convert(errOutboxFull).Message(); why != want {
		t.Errorf("silent reader's session ended with %q, want %q", why, want)
	}
	if got == nil {
		t.Errorf("silent reader's stream ended cleanly after %d replies, want an error (its connection closed)", unread)
	}
	if peak > maxOutbox || sent.Load() > maxOutbox+outboxSlack {
		t.Errorf("%d replies queued and %d sent unread, want at most %d and %d", peak, sent.Load(), maxOutbox, maxOutbox+outboxSlack)
	}
	if growth > 8*heapSlack {
		t.Errorf("heap grew by %d bytes for one silent reader, want at most %d", growth, 8*heapSlack)
	}
	wait := startWorkers(context.Background(), r.addr)
	s, err := r.wait(t)
	checkTotal(t, s, err, n)
	wait()
	if s.Rejected < uint64(maxOutbox) {
		t.Errorf("Rejected = %d, want at least the %d queued replies", s.Rejected, maxOutbox)
	}
}

// watchOutboxes samples the job's longest outbox every millisecond until
// the returned function is called; it returns the longest seen.
func watchOutboxes(s *service) func() int {
	stop := make(chan struct{})
	peak := make(chan int, 1)
	go func() {
		p := 0
		for {
			p = max(p, outboxPeak(s))
			select {
			case <-stop:
				peak <- p
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	return func() int { close(stop); return <-peak }
}

// flood sends up to max rejected results in the background, counting
// those sent; flooded closes when it stops. Once the coordinator ends the
// session it stops reading, and Send blocks on flow control until the
// client gives up (cancel).
func (c *silentClient) flood(max int) (sent *atomic.Int64, flooded <-chan struct{}) {
	sent = new(atomic.Int64)
	done := make(chan struct{})
	go func() {
		defer close(done)
		floodRejected(func(m *nqueenspb.WorkRequest) error {
			err := c.stream.Send(m)
			if err == nil {
				sent.Add(1)
			}
			return err
		}, max)
	}()
	return sent, done
}

// readToEnd reads the stream until it ends and returns how many messages
// came before the end, and why it ended.
func (c *silentClient) readToEnd(t *testing.T) (int, error) {
	t.Helper()
	type end struct {
		err    error
		unread int
	}
	ended := make(chan end, 1)
	go func() {
		for k := 0; ; k++ {
			if _, err := c.stream.Recv(); err != nil {
				ended <- end{err, k}
				return
			}
		}
	}()
	select {
	case e := <-ended:
		return e.unread, e.err
	case <-time.After(eventTimeout):
		t.Error("the silent reader's stream did not end once it read")
		return 0, nil
	}
}

// suppressedCount matches a "warnings suppressed" line's count.
var suppressedCount = regexp.MustCompile(`warnings suppressed: .*count=(\d+)`)

// TestHostileWarnFlood: a flood of rejected results logs
// at most warnBurst + elapsed/warnEvery WARN lines for its session, and
// "warnings suppressed" lines that account for every other one.
func TestHostileWarnFlood(t *testing.T) {
	checkLeaks(t)
	const n, results = 9, 3 * floodRate / 2 // 1.5 s of flood
	log, logs := bufLogger()
	r := startJobLog(t, context.Background(), testConfig(n, 0), log)
	start := time.Now() // the session's warnings are counted from its Join
	c := dialRawNamed(t, r.addr, "flooder")
	rejected := make(chan int, 1)
	go func() { // a reader that keeps up: the outbox never fills
		k := 0
		for m := range c.msgs {
			if m.GetAck().GetOutcome() == nqueenspb.Ack_OUTCOME_REJECTED {
				if k++; k == results {
					break
				}
			}
		}
		rejected <- k
	}()
	if sent := floodRejected(c.stream.Send, results); sent != results {
		t.Fatalf("the stream ended after %d of %d results", sent, results)
	}
	select {
	case k := <-rejected:
		if k != results {
			t.Fatalf("%d of %d results acknowledged REJECTED", k, results)
		}
	case <-time.After(eventTimeout):
		t.Fatal("timed out waiting for the acks")
	}
	c.close()
	waitFor(t, "the flooder's session to end", func() bool { _, ok := leftWith(r.job, "flooder"); return ok })
	elapsed := time.Since(start)
	var warns, suppressed, summaries int
	for _, line := range strings.Split(logs.String(), "\n") {
		if !strings.Contains(line, "[WARN]") || !strings.Contains(line, "worker_name=flooder") {
			continue
		}
		if m := suppressedCount.FindStringSubmatch(line); m != nil {
			k, _ := strconv.Atoi(m[1])
			suppressed += k
			summaries++
			continue
		}
		warns++
	}
	bound := sched.WarnBurst + int(elapsed/sched.WarnEvery) + 1
	t.Logf("%d rejected results in %v: %d WARN lines (bound %d), %d summaries of %d suppressed", results, elapsed.Round(time.Millisecond), warns, bound, summaries, suppressed)
	if warns > bound {
		t.Errorf("%d WARN lines for one session's %d rejected results in %v, want at most %d", warns, results, elapsed, bound)
	}
	if summaries == 0 || warns+suppressed != results {
		t.Errorf("%d warnings logged and %d suppressed in %d summaries, want %d in all", warns, suppressed, summaries, results)
	}
	wait := startWorkers(context.Background(), r.addr)
	s, err := r.wait(t)
	checkTotal(t, s, err, n)
	wait()
}

// TestHostileCrashLoop: workers that take a
// lease and break their stream abruptly (cancelled, or the connection
// reset), three times MaxAttempts over, cost the task nothing: the job
// ends exact, each crash requeued.
func TestHostileCrashLoop(t *testing.T) {
	checkLeaks(t)
	const n = 10
	cfg := testConfig(n, 0)
	r := startJob(t, context.Background(), cfg)
	crashes := 3 * DefaultMaxAttempts
	first := -1
	for i := range crashes {
		if st := r.job.Status(); st.Done {
			t.Fatalf("the job ended after %d crashes: %s", i, st.Summary.Error)
		}
		addr := r.addr
		var b *bridge
		if i%2 == 1 {
			b = newBridge(t, r.addr)
			addr = b.addr()
		}
		c := dialRawNamed(t, addr, "crasher-"+strconv.Itoa(i))
		c.ready(1)
		a := c.next("assign").GetAssign()
		if first < 0 {
			first = int(a.GetTaskId().GetIndex())
		} else if got := int(a.GetTaskId().GetIndex()); got != first {
			t.Fatalf("crash %d got task %d, want the requeued task %d", i, got, first)
		}
		if b != nil {
			b.cut() // the network fails: TCP reset, no goodbye
		} else {
			c.close() // the process dies: its stream is cancelled (RST_STREAM)
		}
		waitFor(t, "the crashed lease to go back", func() bool { _, live := leaseRecords(r.job.sched); return live == 0 })
	}
	if st := r.job.Status(); st.Done || st.Summary.Error != "" {
		t.Fatalf("after %d crashes the job is done %v with error %q, want it running", crashes, st.Done, st.Summary.Error)
	}
	wait := startWorkers(context.Background(), r.addr)
	s, err := r.wait(t)
	checkTotal(t, s, err, n)
	wait()
	t.Logf("%d crashes on task %d: requeued %d, leased %d", crashes, first, s.Requeued, s.Leased)
	if s.Requeued < uint64(crashes) {
		t.Errorf("Requeued = %d, want at least the %d crashes", s.Requeued, crashes)
	}
}

// TestHostilePoisonTask: a task whose solver
// fails on it (Result.failure) on MaxAttempts distinct workers fails the
// job with an error naming the task; repeats from one worker name count
// once.
func TestHostilePoisonTask(t *testing.T) {
	checkLeaks(t)
	cfg := testConfig(9, 0)
	cfg.MaxAttempts = 3
	r := startJob(t, context.Background(), cfg)
	poison := -1
	fail := func(name string) {
		c := dialRawNamed(t, r.addr, name)
		c.ready(1)
		a := c.next("assign").GetAssign()
		if poison < 0 {
			poison = int(a.GetTaskId().GetIndex())
		} else if got := int(a.GetTaskId().GetIndex()); got != poison {
			t.Fatalf("%s got task %d, want the failed task %d", name, got, poison)
		}
		c.result(&nqueenspb.Result{TaskId: a.GetTaskId(), LeaseId: a.GetLeaseId(), Failure: "solver: out of memory"})
		if got := c.next("ack").GetAck().GetOutcome(); got != nqueenspb.Ack_OUTCOME_REJECTED {
			t.Fatalf("failure result: %v, want REJECTED", got)
		}
		c.close()
	}
	for range 2 * cfg.MaxAttempts { // one worker name: one distinct failure
		fail("flaky")
	}
	for i := 1; i < cfg.MaxAttempts; i++ {
		if st := r.job.Status(); st.Done {
			t.Fatalf("the job ended after %d distinct failures, want %d: %s", i, cfg.MaxAttempts, st.Summary.Error)
		}
		fail("other-" + strconv.Itoa(i))
	}
	_, err := r.wait(t)
	want := "task " + strconv.Itoa(poison) + " failed on 3 workers"
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "out of memory") {
		t.Fatalf("job ended with %v, want an error with %q and the solver's message", err, want)
	}
}

// TestHostileImpossibleCounts: results with
// counts no task can have are rejected before commit and the job ends
// exact.
func TestHostileImpossibleCounts(t *testing.T) {
	checkLeaks(t)
	const n = 10
	k, _ := solver.Known(n)
	r := startJob(t, context.Background(), testConfig(n, 0))
	for _, tc := range []struct {
		name          string
		total, unique uint64
	}{
		{"2^64-1 total", math.MaxUint64, 0},
		{"2^64-2 total", math.MaxUint64 - 1, 1},
		{"odd total", 3, 1},
		{"unique over total", 2, 4},
		{"over the board's total", k.Total + 2, 1},
		{"over the board's unique", 2 * (k.Unique + 1), k.Unique + 1},
	} {
		// One client per result: three invalid results quarantine a worker.
		c := dialRawNamed(t, r.addr, "impossible")
		c.ready(1)
		a := c.next("assign").GetAssign()
		c.result(&nqueenspb.Result{TaskId: a.GetTaskId(), LeaseId: a.GetLeaseId(), Total: tc.total, Unique: tc.unique})
		if ack := c.next("ack").GetAck(); ack.GetOutcome() != nqueenspb.Ack_OUTCOME_REJECTED {
			t.Errorf("%s: %v (%s), want REJECTED", tc.name, ack.GetOutcome(), ack.GetReason())
		}
		if done, _ := r.committed(); done != 0 {
			t.Fatalf("%s: %d tasks committed, want none", tc.name, done)
		}
		c.close()
	}
	wait := startWorkers(context.Background(), r.addr, r.addr)
	s, err := r.wait(t)
	checkTotal(t, s, err, n)
	wait()
	if s.Rejected < 6 {
		t.Errorf("Rejected = %d, want the 6 impossible results", s.Rejected)
	}
}

// writeImpossibleJournal writes a journal of plan whose tasks 0 to 2 are
// committed: task bad with total 2^64-1 by worker 0xbad, task 0 right by
// the same worker (none of its records may stay), task 2 right by
// another.
func writeImpossibleJournal(t *testing.T, path string, settings journal.Settings, plan solver.Plan, bad int) {
	t.Helper()
	j, err := journal.Create(path, settings)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	for i := range 3 {
		rec := journal.Record{Index: i, Total: math.MaxUint64, Worker: 0xbad}
		if i != bad {
			c, err := solver.CountTask(plan.N, plan.Tasks[i])
			if err != nil {
				t.Fatal(err)
			}
			rec = journal.Record{Index: i, Total: c.Total, Unique: c.Unique, Nodes: c.Nodes, Worker: 0x600d}
			if i == 0 {
				rec.Worker = 0xbad
			}
		}
		if err := j.Append(rec); err != nil {
			t.Fatal(err)
		}
	}
}

// journalResults are a journal's records as a resume hands them to New.
func journalResults(records []journal.Record) []JournalResult {
	results := make([]JournalResult, len(records))
	for i, rec := range records {
		results[i] = JournalResult{Index: rec.Index, Counts: solver.Counts{Total: rec.Total, Unique: rec.Unique, Nodes: rec.Nodes}, Worker: rec.Worker}
	}
	return results
}

// TestHostileJournalImpossibleRecord: a
// journal that holds an impossible record (written before the check
// existed) is resumed by distrusting the worker that wrote it, dropping
// its records and computing their tasks again: the total is exact, the
// journal ends whole, and the job is not stuck.
func TestHostileJournalImpossibleRecord(t *testing.T) {
	checkLeaks(t)
	const n = 10
	path := filepath.Join(t.TempDir(), "state")
	plan, err := solver.NewPlan(n, 2, solver.KindCount)
	if err != nil {
		t.Fatal(err)
	}
	settings := journal.Settings{N: n, Depth: plan.Depth, Kind: uint8(plan.Kind), Fingerprint: plan.Fingerprint(), SolverVersion: solver.Version, Tasks: len(plan.Tasks)}
	const bad = 1
	writeImpossibleJournal(t, path, settings, plan, bad)

	log, logs := bufLogger()
	cfg := testConfig(n, 2)
	cfg.Depth = plan.Depth
	var jr *journal.Journal
	cfg.OpenJournal = func(p solver.Plan) (Resumed, error) {
		j, rp, err := journal.Open(path, settings)
		if err != nil {
			return Resumed{}, err
		}
		jr = j // New distrusts the worker of the impossible record
		return Resumed{Journal: recordJournal{j}, Results: slices.Values(journalResults(rp.Records))}, nil
	}
	r := startJobLog(t, context.Background(), cfg, log)
	if st := r.job.Status(); st.Restored != 1 {
		t.Errorf("%d tasks restored, want 1 (the impossible record and its worker's other one dropped)", st.Restored)
	}
	s, err := r.wait(t)
	jr.Close()
	if err != nil {
		t.Log(logs.String())
	}
	checkTotal(t, s, err, n)
	// The journal now holds the recomputed task: a second resume restores
	// everything and computes nothing.
	rp, err := journal.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range rp.Records {
		if rec.Index == bad && rec.Total == math.MaxUint64 {
			t.Errorf("the journal still holds the impossible record of task %d", bad)
		}
	}
	if len(rp.Records) != len(plan.Tasks) {
		t.Errorf("the journal holds %d of %d tasks after the resumed run", len(rp.Records), len(plan.Tasks))
	}
	// The coordinator's own records cannot be distrusted: a resume of an
	// impossible one is refused, naming the task.
	own := []JournalResult{{Index: 4, Counts: solver.Counts{Total: math.MaxUint64}}}
	if _, _, err := sched.Restorable(n, slices.Values(own)); err == nil || !strings.Contains(err.Error(), "task 4") {
		t.Errorf("Restorable(an impossible record of worker 0) = %v, want an error naming task 4", err)
	}
}

// TestHostileStatusEvents: what a hostile cluster did shows in the job's
// Status and Events: an expired lease, a quarantined worker (three
// invalid results), the sessions that left.
func TestHostileStatusEvents(t *testing.T) {
	checkLeaks(t)
	const n = 9
	clock := newFakeClock()
	cfg := testConfig(n, 0)
	cfg.clock = clock
	cfg.SweepInterval = 5 * time.Millisecond
	r := startJob(t, context.Background(), cfg)

	sleeper := dialRawNamed(t, r.addr, "sleeper")
	sleeper.ready(1)
	a := sleeper.next("assign").GetAssign()
	clock.Advance(cfg.Lease + time.Second)
	if got := sleeper.next("cancel").GetCancel().GetLeaseId(); got != a.GetLeaseId() {
		t.Errorf("cancel for lease %d, want the expired %d", got, a.GetLeaseId())
	}
	sleeper.close()

	liar := dialRawNamed(t, r.addr, "liar")
	liar.ready(uint32(sched.MaxStrikes))
	for range sched.MaxStrikes {
		a := liar.next("assign").GetAssign()
		liar.result(&nqueenspb.Result{TaskId: a.GetTaskId(), LeaseId: a.GetLeaseId(), Total: 3, Unique: 1})
	}
	liar.next("drain")
	liar.close()
	waitFor(t, "both sessions to end", func() bool { return len(r.job.Status().Workers) == 0 })

	st := r.job.Status()
	if st.Summary.Expired != 1 || st.Summary.Quarantined != 1 || st.Summary.Rejected < uint64(sched.MaxStrikes) || st.Leased != 0 {
		t.Errorf("status: expired %d, quarantined %d, rejected %d, leased %d; want 1, 1, at least %d, 0",
			st.Summary.Expired, st.Summary.Quarantined, st.Summary.Rejected, st.Leased, sched.MaxStrikes)
	}
	want := map[string]bool{"join sleeper": false, "expire sleeper": false, "leave sleeper": false,
		"join liar": false, "quarantine liar": false, "leave liar": false}
	var seen []string
	for _, ev := range r.job.Events(0) {
		key := string(ev.Kind) + " " + ev.Worker
		seen = append(seen, key+": "+ev.Detail)
		if _, ok := want[key]; ok {
			want[key] = true
		}
	}
	for key, ok := range want {
		if !ok {
			t.Errorf("no %q event in %q", key, seen)
		}
	}
	wait := startWorkers(context.Background(), r.addr)
	s, err := r.wait(t)
	checkTotal(t, s, err, n)
	wait()
}
