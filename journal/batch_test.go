package journal

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// kinds counts the records of each type in the journal at path.
func kinds(t *testing.T, path string) map[byte]int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, off, err := parseHeader(data)
	if err != nil {
		t.Fatal(err)
	}
	n := map[byte]int{}
	for off < len(data) {
		p, next, err := readFrame(data, off)
		if err != nil {
			t.Fatalf("frame at %d: %v", off, err)
		}
		n[p[0]]++
		off = next
	}
	return n
}

// batchWorkers are the sessions of the batch tests: none (0), small and
// random-looking keys.
var batchWorkers = []uint64{0, 7, 1<<60 + 3, 0xfeedfacecafebeef}

// queueShuffled queues the results of tasks [from, to) in a random order
// within blocks of 64 (workers finish near tasks at about the same time),
// each by a worker of batchWorkers, with a digest on every 1000th, a
// split after every 997th and a sync every 500 results, and returns them
// in commit order.
func queueShuffled(t *testing.T, j *Journal, from, to int, rng *rand.Rand) []Record {
	t.Helper()
	var order []int
	for b := 0; b < to-from; b += 64 {
		for _, k := range rng.Perm(min(64, to-from-b)) {
			order = append(order, b+k)
		}
	}
	var out []Record
	for i, k := range order {
		idx := from + k
		r := Record{Index: idx, Total: uint64(2 * (idx % 50)), Unique: uint64(idx % 50), Nodes: uint64(idx%90) + 1, Worker: batchWorkers[rng.IntN(len(batchWorkers))]}
		if i%1000 == 999 {
			r.Digest = []byte("a digest of its solutions")
		}
		if err := j.Queue(r); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
		if i%997 == 996 {
			if err := j.Split(Split{Parent: idx, First: tasksOf(j), Count: 3}); err != nil {
				t.Fatal(err)
			}
		}
		if i%500 == 499 {
			if err := j.Sync(); err != nil {
				t.Fatal(err)
			}
		}
	}
	return out
}

// tasksOf is the number of tasks j knows: the plan's and every split's
// children.
func tasksOf(j *Journal) int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.tasks
}

// TestBatchRecords: single results queued in a random order by several
// workers read back as they were committed, in batch records of a few
// bytes a result (digests in records of their own, splits between), the
// workers named once; a resume appends to the batches with the same
// numbers and names a new worker once.
func TestBatchRecords(t *testing.T) {
	const tasks = 20_000
	s := testSettings
	s.Tasks = tasks
	path := filepath.Join(t.TempDir(), "batches.journal")
	j, err := Create(path, s)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	want := queueShuffled(t, j, 0, tasks/2, rng)
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(path)
	per := float64(fi.Size()) / float64(len(want))
	t.Logf("%d results in %d bytes: %.2f a result", len(want), fi.Size(), per)
	if per > 8 {
		t.Errorf("%.1f journal bytes a result, want at most 8 (batches)", per)
	}
	got, err := Read(path)
	if err != nil || !reflect.DeepEqual(got.Records, want) {
		t.Fatalf("read back %d results (%v), want the %d committed, in order", len(got.Records), err, len(want))
	}
	n := kinds(t, path)
	if n[recWorker] != len(batchWorkers)-1 || n[recResult] != len(want)/1000 || n[recBatch] == 0 {
		t.Errorf("records by type %v: want %d worker records, %d results (the digests), batches", n, len(batchWorkers)-1, len(want)/1000)
	}

	j, rp, err := Resume(path, s)
	if err != nil {
		t.Fatal(err)
	}
	if rp.Compacted != nil {
		t.Errorf("a batched journal rewritten: %+v", rp.Compacted)
	}
	more := queueShuffled(t, j, tasks/2, tasks, rng)
	extra := Record{Index: tasksOf(j) - 1, Total: 4, Unique: 1, Nodes: 3, Worker: 99}
	if err := j.Append(extra); err != nil {
		t.Fatal(err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	want = append(append(want, more...), extra)
	if got, err := Read(path); err != nil || !reflect.DeepEqual(got.Records, want) {
		t.Fatalf("after a resume: %d results (%v), want %d", len(got.Records), err, len(want))
	}
	if n := kinds(t, path); n[recWorker] != len(batchWorkers) {
		t.Errorf("%d worker records after the resume, want %d: one more for the new worker", n[recWorker], len(batchWorkers))
	}
}

// TestBatchDistrust: a distrusted worker's results inside batches are
// released at once and dropped by the replay; others take its tasks.
func TestBatchDistrust(t *testing.T) {
	s := testSettings
	s.Tasks = 1000
	path := filepath.Join(t.TempDir(), "liar.journal")
	j, err := Create(path, s)
	if err != nil {
		t.Fatal(err)
	}
	const liar = 0xbad
	var kept []Record
	for i := range 1000 {
		r := Record{Index: i, Total: 2, Unique: 1, Nodes: 5, Worker: uint64(1 + i%3)}
		if i%3 == 2 {
			r.Worker = liar
		} else {
			kept = append(kept, r)
		}
		if err := j.Queue(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := j.Distrust(liar); err != nil {
		t.Fatal(err)
	}
	redo := Record{Index: 2, Total: 2, Unique: 1, Nodes: 5, Worker: 1}
	if err := j.Append(redo); err != nil {
		t.Fatalf("a distrusted worker's task from another: %v", err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	j, rp, err := Resume(path, s)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if got := slices.Collect(rp.Results()); !reflect.DeepEqual(got, append(kept, redo)) {
		t.Fatalf("%d results stand, want %d (none of the liar's, the redone task last)", len(got), len(kept)+1)
	}
	if err := j.Append(Record{Index: 5, Total: 2, Unique: 1, Nodes: 5, Worker: 2}); err != nil {
		t.Errorf("the liar's task 5 after the resume: %v", err)
	}
}

// TestTornBatch: a crash that tears the last batch loses that batch's
// results only (none was acknowledged: the fsync did not return), and the
// resume appends after the repair.
func TestTornBatch(t *testing.T) {
	s := testSettings
	s.Tasks = 100
	path := filepath.Join(t.TempDir(), "torn.journal")
	j, err := Create(path, s)
	if err != nil {
		t.Fatal(err)
	}
	var first []Record
	for i := range 60 {
		r := Record{Index: i, Total: 2, Unique: 1, Nodes: 5, Worker: 7}
		if err := j.Queue(r); err != nil {
			t.Fatal(err)
		}
		if i < 40 {
			first = append(first, r)
		}
		if i == 39 {
			if err := j.Sync(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(path)
	if err := os.Truncate(path, fi.Size()-3); err != nil {
		t.Fatal(err)
	}
	j, rp, err := Resume(path, s)
	if err != nil {
		t.Fatal(err)
	}
	if rp.Repaired == nil || !reflect.DeepEqual(slices.Collect(rp.Results()), first) {
		t.Fatalf("repair %+v, %d results; want the torn batch dropped and the first 40 kept", rp.Repaired, len(slices.Collect(rp.Results())))
	}
	if err := j.Append(Record{Index: 50, Total: 2, Unique: 1, Nodes: 5, Worker: 7}); err != nil {
		t.Fatal(err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	if got, err := Read(path); err != nil || len(got.Records) != 41 {
		t.Fatalf("after the repair and an append: %d results, %v", len(got.Records), err)
	}
}

// writeVersion1 makes an empty journal of format version 1, as a build
// before batch records wrote it.
func writeVersion1(t *testing.T, path string, s Settings) {
	t.Helper()
	setHeaderVersion(t, path, s, 1)
}

// setHeaderVersion writes at path an empty journal of settings s whose
// header says format version v.
func setHeaderVersion(t *testing.T, path string, s Settings, v byte) {
	t.Helper()
	h := encodeSettings(s)
	h[1] = v // a one-byte varint
	if err := os.WriteFile(path, appendFrame([]byte(magic), h), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestFormatVersions: a version 1 journal takes single records still (a
// build that reads version 1 only must not meet a batch); a version this
// build does not know is refused in one line.
func TestFormatVersions(t *testing.T) {
	s := testSettings
	path := filepath.Join(t.TempDir(), "v1.journal")
	writeVersion1(t, path, s)
	j, _, err := Resume(path, s)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		if err := j.Queue(Record{Index: i, Total: 2, Unique: 1, Nodes: 5, Worker: 3}); err != nil {
			t.Fatal(err)
		}
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	if n := kinds(t, path); n[recResult] != 5 || n[recBatch]+n[recWorker] > 0 {
		t.Errorf("a version 1 journal holds records %v, want 5 single results", n)
	}
	setHeaderVersion(t, path, s, formatVersion+1)
	_, _, err = Resume(path, s)
	if err == nil || !strings.Contains(err.Error(), "unsupported journal format version 3") || strings.Contains(err.Error(), "\n") {
		t.Errorf("a later version: %v; want one line naming it", err)
	}
}

// TestWorkerNumbersBounded: once maxWorkerNumbers workers have numbers,
// a new worker's results are single records (the map stops growing),
// numbered workers' still go into batches, and all read back.
func TestWorkerNumbersBounded(t *testing.T) {
	s := testSettings
	path := filepath.Join(t.TempDir(), "many.journal")
	j, err := Create(path, s)
	if err != nil {
		t.Fatal(err)
	}
	j.mu.Lock()
	for k := range uint64(maxWorkerNumbers) {
		j.batch.numbers[1<<40+k] = k + 1 // as if named earlier in the file
	}
	j.mu.Unlock()
	newcomer := Record{Index: 1, Total: 2, Unique: 1, Nodes: 5, Worker: 77}
	if err := j.Append(newcomer); err != nil {
		t.Fatal(err)
	}
	if len(j.batch.numbers) != maxWorkerNumbers {
		t.Errorf("%d worker numbers, want the bound %d", len(j.batch.numbers), maxWorkerNumbers)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	if n := kinds(t, path); n[recResult] != 1 || n[recBatch]+n[recWorker] != 0 {
		t.Errorf("records %v: want the newcomer's result as a single record", n)
	}
	if got, err := Read(path); err != nil || !reflect.DeepEqual(got.Records, []Record{newcomer}) {
		t.Errorf("read back %v (%v), want the newcomer's result", got.Records, err)
	}
}
