package journal

import (
	"errors"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
)

// runOf is the results of tasks first..first+n-1 by worker w.
func runOf(first, n int, w uint64) []Record {
	rs := make([]Record, n)
	for i := range rs {
		rs[i] = Record{Index: first + i, Total: uint64(2 * (first + i)), Unique: uint64(first + i), Nodes: uint64(first+i)*100 + 3, Worker: w}
	}
	return rs
}

// TestRunRecords: runs of results are written as one record each, a few
// bytes a task, replay as the results they hold, in order, and count
// toward duplicates, distrust and Len as results do.
func TestRunRecords(t *testing.T) {
	const liar, honest = 0x51, 0x52
	s := testSettings
	s.Tasks = 1000
	path := filepath.Join(t.TempDir(), "runs.journal")
	j, err := Create(path, s)
	if err != nil {
		t.Fatal(err)
	}
	before := size(t, path)
	if err := j.QueueRun(runOf(0, 256, honest)); err != nil {
		t.Fatal(err)
	}
	if err := j.Sync(); err != nil {
		t.Fatal(err)
	}
	if per := float64(size(t, path)-before) / 256; per > 10 {
		t.Errorf("%.1f bytes a task in a run record, want at most 10", per)
	}
	for name, rs := range map[string][]Record{
		"a gap":         append(runOf(300, 2, honest), runOf(303, 1, honest)...),
		"two workers":   append(runOf(300, 2, honest), runOf(302, 1, liar)...),
		"past the plan": runOf(999, 2, honest),
		"too long":      runOf(0, maxRunRecord+1, honest),
		"a digest":      {{Index: 300, Worker: honest, Digest: []byte{1}}},
	} {
		if err := j.QueueRun(rs); err == nil || errors.Is(err, ErrDuplicate) {
			t.Errorf("QueueRun of a run with %s = %v, want refused", name, err)
		}
	}
	if err := j.QueueRun(runOf(255, 3, honest)); !errors.Is(err, ErrDuplicate) {
		t.Errorf("QueueRun over a committed task = %v, want ErrDuplicate", err)
	}
	if err := j.Append(runOf(100, 1, honest)[0]); !errors.Is(err, ErrDuplicate) {
		t.Errorf("Append of a task of a run = %v, want ErrDuplicate", err)
	}
	for _, err := range []error{j.QueueRun(runOf(400, 10, liar)), j.Append(rec(500)), j.Distrust(liar), j.QueueRun(runOf(400, 4, honest))} {
		if err != nil {
			t.Fatal(err)
		}
	}
	if n := j.Len(); n != 256+1+4 {
		t.Errorf("Len = %d, want %d", n, 256+1+4)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	want := append(append(runOf(0, 256, honest), rec(500)), runOf(400, 4, honest)...)
	j, rp, err := Resume(path, s)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if got := slices.Collect(rp.Results()); !reflect.DeepEqual(got, want) {
		t.Fatalf("replay: %d results, want %d: %+v", len(got), len(want), got)
	}
	if err := j.QueueRun(runOf(404, 6, honest)); err != nil {
		t.Errorf("after the replay, the liar's tasks not yet redone: %v, want taken", err)
	}
	if err := j.Append(runOf(401, 1, honest)[0]); !errors.Is(err, ErrDuplicate) {
		t.Errorf("after the replay, a task of a run = %v, want ErrDuplicate", err)
	}
}
