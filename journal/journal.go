package journal

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"
)

// Sentinel errors. Test for them with errors.Is; the wrapped messages add the
// path, the offset or the differing settings.
var (
	// ErrSettingsMismatch: the journal belongs to a different job (N, depth,
	// kind, plan fingerprint, solver version, task count or an extra setting
	// differ). A resume must refuse: mixing results of two plans gives a wrong total.
	ErrSettingsMismatch = errors.New("journal settings differ from this run's")
	// ErrCorrupt: the journal cannot be trusted (bad magic or header, a bad record
	// followed by valid ones, a task committed twice). *CorruptError says where.
	ErrCorrupt = errors.New("journal is corrupt")
	// ErrDuplicate: a task index is committed twice: refused by Append, and a
	// corruption (also ErrCorrupt) when found on replay.
	ErrDuplicate = errors.New("task already committed")
	// ErrExists: Create found a non-empty file at the path (resume it with Open,
	// or remove it).
	ErrExists = errors.New("journal already exists")
	// ErrLocked: another open Journal (in this or another process) holds the file.
	ErrLocked = errors.New("journal is in use by another process")
	// ErrClosed: the Journal was closed.
	ErrClosed = errors.New("journal is closed")
)

// Record is one committed task result.
type Record struct {
	Index  int    // task index in the plan
	Total  uint64 // solutions
	Unique uint64 // fundamental solutions
	Nodes  uint64 // search nodes
	Digest []byte // optional digest of the task's solutions, at most MaxDigestSize bytes
	// Worker is who computed the result: a key unique to one worker
	// session across runs, so that Distrust can take back everything it
	// committed; 0 when unknown or the coordinator's own.
	Worker uint64
}

// Split records that task Parent was split into Count children, numbered
// First, First+1, ...: First is always the number of tasks before the
// split, so a replay that applies the splits in order numbers every task
// as the run did.
type Split struct {
	Parent, First, Count int
	// Reopen records instead that split task Parent became one task
	// again, its subtree dropped (a quarantine reopened it); First and
	// Count are 0, and Parent may be split again.
	Reopen bool
}

// MaxChildren caps Split.Count: no task of a board up to solver.MaxN has
// more children than it has columns.
const MaxChildren = 64

// Journal is an open journal, ready for Append. Its methods are safe for
// concurrent use.
type Journal struct {
	path string

	mu        sync.Mutex          // guards every field below
	cond      *sync.Cond          // on mu: broadcast when an fsync ends
	synced    int64               // bytes known to be on disk (<= off)
	syncing   bool                // an Append is in f.Sync, outside mu
	scheduled bool                // a timer will write what Sync's window gathered
	f         *os.File            // nil after Close
	off       int64               // end of the valid data: where the next record goes
	tasks     int                 // Settings.Tasks plus every split's children (0: unchecked)
	split     doneSet             // tasks split (a bit a task)
	done      doneSet             // the committed tasks, none of a distrusted worker
	first     int64               // where the entries start, after the header
	bad       map[uint64]struct{} // distrusted workers
	buf       []byte
	pending   []byte              // frames queued since the last write: the bytes [written, off)
	oldest    time.Time           // when pending's first frame was queued (Sync's window)
	spare     []byte              // the previous write's buffer, for the next queue
	written   int64               // bytes written to the file (<= off)
	closing   bool                // Close has begun: Appends are refused
	failed    error               // sticky: set when a write or fsync failed
	onSync    func(time.Duration) // ObserveSync's observer, or nil
	batches   bool                // single results go into batch records (format 2 on)
	batch     batcher             // the open batch at the end of pending, and the worker numbers
}

// Create starts a new journal at path holding s, durably (written to a
// temporary file of its own, fsynced, renamed over path, directory
// fsynced). It refuses with ErrExists when a non-empty file is already
// there, and with ErrLocked when another Journal holds path, also one being
// created at the same moment: of two Creates racing on one path, exactly
// one succeeds. Its errors name path, never the temporary file.
func Create(path string, s Settings) (*Journal, error) {
	if err := s.validate(); err != nil {
		return nil, err
	}
	// Hold the lock on what is at path (an empty file, made if need be)
	// until the journal replaces it, so a racing Create or Open sees a
	// locked file, then the locked journal.
	old, err := openLocked(path, os.O_RDWR|os.O_CREATE)
	if err != nil {
		return nil, err
	}
	defer old.Close()
	if fi, err := old.Stat(); err != nil {
		return nil, fmt.Errorf("journal %s: %w", path, plainErr(err))
	} else if fi.Size() > 0 || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("journal %s: %w", path, ErrExists)
	}
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("journal %s: create: %w", path, plainErr(err))
	}
	fail := func(what string, err error) (*Journal, error) {
		f.Close()
		os.Remove(f.Name())
		removeHeld(path, old)
		return nil, fmt.Errorf("journal %s: %s: %w", path, what, plainErr(err))
	}
	if err := lockFile(f); err != nil {
		return fail("lock", err)
	}
	data := appendFrame([]byte(magic), encodeSettings(s))
	if _, err := f.Write(data); err != nil {
		return fail("write header", err)
	}
	if err := f.Sync(); err != nil {
		return fail("fsync header", err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fail("rename", err)
	}
	if err := syncDir(filepath.Dir(path)); err != nil {
		f.Close()
		return nil, fmt.Errorf("journal %s: fsync directory: %w", path, plainErr(err))
	}
	return newJournal(path, f, int64(len(data)), s.Tasks, newDoneSet(s.Tasks)), nil
}

// removeHeld removes the empty file at path that a failed Create holds
// locked, so the failure leaves nothing behind; a file that is not that one
// any more is left alone.
func removeHeld(path string, held *os.File) {
	hi, err1 := held.Stat()
	pi, err2 := os.Stat(path)
	if err1 == nil && err2 == nil && hi.Size() == 0 && os.SameFile(hi, pi) {
		os.Remove(path)
	}
}

// plainErr drops the file name of an *fs.PathError: the caller names the
// file the user knows (the journal, not a temporary file already removed).
func plainErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", pe.Op, pe.Err)
	}
	return err
}

// bareErr is the error of an *fs.PathError without its operation and file
// name: the journal's file was created under a temporary name, which its
// *os.File keeps and its errors would name (a full disk
// named "n14.journal.tmp-…", a file that no longer exists).
func bareErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// lockAttempts bounds openLocked's retries: each one follows a journal that
// a racing Create renamed over path, which happens at most once per Create.
const lockAttempts = 8

// openLocked opens path with flag and takes its lock. What it locks is
// the file at path, not one renamed away meanwhile (a Create that won a
// race replaces the file it held locked): the lock is taken again on the
// new file, which its creator holds, so ErrLocked.
func openLocked(path string, flag int) (*os.File, error) {
	for range lockAttempts {
		f, err := os.OpenFile(path, flag, 0o644)
		if err != nil {
			return nil, fmt.Errorf("journal: %w", err)
		}
		if err := lockFile(f); err != nil {
			f.Close()
			return nil, fmt.Errorf("journal %s: %w", path, err)
		}
		held, err1 := f.Stat()
		now, err2 := os.Stat(path)
		if err1 == nil && err2 == nil && os.SameFile(held, now) {
			return f, nil
		}
		f.Close()
		if err := errors.Join(err1, err2); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("journal %s: %w", path, plainErr(err))
		}
	}
	return nil, fmt.Errorf("journal %s: %w (replaced while opening)", path, ErrLocked)
}

// Open reopens the journal at path for a resume. It replays every record,
// truncates a torn last record (reported in Replay.Repaired), and checks the
// stored settings against want. Errors: a missing file matches fs.ErrNotExist;
// different settings match ErrSettingsMismatch (the Replay still carries the
// stored settings, the file is untouched); corruption matches ErrCorrupt and
// is a *CorruptError with the offset; ErrLocked when another Journal holds it.
func Open(path string, want Settings) (*Journal, Replay, error) {
	j, rp, err := resume(path, want, true)
	if err != nil {
		return j, rp, err
	}
	if rp.Records, err = rp.parsed.records(rp.src); err != nil {
		j.Close()
		return nil, Replay{}, fmt.Errorf("journal %s: read: %w", path, err)
	}
	rp.src, rp.parsed = nil, nil
	return j, rp, nil
}

// Resume is Open for a coordinator that resumes a long run: Replay.Records
// and Replay.Splits are nil, and Replay.Results and Replay.Entries read
// the results and splits from the journal's file again, through a
// window of a few megabytes. A replay of 10^7 results
// then holds the committed set (a bit a task) and the window, where
// Open holds the 64 bytes of each Record.
func Resume(path string, want Settings) (*Journal, Replay, error) {
	return resume(path, want, false)
}

// resume is Resume, keeping Replay.Splits when keep is set (Open).
func resume(path string, want Settings, keep bool) (*Journal, Replay, error) {
	f, err := openLocked(path, os.O_RDWR)
	if err != nil {
		return nil, Replay{}, err
	}
	j, rp, err := open(f, path, want, keep)
	if err != nil {
		f.Close()
		return nil, rp, err
	}
	return j, rp, nil
}

// open replays f through a window of its bytes (fileSource), repairs a
// torn tail and opens the journal for appends after what it read.
func open(f *os.File, path string, want Settings, keep bool) (*Journal, Replay, error) {
	src, err := newFileSource(f)
	if err != nil {
		return nil, Replay{}, fmt.Errorf("journal: read: %w", err)
	}
	p, err := parseFrom(src, keep)
	if err != nil {
		if ce, ok := err.(*CorruptError); ok {
			ce.Path = path
			return nil, Replay{}, err
		}
		return nil, Replay{}, fmt.Errorf("journal %s: read: %w", path, err)
	}
	rp := Replay{Settings: p.settings, Splits: p.splits, src: src, parsed: &p}
	if d := p.settings.Diff(want); len(d) > 0 {
		return nil, rp, fmt.Errorf("journal %s: %w: %s (journal != this run)", path, ErrSettingsMismatch, strings.Join(d, "; "))
	}
	end := int64(src.size())
	if p.torn != nil {
		end = int64(p.torn.off)
		if err := f.Truncate(end); err != nil {
			return nil, rp, fmt.Errorf("journal: repair torn tail: %w", err)
		}
		if err := f.Sync(); err != nil {
			return nil, rp, fmt.Errorf("journal: repair torn tail: fsync: %w", err)
		}
		rp.Repaired = &Repair{Offset: end, Dropped: int64(src.size()) - end, Reason: p.torn.reason}
	}
	if p.worthCompacting() {
		c := &Compaction{Before: end}
		nf, nsrc, np, replaced, err := compact(path, f, src, &p)
		switch {
		case err != nil && replaced:
			return nil, rp, fmt.Errorf("journal %s: compaction: %w", path, err)
		case err != nil:
			c.Err = err
		default:
			f, src, p, end = nf, nsrc, np, int64(nsrc.size())
			rp = Replay{Settings: p.settings, Splits: p.splits, src: src, parsed: &p, Repaired: rp.Repaired}
		}
		c.After = end
		rp.Compacted = c
	}
	j := newJournal(path, f, end, p.tasks, p.done)
	j.first = int64(p.first)
	j.split = p.split
	j.batches, j.batch = p.version >= 2, newBatcher(&p.names) // a build that reads version 1 only must not meet a batch
	maps.Copy(j.bad, p.distrusted)
	return j, rp, nil
}

func newJournal(path string, f *os.File, off int64, tasks int, done doneSet) *Journal {
	j := &Journal{path: path, f: f, off: off, first: off, written: off, synced: off, tasks: tasks, done: done, bad: make(map[uint64]struct{}), split: newDoneSet(tasks),
		batches: true, batch: newBatcher(&workerNames{})}
	j.cond = sync.NewCond(&j.mu)
	return j
}

// Append commits r durably: it returns only after the record is written and
// fsynced, so the caller acknowledges the worker after Append returns nil.
// It is Queue and then Sync; see Queue for what it refuses. Concurrent
// Appends share fsyncs (group commit): each still returns only once its
// own record is on disk.
func (j *Journal) Append(r Record) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if err := j.queueLocked(r); err != nil {
		return err
	}
	return j.syncLocked()
}

// Queue commits r without waiting for the disk: the record is durable once
// a later Sync (or Append) returns nil, and the caller acknowledges the
// worker only then. Queued records reach the disk in the order they were
// queued, with the splits and distrusts among them. Queue refuses an index
// already committed (ErrDuplicate), unless by a worker since distrusted,
// an index outside [0, Settings.Tasks) and an oversized digest. A record
// of a distrusted worker is dropped: Queue writes nothing and returns nil.
// After a failed write or fsync the Journal refuses every further record:
// what reached the disk is unknown, so the run must stop (a resume replays
// what is there).
func (j *Journal) Queue(r Record) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.queueLocked(r)
}

// QueueRun is Queue for the results rs of a run of consecutive tasks
// (rs[i].Index = rs[0].Index+i), all of one worker and without digests,
// written as one record of a few bytes a task. It refuses the whole run
// when one of its tasks would be refused, and drops it when the worker is
// distrusted.
func (j *Journal) QueueRun(rs []Record) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if len(rs) == 0 {
		return nil
	}
	if len(rs) > maxRunRecord {
		return fmt.Errorf("journal: a run of %d tasks, at most %d", len(rs), maxRunRecord)
	}
	if err := j.usableLocked(); err != nil {
		return err
	}
	for i, r := range rs {
		switch {
		case r.Index != rs[0].Index+i || r.Worker != rs[0].Worker || len(r.Digest) > 0:
			return fmt.Errorf("journal: run record %d (task %d) is not the next task of worker %x without a digest", i, r.Index, rs[0].Worker)
		case r.Index < 0 || (j.tasks > 0 && r.Index >= j.tasks):
			return fmt.Errorf("journal: task index %d out of range [0,%d)", r.Index, j.tasks)
		case j.done.has(r.Index):
			return fmt.Errorf("journal: task %d: %w", r.Index, ErrDuplicate)
		}
	}
	if j.distrustedLocked(rs[0].Worker) {
		return nil
	}
	j.writeLocked(appendRun(j.buf[:0], rs))
	for _, r := range rs {
		j.done.set(r.Index, true)
	}
	return nil
}

// maxRunRecord bounds a run record so that it fits MaxRecordSize
// whatever its counts (three varints of at most 10 bytes a task); a
// coordinator's runs are at most 256 tasks.
const maxRunRecord = 2048

func (j *Journal) queueLocked(r Record) error {
	if len(r.Digest) > MaxDigestSize {
		return fmt.Errorf("journal: digest of %d bytes exceeds %d", len(r.Digest), MaxDigestSize)
	}
	if r.Index < 0 || (j.tasks > 0 && r.Index >= j.tasks) {
		return fmt.Errorf("journal: task index %d out of range [0,%d)", r.Index, j.tasks)
	}
	if err := j.usableLocked(); err != nil {
		return err
	}
	if j.distrustedLocked(r.Worker) {
		return nil
	}
	if j.done.has(r.Index) {
		return fmt.Errorf("journal: task %d: %w", r.Index, ErrDuplicate)
	}
	if j.batches && j.batch.takes(r) {
		j.batchLocked(r)
	} else {
		j.writeLocked(appendResult(j.buf[:0], r))
	}
	j.done.set(r.Index, true)
	return nil
}

// batchLocked adds r to the batch record open at the end of the queued
// frames (batch.go), which the next other record or write seals.
func (j *Journal) batchLocked(r Record) {
	if len(j.pending) == 0 {
		j.oldest = time.Now()
	}
	n := len(j.pending)
	j.pending = j.batch.add(j.pending, r)
	j.off += int64(len(j.pending) - n)
}

// SyncWindow is how long Sync lets records gather before it fsyncs: at
// thousands of commits a second, one fsync per window instead of one per
// handful of commits, at the price of this much more latency per Ack.
const SyncWindow = 5 * time.Millisecond

// Sync returns once every record queued so far is on disk. The records
// gather until SyncWindow has passed since the oldest of them was queued;
// then one timer writes all of them with one write and one fsync, for
// every Sync waiting (group commit). Waiters sleep on the journal's
// condition, not on a timer each: a coordinator with thousands of workers
// has thousands of them.
func (j *Journal) Sync() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return ErrClosed
	}
	end := j.off
	for j.synced < end {
		if j.failed != nil {
			return fmt.Errorf("journal %s: %w", j.path, j.failed)
		}
		if !j.syncing && !j.scheduled {
			wait := time.Until(j.oldest.Add(SyncWindow))
			if wait <= 0 {
				j.flushLocked()
				continue
			}
			j.scheduled = true
			time.AfterFunc(wait, j.windowEnded)
		}
		j.cond.Wait()
	}
	return nil
}

// windowEnded writes what Sync's window gathered, once any write under
// way has ended. After Close there is nothing to do: Close wrote it.
func (j *Journal) windowEnded() {
	j.mu.Lock()
	defer j.mu.Unlock()
	for j.syncing {
		j.cond.Wait()
	}
	j.scheduled = false
	if j.f != nil && j.failed == nil && j.synced < j.off {
		j.flushLocked()
	}
	j.cond.Broadcast()
}

// Distrust durably records that worker w lied: a replay drops every result
// it committed, before or after, and Append then accepts those tasks again
// from other workers and drops any further result of w. Worker 0 cannot be
// distrusted. The journal keeps a bit per committed task, not who
// committed it, so Distrust reads the file back to find w's tasks: a
// second or so for 10^7 tasks, on an event as rare as a caught liar.
func (j *Journal) Distrust(w uint64) error {
	if w == 0 {
		return errors.New("journal: worker 0 cannot be distrusted")
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if err := j.usableLocked(); err != nil {
		return err
	}
	if j.distrustedLocked(w) {
		return nil
	}
	j.writeLocked(appendDistrust(j.buf[:0], w))
	j.bad[w] = struct{}{}
	end := j.off
	if err := j.syncLocked(); err != nil {
		return err
	}
	return j.releaseLocked(w, end)
}

// releaseLocked clears the committed bits of the tasks worker w committed
// in the journal's entries before end, which are on disk: they are all
// still w's, since nobody may commit a task again before w is distrusted.
func (j *Journal) releaseLocked(w uint64, end int64) error {
	err := clearCommits(&fileSource{f: j.f, n: int(end)}, int(j.first), int(end), &j.done, func(by uint64) bool { return by == w })
	if err != nil {
		return fmt.Errorf("journal %s: reading back the commits of distrusted worker %x: %w", j.path, w, err)
	}
	return nil
}

// Split records a split (see the type Split) without waiting for the
// disk: the record goes out with the next Append's write and fsync, before
// that Append's own record, so a child's commit never reaches the disk
// without the split that numbered it; a split lost in a crash had no
// child committed and is simply made again. It refuses a split that does
// not number its children from the current number of tasks (Split.First),
// a task split twice, and a journal of unknown size (Settings.Tasks 0).
func (j *Journal) Split(sp Split) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if err := j.usableLocked(); err != nil {
		return err
	}
	if reason := checkSplit(sp, j.tasks, &j.split); reason != "" {
		return errors.New("journal: " + reason)
	}
	j.writeLocked(appendSplit(j.buf[:0], sp))
	j.split.set(sp.Parent, !sp.Reopen)
	j.tasks += sp.Count
	j.done.grow(j.tasks)
	j.split.grow(j.tasks)
	return nil
}

func (j *Journal) distrustedLocked(w uint64) bool {
	_, bad := j.bad[w]
	return bad && w != 0
}

func (j *Journal) usableLocked() error {
	if j.f == nil || j.closing {
		return ErrClosed
	}
	if j.failed != nil {
		return fmt.Errorf("journal: unusable after an earlier failure: %w", j.failed)
	}
	return nil
}

// writeLocked queues one frame of payload at the end of the journal; the
// next sync writes every queued frame with one write and one fsync.
func (j *Journal) writeLocked(payload []byte) {
	if len(j.pending) == 0 {
		j.oldest = time.Now()
	}
	j.pending = appendFrame(j.batch.close(j.pending), payload)
	j.buf = payload[:0]
	j.off += int64(frameHeader + len(payload))
}

// syncLocked returns once everything written so far is on disk. Group
// commit: the Append that finds no sync under way writes every frame queued
// until then in one write and makes it durable with one fsync, so
// concurrent writers share a write and an fsync instead of queueing for
// one each.
func (j *Journal) syncLocked() error {
	end := j.off
	for j.synced < end {
		if j.failed != nil {
			return fmt.Errorf("journal %s: %w", j.path, j.failed)
		}
		if j.syncing {
			j.cond.Wait()
			continue
		}
		j.flushLocked()
	}
	return nil
}

// flushLocked writes and fsyncs the queued frames, outside the lock: the
// caller holds mu, and flushLocked gives it up meanwhile.
func (j *Journal) flushLocked() {
	j.syncing = true
	data, at := j.batch.close(j.pending), j.written
	j.pending = j.spare[:0]
	target, f, obs := j.off, j.f, j.onSync
	j.mu.Unlock()
	var err error
	if len(data) > 0 {
		if _, err = f.WriteAt(data, at); err != nil {
			f.Truncate(at) // best effort; a resume truncates a torn tail anyway
			err = fmt.Errorf("write: %w", bareErr(err))
		}
	}
	if err == nil {
		t0 := time.Now()
		if err = f.Sync(); err != nil {
			err = fmt.Errorf("fsync: %w", bareErr(err))
		}
		if obs != nil {
			obs(time.Since(t0))
		}
	}
	j.mu.Lock()
	j.syncing = false
	j.spare = data
	if err != nil {
		j.failed = err
	} else {
		j.written, j.synced = at+int64(len(data)), target
	}
	j.cond.Broadcast()
}

// ObserveSync makes every later fsync of an Append or Distrust call f with
// its duration (for a latency histogram); f runs outside the journal's
// lock, on the appending goroutine, and must be quick. nil stops it.
func (j *Journal) ObserveSync(f func(time.Duration)) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.onSync = f
}

// Len returns the number of committed tasks (replayed plus appended),
// not counting those of distrusted workers.
func (j *Journal) Len() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.done.count()
}

// Path returns the journal's file name.
func (j *Journal) Path() string { return j.path }

// Close releases the file and its lock. Every appended record is already
// durable, so Close does not fsync. Closing twice returns nil.
func (j *Journal) Close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return nil
	}
	j.closing = true // no new Append while the last records are written
	for j.syncing {
		j.cond.Wait()
	}
	if j.synced < j.off && j.failed == nil { // a waiting Append's record: write it for them
		j.flushLocked()
	}
	err := j.f.Close()
	j.f = nil
	if err != nil {
		return fmt.Errorf("journal: close: %w", err)
	}
	return nil
}

// syncDir makes a rename in dir durable. Windows cannot fsync a directory
// (and makes renames durable itself), so it is skipped there.
func syncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
