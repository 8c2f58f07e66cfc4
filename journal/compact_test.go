package journal

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
)

// writeSingles makes a journal of format version 1 (single-task result
// records) of tasks results: task i by worker by(i), and the splits and
// distrusts given, in that order after the results.
func writeSingles(t *testing.T, path string, s Settings, tasks int, by func(int) uint64, liar uint64) {
	t.Helper()
	writeVersion1(t, path, s)
	j, _, err := Resume(path, s)
	if err != nil {
		t.Fatal(err)
	}
	for i := range tasks {
		r := Record{Index: i, Total: uint64(2 * i), Unique: uint64(i), Nodes: uint64(i) + 5, Worker: by(i)}
		if i == 7 {
			r.Digest = []byte("digest") // stays a record of its own
		}
		if err := j.Queue(r); err != nil {
			t.Fatal(err)
		}
	}
	if liar != 0 {
		if err := j.Distrust(liar); err != nil {
			t.Fatal(err)
		}
	}
	if err := j.Split(Split{Parent: 3, First: s.Tasks, Count: 2}); err != nil {
		t.Fatal(err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestCompactOnResume: a resume rewrites a journal of single-task records
// as run records (the liar's results left out), replays the same results
// and splits as before, appends after the rewrite, and a later resume
// finds nothing to rewrite.
func TestCompactOnResume(t *testing.T) {
	const tasks, liar = 60_000, 0x99
	s := testSettings
	s.Tasks = tasks
	path := filepath.Join(t.TempDir(), "singles.journal")
	writeSingles(t, path, s, tasks, func(i int) uint64 {
		if i%5000 == 4999 {
			return liar
		}
		return uint64(1 + i/20000) // three workers, in stretches
	}, liar)
	before, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	j, rp, err := Resume(path, s)
	if err != nil {
		t.Fatal(err)
	}
	c := rp.Compacted
	if c == nil || c.Err != nil || c.After*2 > c.Before {
		t.Fatalf("compaction %+v: want the journal rewritten at half its size at most", c)
	}
	if fi, _ := os.Stat(path); fi.Size() != c.After {
		t.Errorf("journal of %d bytes after a compaction to %d", fi.Size(), c.After)
	}
	if got := slices.Collect(rp.Results()); !reflect.DeepEqual(got, before.Records) || !reflect.DeepEqual(entrySplits(rp), before.Splits) {
		t.Fatalf("after the rewrite: %d results, splits %v; want %d, %v", len(got), entrySplits(rp), len(before.Records), before.Splits)
	}
	if left, _ := filepath.Glob(path + ".compact-*"); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
	redo := Record{Index: 4999, Total: 9998, Unique: 4999, Nodes: 5004, Worker: 5}
	if err := j.Append(redo); err != nil {
		t.Fatalf("the liar's task after the rewrite: %v", err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	j, rp, err = Resume(path, s)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if rp.Compacted != nil {
		t.Errorf("a compacted journal rewritten again: %+v", rp.Compacted)
	}
	if got := slices.Collect(rp.Results()); !reflect.DeepEqual(got, append(before.Records, redo)) {
		t.Fatalf("second resume: %d results, want %d", len(got), len(before.Records)+1)
	}
}

// TestCompactionBatches: a version 1 journal of results that cannot be
// grouped into runs (workers taking turns) is rewritten into batch
// records, half its size at most; a journal in the current format
// with the same results is not rewritten.
func TestCompactionBatches(t *testing.T) {
	s := testSettings
	s.Tasks = 2 * compactMin
	by := func(i int) uint64 { return uint64(1 + i%2) }
	path := filepath.Join(t.TempDir(), "interleaved.journal")
	writeSingles(t, path, s, s.Tasks, by, 0)
	before, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	j, rp, err := Resume(path, s)
	if err != nil {
		t.Fatal(err)
	}
	c := rp.Compacted
	if c == nil || c.Err != nil || c.After*2 > c.Before {
		t.Errorf("compaction %+v: want the journal rewritten at half its size at most", c)
	}
	if got := slices.Collect(rp.Results()); !reflect.DeepEqual(got, before.Records) {
		t.Fatalf("after the rewrite: %d results, want %d", len(got), len(before.Records))
	}
	j.Close()

	path = filepath.Join(t.TempDir(), "current.journal")
	j, err = Create(path, s)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range before.Records {
		if err := j.Queue(r); err != nil {
			t.Fatal(err)
		}
	}
	j.Close()
	j, rp, err = Resume(path, s)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if rp.Compacted != nil {
		t.Errorf("compaction %+v of a journal it cannot shrink", rp.Compacted)
	}
}
