package journal

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
)

// TestResumeAcrossWindows: a journal several windows long (frames cut by
// the window's edges, a distrust record and a split among them) replays
// through Resume's window exactly as Read reads it whole, twice over.
func TestResumeAcrossWindows(t *testing.T) {
	const tasks = 300_000 // about 3 windows of 4 MiB with the digests
	s := testSettings
	s.Tasks = tasks
	path := filepath.Join(t.TempDir(), "big.journal")
	j, err := Create(path, s)
	if err != nil {
		t.Fatal(err)
	}
	const liar = 0x77
	for i := range tasks {
		r := rec(i)
		if i%1000 == 999 {
			r.Worker = liar
		}
		if err := j.Queue(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := j.Distrust(liar); err != nil {
		t.Fatal(err)
	}
	if err := j.Split(Split{Parent: 999, First: tasks, Count: 2}); err != nil {
		t.Fatal(err)
	}
	if err := j.Append(rec(tasks + 1)); err != nil {
		t.Fatal(err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(path); fi.Size() < 2*windowSize {
		t.Fatalf("journal of %d bytes: want several windows", fi.Size())
	}
	whole, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(whole.Records) != tasks-tasks/1000+1 {
		t.Fatalf("Read: %d records, want %d (the liar's left out)", len(whole.Records), tasks-tasks/1000+1)
	}
	j, rp, err := Resume(path, s)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	for pass := range 2 {
		if got := slices.Collect(rp.Results()); !reflect.DeepEqual(got, whole.Records) || rp.Err() != nil {
			t.Fatalf("pass %d: Resume's results differ from Read's (%d vs %d records), err %v", pass, len(got), len(whole.Records), rp.Err())
		}
	}
	if !reflect.DeepEqual(entrySplits(rp), whole.Splits) {
		t.Errorf("splits %v, want %v", entrySplits(rp), whole.Splits)
	}
}

// entrySplits is what Resume's Entries say of the splits, in order.
func entrySplits(rp Replay) []Split {
	var out []Split
	for e := range rp.Entries() {
		if e.IsSplit {
			out = append(out, e.Split)
		}
	}
	return out
}

// failingReader fails every read from offset bad on.
type failingReader struct {
	data []byte
	bad  int64
}

var errDisk = errors.New("disk on fire")

func (r failingReader) ReadAt(p []byte, off int64) (int, error) {
	if off >= r.bad {
		return 0, errDisk
	}
	n := copy(p, r.data[off:min(int64(len(r.data)), r.bad)])
	if n < len(p) {
		return n, errDisk
	}
	return n, nil
}

// TestReadErrorIsNotATornTail: a read that fails in the middle of a
// journal is reported as the read's error, never taken for a torn or
// corrupt record (which Open would truncate away).
func TestReadErrorIsNotATornTail(t *testing.T) {
	_, data, offs := build(t, 4)
	for _, bad := range []int64{3, offs[1] + 5, offs[3]} {
		_, err := parseFrom(&fileSource{f: failingReader{data: data, bad: bad}, n: len(data)}, true)
		var ce *CorruptError
		if !errors.Is(err, errDisk) || errors.As(err, &ce) {
			t.Errorf("read failing at %d: parse = %v, want the read's error and no corruption", bad, err)
		}
	}
}
