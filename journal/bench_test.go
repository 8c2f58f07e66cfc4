package journal

import (
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
)

// BenchmarkAppend measures one durable commit (write + fsync). The journal goes
// to $NQUEENS_BENCH_DIR when set (to measure a particular disk), else to the
// test's temporary directory.
func BenchmarkAppend(b *testing.B) {
	j := benchJournal(b)
	digest := make([]byte, 32)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if err := j.Append(Record{Index: i, Total: 1 << 30, Unique: 1 << 27, Nodes: 1 << 40, Digest: digest}); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkAppendParallel is BenchmarkAppend from 8 goroutines per CPU, as
// when many workers report at once: group commit shares the fsyncs.
func BenchmarkAppendParallel(b *testing.B) {
	j := benchJournal(b)
	var next atomic.Int64
	b.SetParallelism(8)
	b.RunParallel(func(pb *testing.PB) {
		digest := make([]byte, 32)
		for pb.Next() {
			i := int(next.Add(1))
			if err := j.Append(Record{Index: i, Total: 1 << 30, Unique: 1 << 27, Nodes: 1 << 40, Digest: digest}); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

func benchJournal(b *testing.B) *Journal {
	dir := os.Getenv("NQUEENS_BENCH_DIR")
	if dir == "" {
		dir = b.TempDir()
	}
	path := filepath.Join(dir, "bench.journal")
	os.Remove(path)
	b.Cleanup(func() { os.Remove(path) })
	j, err := Create(path, Settings{N: 18, Depth: 5, Kind: 1, SolverVersion: 1})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { j.Close() })
	return j
}

// BenchmarkOpenMillion replays a journal of 1,000,000 commits (// a resume of a million-task run should read in about a second).
func BenchmarkOpenMillion(b *testing.B) {
	const tasks = 1_000_000
	s := testSettings
	s.Tasks = tasks
	path := filepath.Join(b.TempDir(), "million.journal")
	j, err := Create(path, s)
	if err != nil {
		b.Fatal(err)
	}
	j.Close()
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	for i := range tasks {
		data = appendFrame(data, appendResult(nil, Record{Index: i, Total: 8 * uint64(i%1000), Unique: uint64(i % 1000), Nodes: 1e9 + uint64(i), Worker: 1 + uint64(i%1000)}))
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for range b.N {
		j, rp, err := Open(path, s)
		if err != nil || len(rp.Records) != tasks {
			b.Fatalf("Open: %d records, %v", len(rp.Records), err)
		}
		j.Close()
	}
}
