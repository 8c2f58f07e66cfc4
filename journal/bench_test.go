package journal

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkAppend measures one durable commit (write + fsync). The journal goes
// to $NQUEENS_BENCH_DIR when set (to measure a particular disk), else to the
// test's temporary directory.
func BenchmarkAppend(b *testing.B) {
	dir := os.Getenv("NQUEENS_BENCH_DIR")
	if dir == "" {
		dir = b.TempDir()
	}
	path := filepath.Join(dir, "bench.journal")
	os.Remove(path)
	defer os.Remove(path)
	j, err := Create(path, Settings{N: 18, Depth: 5, Kind: 1, SolverVersion: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer j.Close()
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
