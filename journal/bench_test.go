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
