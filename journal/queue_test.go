package journal

import (
	"errors"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestQueueSync: queued records are refused as Append refuses them, reach
// the disk with Sync, in order, and concurrent Syncs share fsyncs: 64
// goroutines that queue and sync at once take fewer than 64.
func TestQueueSync(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.journal")
	j, err := Create(path, testSettings) // 100 tasks
	if err != nil {
		t.Fatal(err)
	}
	var fsyncs atomic.Int64
	j.ObserveSync(func(time.Duration) { fsyncs.Add(1) })
	if err := j.Queue(Record{Index: 100}); err == nil {
		t.Error("Queue(100) of 100 tasks succeeded")
	}
	if err := j.Queue(Record{Index: 5, Total: 4, Unique: 1}); err != nil {
		t.Fatal(err)
	}
	if err := j.Queue(Record{Index: 5, Total: 4, Unique: 1}); !errors.Is(err, ErrDuplicate) {
		t.Errorf("Queue of a queued index: %v, want ErrDuplicate", err)
	}
	start := time.Now()
	if err := j.Sync(); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < SyncWindow/2 {
		t.Errorf("Sync of a fresh record returned after %v: it did not wait for the window %v", d, SyncWindow)
	}
	if got := fsyncs.Load(); got != 1 {
		t.Errorf("%d fsyncs for one Sync, want 1", got)
	}
	if err := j.Sync(); err != nil || fsyncs.Load() != 1 {
		t.Errorf("Sync with nothing queued: %v, %d fsyncs; want nil and no new fsync", err, fsyncs.Load())
	}
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := range 64 {
		wg.Go(func() {
			if err := j.Queue(Record{Index: 20 + i, Total: 2, Unique: 1, Worker: 1}); err != nil {
				errs <- err
				return
			}
			errs <- j.Sync()
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if got := fsyncs.Load() - 1; got >= 64 {
		t.Errorf("64 concurrent Queue+Sync took %d fsyncs, want fewer (group commit)", got)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	if err := j.Sync(); !errors.Is(err, ErrClosed) {
		t.Errorf("Sync after Close: %v, want ErrClosed", err)
	}
	rep, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Records) != 65 || rep.Records[0].Index != 5 {
		t.Fatalf("replay holds %d records, first %+v; want 65, task 5 first", len(rep.Records), rep.Records[0])
	}
	seen := map[int]bool{}
	for _, r := range rep.Records[1:] {
		if r.Index < 20 || r.Index >= 84 || r.Total != 2 || seen[r.Index] {
			t.Errorf("replayed %+v, want tasks 20..83 once each, total 2", r)
		}
		seen[r.Index] = true
	}
}

// TestSyncDuringClose: a Sync waiting for its window when the journal is
// closed returns nil, and its record is on disk (Close wrote it).
func TestSyncDuringClose(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.journal")
	j, err := Create(path, testSettings)
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Queue(Record{Index: 9, Total: 2, Unique: 1}); err != nil {
		t.Fatal(err)
	}
	synced := make(chan error, 1)
	go func() { synced <- j.Sync() }()
	// Close once the Sync waits for its window, not after a guess at how
	// long that takes: on a busy machine a Sync that began after the Close
	// got ErrClosed.
	for waiting := false; !waiting; time.Sleep(100 * time.Microsecond) {
		j.mu.Lock()
		waiting = j.scheduled || j.synced == j.off // waiting, or already done (then nothing is tested)
		j.mu.Unlock()
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-synced; err != nil {
		t.Errorf("Sync across Close: %v, want nil", err)
	}
	time.Sleep(2 * SyncWindow) // the window's timer finds the journal closed
	rep, err := Read(path)
	if err != nil || len(rep.Records) != 1 || rep.Records[0].Index != 9 {
		t.Fatalf("after Close: %+v, %v; want task 9's record", rep.Records, err)
	}
}
