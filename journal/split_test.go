package journal

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestSplitReplay splits tasks, commits their children, and checks that
// a replay numbers the same tasks: the splits come back in order, a
// child's commit is accepted only once its split is known, and an index
// past every split is refused.
func TestSplitReplay(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.journal")
	j, err := Create(path, testSettings) // 100 tasks
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Append(Record{Index: 100}); err == nil {
		t.Fatal("Append(100) before any split succeeded")
	}
	splits := []Split{{Parent: 7, First: 100, Count: 3}, {Parent: 101, First: 103, Count: 2}}
	for _, sp := range splits {
		if err := j.Split(sp); err != nil {
			t.Fatalf("Split(%+v): %v", sp, err)
		}
	}
	for _, bad := range []Split{{Parent: 7, First: 105, Count: 2}, {Parent: 8, First: 100, Count: 2}, {Parent: 105, First: 105, Count: 2}, {Parent: 9, First: 105, Count: 0}} {
		if err := j.Split(bad); err == nil {
			t.Errorf("Split(%+v) succeeded, want an error", bad)
		}
	}
	for _, i := range []int{100, 104, 3} {
		if err := j.Append(Record{Index: i, Total: 2, Unique: 1}); err != nil {
			t.Fatalf("Append(%d): %v", i, err)
		}
	}
	if err := j.Append(Record{Index: 105}); err == nil {
		t.Error("Append(105), past every split, succeeded")
	}
	j.Close()
	j, rp, err := Open(path, testSettings)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer j.Close()
	if !reflect.DeepEqual(rp.Splits, splits) {
		t.Errorf("Splits = %+v, want %+v", rp.Splits, splits)
	}
	if len(rp.Records) != 3 || rp.Records[1].Index != 104 {
		t.Errorf("Records = %+v, want tasks 100, 104, 3", rp.Records)
	}
	if err := j.Split(Split{Parent: 7, First: 105, Count: 2}); err == nil {
		t.Error("a task split before the reopen was split again")
	}
	if err := j.Split(Split{Parent: 102, First: 105, Count: 2}); err != nil {
		t.Errorf("Split after reopen: %v", err)
	}
}

// TestSplitUnsyncedAtClose checks that Close writes a split no commit
// carried to the disk yet.
func TestSplitUnsyncedAtClose(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.journal")
	j, err := Create(path, testSettings)
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Split(Split{Parent: 0, First: 100, Count: 4}); err != nil {
		t.Fatal(err)
	}
	j.Close()
	rp, err := Read(path)
	if err != nil || len(rp.Splits) != 1 {
		t.Fatalf("Read = %+v, %v; want the split", rp.Splits, err)
	}
}

// TestSplitCorrupt writes split records a Journal would refuse and checks
// that a replay refuses them too, naming why.
func TestSplitCorrupt(t *testing.T) {
	for _, tc := range []struct {
		name   string
		splits []Split
		commit int
		want   string
	}{
		{"numbering", []Split{{Parent: 1, First: 99, Count: 2}}, -1, "numbers its children"},
		{"twice", []Split{{Parent: 1, First: 100, Count: 2}, {Parent: 1, First: 102, Count: 2}}, -1, "split twice"},
		{"no child", []Split{{Parent: 1, First: 100, Count: 0}}, -1, "0 children"},
		{"commit past", []Split{{Parent: 1, First: 100, Count: 2}}, 102, "out of range"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "state.journal")
			j, err := Create(path, testSettings)
			if err != nil {
				t.Fatal(err)
			}
			j.Append(rec(0))
			j.Close()
			data, _ := os.ReadFile(path)
			for _, sp := range tc.splits {
				data = appendFrame(data, appendSplit(nil, sp))
			}
			if tc.commit >= 0 {
				data = appendFrame(data, appendResult(nil, Record{Index: tc.commit}))
			}
			data = appendFrame(data, appendResult(nil, rec(1))) // so the bad record is not a torn tail
			os.WriteFile(path, data, 0o644)
			_, err = Read(path)
			var ce *CorruptError
			if !errors.As(err, &ce) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Read = %v, want a CorruptError saying %q", err, tc.want)
			}
		})
	}
}

// TestReopenReplay: a split task reopened (a quarantine dropped its
// subtree) may be split again, its children numbered after every task
// made; a reopen of a task not split is refused; the replay gives the
// splits and the reopen in journal order.
func TestReopenReplay(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.journal")
	j, err := Create(path, testSettings) // 100 tasks
	if err != nil {
		t.Fatal(err)
	}
	splits := []Split{{Parent: 7, First: 100, Count: 3}, {Parent: 7, Reopen: true}, {Parent: 7, First: 103, Count: 3}}
	for _, sp := range splits {
		if err := j.Split(sp); err != nil {
			t.Fatalf("Split(%+v): %v", sp, err)
		}
	}
	for _, bad := range []Split{{Parent: 8, Reopen: true}, {Parent: 7, First: 106, Count: 2}, {Parent: 106, Reopen: true}} {
		if err := j.Split(bad); err == nil {
			t.Errorf("Split(%+v) succeeded, want an error", bad)
		}
	}
	if err := j.Append(Record{Index: 104, Total: 2, Unique: 1}); err != nil {
		t.Fatal(err)
	}
	j.Close()
	j, rp, err := Open(path, testSettings)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	if !reflect.DeepEqual(rp.Splits, splits) {
		t.Errorf("Splits = %+v, want %+v", rp.Splits, splits)
	}
	if err := j.Split(Split{Parent: 7, Reopen: true}); err != nil {
		t.Errorf("reopen after resume: %v", err)
	}
	j.Close()
}

// TestEntriesInOrder: Resume's Entries give the splits, reopens and
// standing results in the file's order, a distrusted worker's results
// left out, so a replay can collapse as it goes.
func TestEntriesInOrder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.journal")
	j, err := Create(path, testSettings) // 100 tasks
	if err != nil {
		t.Fatal(err)
	}
	steps := []func() error{
		func() error { return j.Split(Split{Parent: 7, First: 100, Count: 2}) },
		func() error { return j.Append(Record{Index: 100, Total: 2, Unique: 1, Worker: 9}) },
		func() error { return j.Append(Record{Index: 101, Total: 2, Unique: 1, Worker: 8}) },
		func() error { return j.Distrust(9) },
		func() error { return j.Split(Split{Parent: 7, Reopen: true}) },
		func() error { return j.Split(Split{Parent: 7, First: 102, Count: 2}) },
		func() error { return j.Append(Record{Index: 102, Total: 2, Unique: 1, Worker: 8}) },
	}
	for i, step := range steps {
		if err := step(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	j.Close()
	j, rp, err := Resume(path, testSettings)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	var got []string
	for e := range rp.Entries() {
		if e.IsSplit {
			got = append(got, fmt.Sprintf("split %d reopen %v", e.Split.Parent, e.Split.Reopen))
		} else {
			got = append(got, fmt.Sprintf("result %d", e.Result.Index))
		}
	}
	want := []string{"split 7 reopen false", "result 101", "split 7 reopen true", "split 7 reopen false", "result 102"}
	if !reflect.DeepEqual(got, want) || rp.Splits != nil {
		t.Errorf("entries %q (Splits %v), want %q and no Splits", got, rp.Splits, want)
	}
}
