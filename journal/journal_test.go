package journal

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

var testSettings = Settings{
	N: 8, Depth: 3, Kind: 1, Fingerprint: 0xdeadbeefcafef00d, SolverVersion: 1, Tasks: 100,
	Extra: map[string]string{"unique": "false", "format": "cols"},
}

func rec(i int) Record {
	r := Record{Index: i, Total: uint64(i) * 3, Unique: uint64(i), Nodes: uint64(i)*1000 + 7}
	if i%2 == 0 {
		r.Digest = bytes.Repeat([]byte{byte(i)}, 32)
	}
	return r
}

// build creates a journal with records 0..n-1 and returns its path, its bytes
// and the offset where each record starts (plus the end).
func build(t *testing.T, n int) (path string, data []byte, offs []int64) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "state.journal")
	j, err := Create(path, testSettings)
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	for i := range n {
		offs = append(offs, size(t, path))
		if err := j.Append(rec(i)); err != nil {
			t.Fatalf("Append(%d): %v", i, err)
		}
	}
	offs = append(offs, size(t, path))
	if err := j.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	data, err = os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, data, offs
}

func size(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

func wantRecords(t *testing.T, got []Record, n int) {
	t.Helper()
	if len(got) != n {
		t.Fatalf("replayed %d records, want %d", len(got), n)
	}
	for i, r := range got {
		if !reflect.DeepEqual(r, rec(i)) {
			t.Fatalf("record %d = %+v, want %+v", i, r, rec(i))
		}
	}
}

func TestRoundTrip(t *testing.T) {
	path, _, _ := build(t, 5)
	j, rp, err := Open(path, testSettings)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	if rp.Repaired != nil {
		t.Errorf("Repaired = %+v, want nil", rp.Repaired)
	}
	if !reflect.DeepEqual(rp.Settings, testSettings) {
		t.Errorf("Settings = %+v, want %+v", rp.Settings, testSettings)
	}
	wantRecords(t, rp.Records, 5)
	for i := 5; i < 10; i++ {
		if err := j.Append(rec(i)); err != nil {
			t.Fatalf("Append(%d) after reopen: %v", i, err)
		}
	}
	if got := j.Len(); got != 10 {
		t.Errorf("Len() = %d, want 10", got)
	}
	j.Close()
	if err := j.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if err := j.Append(rec(11)); !errors.Is(err, ErrClosed) {
		t.Errorf("Append after Close = %v, want ErrClosed", err)
	}
	rp, err = Read(path)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	wantRecords(t, rp.Records, 10)
}

func TestNilAndEmptyExtraMatch(t *testing.T) {
	s := testSettings
	s.Extra = nil
	path := filepath.Join(t.TempDir(), "j")
	j, err := Create(path, s)
	if err != nil {
		t.Fatal(err)
	}
	j.Close()
	s.Extra = map[string]string{}
	j, _, err = Open(path, s)
	if err != nil {
		t.Fatalf("Open with empty Extra: %v", err)
	}
	j.Close()
}

func TestCreate(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "j")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	j, err := Create(path, testSettings) // an empty file is fine
	if err != nil {
		t.Fatalf("Create over empty file: %v", err)
	}
	j.Close()
	if _, err := Create(path, testSettings); !errors.Is(err, ErrExists) {
		t.Errorf("Create over a journal = %v, want ErrExists", err)
	}
	if left, _ := filepath.Glob(path + ".tmp*"); len(left) > 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
	if _, err := Create(filepath.Join(dir, "missing", "j"), testSettings); err == nil {
		t.Error("Create in a missing directory succeeded")
	}
	bad := testSettings
	bad.N = -1
	if _, err := Create(filepath.Join(dir, "neg"), bad); err == nil {
		t.Error("Create with N=-1 succeeded")
	}
	huge := testSettings
	huge.Extra = map[string]string{"x": strings.Repeat("y", MaxRecordSize)}
	if _, err := Create(filepath.Join(dir, "huge"), huge); err == nil {
		t.Error("Create with oversized settings succeeded")
	}
}

func TestOpenMissing(t *testing.T) {
	_, _, err := Open(filepath.Join(t.TempDir(), "nope"), testSettings)
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Open(missing) = %v, want fs.ErrNotExist", err)
	}
}

func TestNotAJournal(t *testing.T) {
	for name, data := range map[string][]byte{
		"empty":     nil,
		"text":      []byte("hello, world\n"),
		"magic":     []byte(magic),
		"bad frame": append([]byte(magic), 1, 2, 3),
	} {
		path := filepath.Join(t.TempDir(), "j")
		os.WriteFile(path, data, 0o644)
		_, _, err := Open(path, testSettings)
		var ce *CorruptError
		if !errors.Is(err, ErrCorrupt) || !errors.As(err, &ce) {
			t.Errorf("%s: Open = %v, want a *CorruptError", name, err)
		}
	}
}

// TestTornTail cuts the last record at every byte: Open must truncate exactly
// that record, keep the others, and accept new appends.
func TestTornTail(t *testing.T) {
	path, data, offs := build(t, 4)
	last := offs[3]
	for cut := last + 1; cut < int64(len(data)); cut++ {
		checkRepaired(t, fmt.Sprintf("cut at %d", cut), path, data[:cut], last, 3)
	}
}

// TestBadCRCAtTail flips every byte of the last record in turn: unreadable, and
// nothing valid after it, so it is a torn tail too.
func TestBadCRCAtTail(t *testing.T) {
	path, data, offs := build(t, 4)
	for i := offs[3]; i < int64(len(data)); i++ {
		bad := bytes.Clone(data)
		bad[i] ^= 0x5a
		checkRepaired(t, fmt.Sprintf("byte %d flipped", i), path, bad, offs[3], 3)
	}
}

// TestZeroTail: a crash can leave the file longer than what was written, padded
// with zeros.
func TestZeroTail(t *testing.T) {
	path, data, offs := build(t, 4)
	checkRepaired(t, "zeros", path, append(bytes.Clone(data), make([]byte, 4096)...), offs[4], 4)
}

func checkRepaired(t *testing.T, name, path string, data []byte, wantOff int64, wantN int) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	j, rp, err := Open(path, testSettings)
	if err != nil {
		t.Fatalf("%s: Open: %v", name, err)
	}
	defer j.Close()
	if rp.Repaired == nil || rp.Repaired.Offset != wantOff || rp.Repaired.Dropped != int64(len(data))-wantOff {
		t.Fatalf("%s: Repaired = %+v, want offset %d, dropped %d", name, rp.Repaired, wantOff, int64(len(data))-wantOff)
	}
	wantRecords(t, rp.Records, wantN)
	if got := size(t, path); got != wantOff {
		t.Fatalf("%s: file size after repair = %d, want %d", name, got, wantOff)
	}
	if err := j.Append(rec(wantN)); err != nil {
		t.Fatalf("%s: Append after repair: %v", name, err)
	}
	j.Close()
	rp, err = Read(path)
	if err != nil || rp.Repaired != nil {
		t.Fatalf("%s: Read after repair and append = %+v, %v", name, rp.Repaired, err)
	}
	wantRecords(t, rp.Records, wantN+1)
}

// TestCorruptMiddle flips every byte of a middle record in turn: valid records
// follow, so Open must refuse, name the offset, and leave the file alone.
func TestCorruptMiddle(t *testing.T) {
	path, data, offs := build(t, 4)
	for i := offs[1]; i < offs[2]; i++ {
		bad := bytes.Clone(data)
		bad[i] ^= 0x5a
		os.WriteFile(path, bad, 0o644)
		_, _, err := Open(path, testSettings)
		var ce *CorruptError
		if !errors.As(err, &ce) || !errors.Is(err, ErrCorrupt) {
			t.Fatalf("byte %d flipped: Open = %v, want a *CorruptError", i, err)
		}
		if ce.Offset != offs[1] || !strings.Contains(err.Error(), fmt.Sprintf("offset %d", offs[1])) {
			t.Fatalf("byte %d flipped: error %q, want offset %d", i, err, offs[1])
		}
		if got, _ := os.ReadFile(path); !bytes.Equal(got, bad) {
			t.Fatalf("byte %d flipped: Open changed the file", i)
		}
	}
}

func TestCorruptHeader(t *testing.T) {
	path, data, _ := build(t, 2)
	for i := len(magic); i < len(magic)+frameHeader+4; i++ {
		bad := bytes.Clone(data)
		bad[i] ^= 0x01
		os.WriteFile(path, bad, 0o644)
		if _, _, err := Open(path, testSettings); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("header byte %d flipped: Open = %v, want ErrCorrupt", i, err)
		}
	}
}

func TestSettingsMismatch(t *testing.T) {
	path, data, _ := build(t, 3)
	change := map[string]func(*Settings){
		"n":              func(s *Settings) { s.N = 9 },
		"depth":          func(s *Settings) { s.Depth = 4 },
		"kind":           func(s *Settings) { s.Kind = 2 },
		"fingerprint":    func(s *Settings) { s.Fingerprint++ },
		"solver_version": func(s *Settings) { s.SolverVersion = 2 },
		"tasks":          func(s *Settings) { s.Tasks = 99 },
		"format":         func(s *Settings) { s.Extra = map[string]string{"unique": "false", "format": "board"} },
		"unique":         func(s *Settings) { s.Extra = map[string]string{"format": "cols"} },
		"limit":          func(s *Settings) { s.Extra = map[string]string{"unique": "false", "format": "cols", "limit": "3"} },
	}
	for field, f := range change {
		want := testSettings
		want.Extra = map[string]string{"unique": "false", "format": "cols"}
		f(&want)
		_, rp, err := Open(path, want)
		if !errors.Is(err, ErrSettingsMismatch) {
			t.Fatalf("%s differs: Open = %v, want ErrSettingsMismatch", field, err)
		}
		if !strings.Contains(err.Error(), field+":") {
			t.Errorf("%s differs: error %q does not name the field", field, err)
		}
		if !reflect.DeepEqual(rp.Settings, testSettings) {
			t.Errorf("%s differs: Replay.Settings = %+v, want the journal's", field, rp.Settings)
		}
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, data) {
		t.Error("a refused Open changed the file")
	}
}

func TestDuplicateAppend(t *testing.T) {
	path, _, _ := build(t, 3)
	j, _, err := Open(path, testSettings)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if err := j.Append(rec(1)); !errors.Is(err, ErrDuplicate) {
		t.Errorf("Append(replayed index 1) = %v, want ErrDuplicate", err)
	}
	if err := j.Append(rec(3)); err != nil {
		t.Fatal(err)
	}
	if err := j.Append(rec(3)); !errors.Is(err, ErrDuplicate) {
		t.Errorf("Append(index 3 twice) = %v, want ErrDuplicate", err)
	}
	for _, i := range []int{-1, 100, 1 << 40} {
		if err := j.Append(Record{Index: i}); err == nil {
			t.Errorf("Append(index %d) succeeded, want out of range", i)
		}
	}
	if err := j.Append(Record{Index: 50, Digest: make([]byte, MaxDigestSize+1)}); err == nil {
		t.Error("Append with an oversized digest succeeded")
	}
	if err := j.Append(Record{Index: 50}); err != nil {
		t.Errorf("Append(50) after refusals: %v", err)
	}
}

// TestDuplicateOnReplay writes a journal that commits a task twice (which
// Append never does) and expects Open to refuse it at the second record.
func TestDuplicateOnReplay(t *testing.T) {
	path, data, offs := build(t, 3)
	data = appendFrame(data, appendResult(nil, rec(1)))
	os.WriteFile(path, data, 0o644)
	_, _, err := Open(path, testSettings)
	var ce *CorruptError
	if !errors.Is(err, ErrDuplicate) || !errors.Is(err, ErrCorrupt) || !errors.As(err, &ce) || ce.Offset != offs[3] {
		t.Fatalf("Open = %v, want ErrDuplicate at offset %d", err, offs[3])
	}
}

func TestLocked(t *testing.T) {
	path, _, _ := build(t, 1)
	j, _, err := Open(path, testSettings)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := Open(path, testSettings); !errors.Is(err, ErrLocked) {
		t.Errorf("second Open = %v, want ErrLocked", err)
	}
	j.Close()
	j, _, err = Open(path, testSettings)
	if err != nil {
		t.Fatalf("Open after Close: %v", err)
	}
	j.Close()
}

func TestConcurrentAppend(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j")
	j, err := Create(path, testSettings)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := g; i < 40; i += 4 {
				if err := j.Append(rec(i)); err != nil {
					t.Errorf("Append(%d): %v", i, err)
				}
			}
		})
	}
	wg.Wait()
	j.Close()
	rp, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	got := make(map[int]Record)
	for _, r := range rp.Records {
		got[r.Index] = r
	}
	for i := range 40 {
		if !reflect.DeepEqual(got[i], rec(i)) {
			t.Errorf("record %d = %+v, want %+v", i, got[i], rec(i))
		}
	}
}

func TestDiff(t *testing.T) {
	a := Settings{N: 8, Extra: map[string]string{"a": "1"}}
	b := Settings{N: 9, Extra: map[string]string{"b": "2"}}
	got := strings.Join(a.Diff(b), "; ")
	want := `n: 8 != 9; a: "1" != (unset); b: (unset) != "2"`
	if got != want {
		t.Errorf("Diff = %q, want %q", got, want)
	}
	if d := a.Diff(a); len(d) != 0 {
		t.Errorf("Diff(self) = %q, want none", d)
	}
}

// TestCloseWhileAppending: Close waits for in-flight fsyncs; every Append
// either succeeds (and its record is in the file) or reports ErrClosed.
func TestCloseWhileAppending(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j")
	j, err := Create(path, testSettings)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	ok := map[int]bool{}
	for g := range 8 {
		wg.Go(func() {
			for i := g; i < 100; i += 8 {
				err := j.Append(rec(i))
				if errors.Is(err, ErrClosed) {
					return
				}
				if err != nil {
					t.Errorf("Append(%d): %v", i, err)
					return
				}
				mu.Lock()
				ok[i] = true
				mu.Unlock()
			}
		})
	}
	for j.Len() < 20 {
		runtime.Gosched()
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	rp, err := Read(path)
	if err != nil || rp.Repaired != nil {
		t.Fatalf("Read = %+v, %v", rp.Repaired, err)
	}
	got := map[int]bool{}
	for _, r := range rp.Records {
		got[r.Index] = true
	}
	for i := range ok {
		if !got[i] {
			t.Errorf("acknowledged record %d missing", i)
		}
	}
}

// TestDistrust: a distrusted worker's results leave the replay, whether
// written before or after its distrust record would be; their tasks can be
// committed again by others; and the distrust survives a reopen.
func TestDistrust(t *testing.T) {
	const liar, honest = 0x1111, 0x2222
	path := filepath.Join(t.TempDir(), "state.journal")
	j, err := Create(path, testSettings)
	if err != nil {
		t.Fatal(err)
	}
	by := func(i int, w uint64) Record { r := rec(i); r.Worker = w; return r }
	for _, r := range []Record{by(0, honest), by(1, liar), by(2, liar), rec(3)} {
		if err := j.Append(r); err != nil {
			t.Fatalf("Append(%d): %v", r.Index, err)
		}
	}
	if err := j.Append(by(1, honest)); !errors.Is(err, ErrDuplicate) {
		t.Fatalf("Append over a trusted commit = %v, want ErrDuplicate", err)
	}
	if err := j.Distrust(liar); err != nil {
		t.Fatal(err)
	}
	if err := j.Distrust(liar); err != nil {
		t.Fatalf("second Distrust: %v", err)
	}
	if err := j.Distrust(0); err == nil {
		t.Error("Distrust(0) succeeded")
	}
	before := size(t, path)
	if err := j.Append(by(4, liar)); err != nil || size(t, path) != before {
		t.Fatalf("Append of the liar's late result = %v, file %d -> %d bytes; want nil and nothing written", err, before, size(t, path))
	}
	if err := j.Append(by(1, honest)); err != nil {
		t.Fatalf("Append of a distrusted worker's task: %v", err)
	}
	if n := j.Len(); n != 3 {
		t.Errorf("Len = %d, want 3 (tasks 0, 1 and 3)", n)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	want := []Record{by(0, honest), rec(3), by(1, honest)}
	j, rp, err := Resume(path, testSettings) // the results read again from the bytes
	if err != nil {
		t.Fatal(err)
	}
	if got := slices.Collect(rp.Results()); rp.Records != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("Resume after a distrust: Records %v, Results %+v; want nil and %+v", rp.Records, got, want)
	}
	if got := slices.Collect(rp.Results()); !reflect.DeepEqual(got, want) {
		t.Fatalf("Results read twice = %+v, want %+v again", got, want)
	}
	j.Close()
	j, rp, err = Open(path, testSettings)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if !reflect.DeepEqual(rp.Records, want) || !reflect.DeepEqual(slices.Collect(rp.Results()), want) {
		t.Fatalf("replay after a distrust = %+v, want %+v", rp.Records, want)
	}
	if err := j.Append(by(2, honest)); err != nil {
		t.Errorf("Append after reopen of the liar's other task: %v", err)
	}
	if err := j.Append(by(5, liar)); err != nil {
		t.Errorf("Append of the liar after reopen = %v, want nil (dropped)", err)
	}
	if err := j.Append(by(0, honest)); !errors.Is(err, ErrDuplicate) {
		t.Errorf("Append over a replayed trusted commit = %v, want ErrDuplicate", err)
	}
	if err := j.Append(by(1, honest)); !errors.Is(err, ErrDuplicate) {
		t.Errorf("Append over a replayed re-commit of the liar's task = %v, want ErrDuplicate", err)
	}
	if n := j.Len(); n != 4 {
		t.Errorf("Len after reopen = %d, want 4 (tasks 0, 1, 2 and 3)", n)
	}
}

// TestRecommitWithoutDistrust: a journal that commits a task again without
// distrusting its first worker (which Append never writes) is corrupt, and
// so is a result of a worker after its distrust record.
func TestRecommitWithoutDistrust(t *testing.T) {
	path, data, offs := build(t, 2)
	a, b := rec(2), rec(2)
	a.Worker, b.Worker = 7, 8
	bad1 := appendFrame(appendFrame(append([]byte(nil), data...), appendResult(nil, a)), appendResult(nil, b))
	bad2 := appendFrame(appendFrame(append([]byte(nil), data...), appendDistrust(nil, 7)), appendResult(nil, a))
	ok := appendFrame(appendFrame(appendFrame(append([]byte(nil), data...), appendResult(nil, a)), appendDistrust(nil, 7)), appendResult(nil, b))
	for name, img := range map[string][]byte{"recommit": bad1, "after distrust": bad2} {
		os.WriteFile(path, img, 0o644)
		if _, err := Read(path); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: Read = %v, want ErrCorrupt (record at %d)", name, err, offs[2])
		}
	}
	os.WriteFile(path, ok, 0o644)
	rp, err := Read(path)
	if err != nil || len(rp.Records) != 3 || !reflect.DeepEqual(rp.Records[2], b) {
		t.Errorf("recommit after a distrust: Read = %+v, %v; want records 0, 1 and task 2 by worker 8", rp.Records, err)
	}
}

func TestObserveSync(t *testing.T) {
	j, err := Create(filepath.Join(t.TempDir(), "state"), Settings{N: 8, Depth: 1, Kind: 1, Tasks: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	var mu sync.Mutex
	var got []time.Duration
	j.ObserveSync(func(d time.Duration) { mu.Lock(); got = append(got, d); mu.Unlock() })
	for i := range 3 {
		if err := j.Append(Record{Index: i, Total: 1}); err != nil {
			t.Fatal(err)
		}
	}
	j.ObserveSync(nil)
	if err := j.Append(Record{Index: 3, Total: 1}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 3 {
		t.Fatalf("observer saw %d fsyncs of 3 sequential appends, want 3", len(got))
	}
	for _, d := range got {
		if d <= 0 {
			t.Errorf("fsync took %v, want > 0", d)
		}
	}
}
