package main

// The answers of the simulated workers: a table of every task's counts,
// made once by the solver and cached on disk, or the same made-up count
// for every task (--synthetic).

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nqueens/nqueens/solver"
)

// syntheticCounts is what --synthetic answers for every task: a plausible
// count (even, unique no more than total) that is not the truth.
var syntheticCounts = solver.Counts{Total: 2, Unique: 1, Nodes: 1}

// syntheticTable answers every task with syntheticCounts.
func syntheticTable(tasks int) []solver.Counts {
	t := make([]solver.Counts, tasks)
	for i := range t {
		t[i] = syntheticCounts
	}
	return t
}

// expected is the total an exact run reports: the board's published
// counts, or with synthetic answers theirs times the number of tasks.
func expected(n, tasks int, synthetic bool) (solver.Counts, bool) {
	if synthetic {
		return solver.Counts{Total: syntheticCounts.Total * uint64(tasks), Unique: syntheticCounts.Unique * uint64(tasks)}, true
	}
	return solver.Known(n)
}

// The count table: every task's counts, computed once by the solver and
// cached in a small binary file keyed by N, depth and solver version.
//
//	magic "NQCT" | format u32 | n u32 | depth u32 | solver version u32 |
//	tasks u32 | fingerprint u64 | tasks × (total, unique, nodes u64)
//
// all little-endian. A file that does not match the plan, or whose totals
// do not sum to the published count, is computed again.
const (
	tableMagic  = "NQCT"
	tableFormat = 1
	tableHeader = 4 + 5*4 + 8
)

// countTable returns the counts of every task of plan, from the cache when
// it holds them, else from the solver (then cached).
func countTable(dir string, plan solver.Plan, logw io.Writer) ([]solver.Counts, error) {
	if dir == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			return nil, fmt.Errorf("%w: no cache folder (%v): pass --cache DIR", errClusterUsage, err)
		}
		dir = filepath.Join(base, "nqueens")
	}
	path := filepath.Join(dir, fmt.Sprintf("counts-n%d-d%d-v%d.bin", plan.N, plan.Depth, solver.Version))
	if t, err := readTable(path, plan); err == nil {
		return t, nil
	}
	fmt.Fprintf(logw, "nqbench cluster: counting the %d tasks of n=%d depth=%d once for %s\n", len(plan.Tasks), plan.N, plan.Depth, path)
	t0 := time.Now()
	t, err := computeTable(plan, runtime.NumCPU())
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(logw, "nqbench cluster: counted in %.1f s\n", time.Since(t0).Seconds())
	if err := writeTable(path, plan, t); err != nil {
		fmt.Fprintf(logw, "nqbench cluster: count table not cached: %v\n", err)
	}
	return t, nil
}

// computeTable counts every task of plan on threads goroutines.
func computeTable(plan solver.Plan, threads int) ([]solver.Counts, error) {
	table := make([]solver.Counts, len(plan.Tasks))
	var next atomic.Int64
	var failed atomic.Pointer[error]
	var wg sync.WaitGroup
	for range max(threads, 1) {
		wg.Go(func() {
			for failed.Load() == nil {
				i := int(next.Add(1) - 1)
				if i >= len(plan.Tasks) {
					return
				}
				c, err := solver.CountTask(plan.N, plan.Tasks[i])
				if err != nil {
					failed.Store(&err)
					return
				}
				table[i] = c
			}
		})
	}
	wg.Wait()
	if p := failed.Load(); p != nil {
		return nil, *p
	}
	if err := checkTable(plan, table); err != nil {
		return nil, err
	}
	return table, nil
}

// checkTable checks that the table's counts sum to the published ones.
func checkTable(plan solver.Plan, table []solver.Counts) error {
	var sum solver.Counts
	for _, c := range table {
		var err error
		if sum, err = sum.Add(c); err != nil {
			return err
		}
	}
	if k, _ := solver.Known(plan.N); sum.Total != k.Total || sum.Unique != k.Unique {
		return fmt.Errorf("count table of n=%d sums to %d/%d, want %d/%d", plan.N, sum.Total, sum.Unique, k.Total, k.Unique)
	}
	return nil
}

// tableHead is the header a table file of plan must start with.
func tableHead(plan solver.Plan) []byte {
	b := make([]byte, 0, tableHeader)
	b = append(b, tableMagic...)
	for _, v := range []int{tableFormat, plan.N, plan.Depth, solver.Version, len(plan.Tasks)} {
		b = binary.LittleEndian.AppendUint32(b, uint32(v))
	}
	return binary.LittleEndian.AppendUint64(b, plan.Fingerprint())
}

func readTable(path string, plan solver.Plan) ([]solver.Counts, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	head := tableHead(plan)
	if len(b) != len(head)+24*len(plan.Tasks) || !bytes.Equal(b[:len(head)], head) {
		return nil, fmt.Errorf("%s: not the table of this plan", path)
	}
	t := make([]solver.Counts, len(plan.Tasks))
	for i, rec := 0, b[len(head):]; i < len(t); i, rec = i+1, rec[24:] {
		t[i] = solver.Counts{Total: binary.LittleEndian.Uint64(rec), Unique: binary.LittleEndian.Uint64(rec[8:]), Nodes: binary.LittleEndian.Uint64(rec[16:])}
	}
	if err := checkTable(plan, t); err != nil {
		return nil, err
	}
	return t, nil
}

// writeTable writes the table next to its final name and renames it, so
// a reader never sees half a file.
func writeTable(path string, plan solver.Plan, t []solver.Counts) error {
	b := tableHead(plan)
	for _, c := range t {
		b = binary.LittleEndian.AppendUint64(b, c.Total)
		b = binary.LittleEndian.AppendUint64(b, c.Unique)
		b = binary.LittleEndian.AppendUint64(b, c.Nodes)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}
