package listing

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nqueens/nqueens/internal/leaktest"
	"github.com/nqueens/nqueens/internal/packed"
)

// tinyBucketSizes make every bucket spill after three records and every
// write call carry at most five, so small tests cover the spill file and
// the chunking.
func tinyBucketSizes(n int) bucketSizes {
	return bucketSizes{buffer: 3 * n, spill: 7 * n, chunk: 5 * n}
}

// randomPacked returns count distinct random packed records of an n-board
// (fewer when there are not that many) in random order, each starting with
// prefix.
func randomPacked(rng *rand.Rand, n, count int, prefix ...byte) [][]byte {
	space := 1.0
	for range n - len(prefix) {
		space *= float64(n)
	}
	count = min(count, int(min(space, 1<<40)))
	seen := make(map[string]bool, count)
	recs := make([][]byte, 0, count)
	for len(recs) < count {
		rec := make([]byte, n)
		for r := copy(rec, prefix); r < n; r++ {
			rec[r] = byte(rng.IntN(n))
		}
		if !seen[string(rec)] {
			seen[string(rec)] = true
			recs = append(recs, rec)
		}
	}
	return recs
}

// addShuffledPacked adds recs to b in random order, in chunks of random
// sizes.
func addShuffledPacked(t *testing.T, rng *rand.Rand, b *bucketSort, recs [][]byte) {
	t.Helper()
	recs = slices.Clone(recs)
	rng.Shuffle(len(recs), func(i, j int) { recs[i], recs[j] = recs[j], recs[i] })
	for len(recs) > 0 {
		m := min(len(recs), rng.IntN(40))
		if err := b.add(slices.Concat(recs[:m]...)); err != nil {
			t.Fatalf("add: %v", err)
		}
		recs = recs[m:]
	}
}

// collectSorted runs writeSorted and returns the records written, checking
// that every write call carries whole records, at most chunk bytes, and
// that progress climbs to the total.
func collectSorted(t *testing.T, b *bucketSort) ([][]byte, error) {
	t.Helper()
	var got [][]byte
	var last uint64
	err := b.writeSorted(func(sols []byte) error {
		if len(sols) == 0 || len(sols)%b.n != 0 || len(sols) > b.sizes.chunk {
			t.Errorf("write called with %d bytes, want a positive multiple of %d up to %d", len(sols), b.n, b.sizes.chunk)
		}
		for rec := range slices.Chunk(sols, b.n) {
			got = append(got, slices.Clone(rec))
		}
		return nil
	}, func(written uint64) {
		if written <= last || written != uint64(len(got)) {
			t.Errorf("progress(%d) after %d, with %d written", written, last, len(got))
		}
		last = written
	})
	if err == nil && last != uint64(len(got)) {
		t.Errorf("last progress(%d), want %d", last, len(got))
	}
	return got, err
}

func TestBucketSortRandom(t *testing.T) {
	tests := []struct {
		n, count int
		tiny     bool
		prefix   []byte // the first rows of every record: one bucket
	}{
		{1, 1, true, nil},
		{2, 4, true, nil},
		{5, 2000, true, nil},
		{8, 5000, true, nil},
		{8, 5000, false, nil},
		{16, 20000, true, nil},
		{16, 20000, false, nil},
		{17, 5000, true, nil},
		{20, 20000, true, nil},
		{20, 20000, false, nil},
		{32, 3000, true, nil},
		// Buckets above radixMinKeys, sorted by radixSort56.
		{9, 3 * radixMinKeys, false, []byte{8, 0}},
		{12, 3 * radixMinKeys, true, []byte{5, 7}},
		{16, 3 * radixMinKeys, false, []byte{0, 15}},
		{16, 3 * radixMinKeys, true, []byte{15, 15, 15}},
		{20, 3 * radixMinKeys, false, []byte{3, 3}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("n=%d,tiny=%v,prefix=%v", tt.n, tt.tiny, tt.prefix), func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(uint64(tt.n), uint64(tt.count)))
			sizes := defaultBucketSizes
			if tt.tiny {
				sizes = tinyBucketSizes(tt.n)
			}
			b, err := newBucketSortSizes(t.TempDir(), tt.n, sizes)
			if err != nil {
				t.Fatal(err)
			}
			defer b.close()
			recs := randomPacked(rng, tt.n, tt.count, tt.prefix...)
			addShuffledPacked(t, rng, b, recs)
			if got, want := b.count(), uint64(len(recs)); got != want {
				t.Errorf("count() = %d, want %d", got, want)
			}
			got, err := collectSorted(t, b)
			if err != nil {
				t.Fatalf("writeSorted: %v", err)
			}
			want := slices.SortedFunc(slices.Values(recs), bytes.Compare)
			if !slices.EqualFunc(got, want, bytes.Equal) {
				t.Fatalf("writeSorted wrote %d records, want the %d added in order; first difference at %d", len(got), len(want), firstDiffPacked(got, want))
			}
		})
	}
}

// firstDiffPacked returns the index of the first record where got and want
// differ.
func firstDiffPacked(got, want [][]byte) int {
	for i := range min(len(got), len(want)) {
		if !bytes.Equal(got[i], want[i]) {
			return i
		}
	}
	return min(len(got), len(want))
}

// allQueensPacked returns every solution of the n-queens problem, packed,
// in lexicographic order.
func allQueensPacked(n int) [][]byte {
	var sols [][]byte
	rec := make([]byte, n)
	var place func(row int, cols, d1, d2 uint32)
	place = func(row int, cols, d1, d2 uint32) {
		if row == n {
			sols = append(sols, slices.Clone(rec))
			return
		}
		for c := range n {
			bit := uint32(1) << c
			if cols&bit == 0 && d1&(bit<<row) == 0 && d2&(bit<<(n-row)) == 0 {
				rec[row] = byte(c)
				place(row+1, cols|bit, d1|bit<<row, d2|bit<<(n-row))
			}
		}
	}
	place(0, 0, 0, 0)
	return sols
}

// TestBucketSortQueens sorts real solutions, whose buckets are as uneven as
// a listing's: 92 for N=8, 2680 for N=11, 14200 for N=12.
func TestBucketSortQueens(t *testing.T) {
	tests := []struct{ n, count int }{{8, 92}, {11, 2680}, {12, 14200}}
	for _, tt := range tests {
		want := allQueensPacked(tt.n)
		if len(want) != tt.count {
			t.Fatalf("allQueensPacked(%d) has %d solutions, want %d", tt.n, len(want), tt.count)
		}
		rng := rand.New(rand.NewPCG(1, uint64(tt.n)))
		b, err := newBucketSortSizes(t.TempDir(), tt.n, bucketSizes{buffer: 64, spill: 512, chunk: 4096})
		if err != nil {
			t.Fatal(err)
		}
		addShuffledPacked(t, rng, b, want)
		got, err := collectSorted(t, b)
		if err != nil {
			t.Fatalf("N=%d: writeSorted: %v", tt.n, err)
		}
		if !slices.EqualFunc(got, want, bytes.Equal) {
			t.Errorf("N=%d: writeSorted wrote %d solutions, want %d in order; first difference at %d", tt.n, len(got), len(want), firstDiffPacked(got, want))
		}
		if err := b.close(); err != nil {
			t.Errorf("close: %v", err)
		}
	}
}

func TestBucketSortEmpty(t *testing.T) {
	b, err := newBucketSort(t.TempDir(), 8)
	if err != nil {
		t.Fatal(err)
	}
	defer b.close()
	got, err := collectSorted(t, b)
	if err != nil || len(got) != 0 {
		t.Errorf("writeSorted with nothing added wrote %d records, error %v; want none, nil", len(got), err)
	}
}

func TestBucketSortDuplicate(t *testing.T) {
	for _, n := range []int{1, 5, 16, 17} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			leaktest.Check(t)
			rng := rand.New(rand.NewPCG(2, uint64(n)))
			b, err := newBucketSortSizes(t.TempDir(), n, tinyBucketSizes(n))
			if err != nil {
				t.Fatal(err)
			}
			defer b.close()
			recs := randomPacked(rng, n, 500)
			dup := recs[len(recs)/2]
			addShuffledPacked(t, rng, b, append(recs, dup))
			got, err := collectSorted(t, b)
			for i := 1; i < len(got); i++ {
				if bytes.Compare(got[i-1], got[i]) >= 0 {
					t.Errorf("wrote %v after %v", got[i], got[i-1])
				}
			}
			if !errors.Is(err, errDuplicateSolution) {
				t.Fatalf("writeSorted with %v added twice: %v, want %v", dup, err, errDuplicateSolution)
			}
			if got, want := err.Error(), fmt.Sprint(dup); !strings.Contains(got, want) {
				t.Errorf("error %q does not name the duplicate %s", got, want)
			}
		})
	}
}

func TestBucketSortBadInput(t *testing.T) {
	const n = 8
	b, err := newBucketSort(t.TempDir(), n)
	if err != nil {
		t.Fatal(err)
	}
	defer b.close()
	good := []byte{0, 4, 7, 5, 2, 6, 1, 3}
	tests := []struct {
		name string
		sols []byte
	}{
		{"short", good[:7]},
		{"long", append(slices.Clone(good), good[:3]...)},
		{"column n", append(slices.Clone(good), 0, 4, 7, 5, 2, 6, 1, 8)},
		{"column 255", append(slices.Clone(good), 0, 4, 7, 5, 2, 6, 1, 255)},
		{"first row", []byte{200, 4, 7, 5, 2, 6, 1, 3}},
		{"second row", []byte{0, 9, 7, 5, 2, 6, 1, 3}},
	}
	for _, tt := range tests {
		if err := b.add(tt.sols); err == nil {
			t.Errorf("add(%s %v) = nil, want an error", tt.name, tt.sols)
		}
	}
	if got := b.count(); got != 0 {
		t.Errorf("count() = %d after refused adds, want 0", got)
	}
	if err := b.add(good); err != nil {
		t.Errorf("add(%v) after refused adds: %v", good, err)
	}
	got, err := collectSorted(t, b)
	if err != nil || len(got) != 1 || !bytes.Equal(got[0], good) {
		t.Errorf("writeSorted wrote %v, error %v; want [%v], nil", got, err, good)
	}
	if _, err := newBucketSort(t.TempDir(), 0); err == nil {
		t.Error("newBucketSort(n=0) = nil error, want one")
	}
	if _, err := newBucketSort(t.TempDir(), 33); err == nil {
		t.Error("newBucketSort(n=33) = nil error, want one")
	}
}

func TestBucketSortWriteError(t *testing.T) {
	for _, n := range []int{8, 20} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			leaktest.Check(t)
			rng := rand.New(rand.NewPCG(3, uint64(n)))
			b, err := newBucketSortSizes(t.TempDir(), n, tinyBucketSizes(n))
			if err != nil {
				t.Fatal(err)
			}
			defer b.close()
			addShuffledPacked(t, rng, b, randomPacked(rng, n, 1000))
			errFull := errors.New("disk full")
			calls := 0
			err = b.writeSorted(func([]byte) error {
				calls++
				if calls == 3 {
					return errFull
				}
				return nil
			}, nil)
			if !errors.Is(err, errFull) || calls != 3 {
				t.Errorf("writeSorted with a failing write: %v after %d calls, want %v after 3", err, calls, errFull)
			}
		})
	}
}

// TestBucketSortShortRead truncates the spill file under the sort: an error,
// not a panic.
func TestBucketSortShortRead(t *testing.T) {
	leaktest.Check(t)
	const n = 12
	rng := rand.New(rand.NewPCG(4, n))
	b, err := newBucketSortSizes(t.TempDir(), n, tinyBucketSizes(n))
	if err != nil {
		t.Fatal(err)
	}
	defer b.close()
	addShuffledPacked(t, rng, b, randomPacked(rng, n, 1000))
	if err := b.flush(); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(b.f.Name(), b.fsize/2); err != nil {
		t.Fatal(err)
	}
	err = b.writeSorted(func([]byte) error { return nil }, nil)
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("writeSorted with a truncated spill file: %v, want %v", err, io.ErrUnexpectedEOF)
	}
}

// TestBucketSortSpillError closes the spill file under the sort: the write
// error comes back from add, and again from every later call but close.
func TestBucketSortSpillError(t *testing.T) {
	dir := t.TempDir()
	const n = 10
	rng := rand.New(rand.NewPCG(10, n))
	b, err := newBucketSortSizes(dir, n, tinyBucketSizes(n))
	if err != nil {
		t.Fatal(err)
	}
	b.f.Close()
	recs := randomPacked(rng, n, 300)
	err = b.add(slices.Concat(recs...))
	if !errors.Is(err, os.ErrClosed) {
		t.Errorf("add with the spill file closed: %v, want %v", err, os.ErrClosed)
	}
	if err2 := b.add(recs[0]); err2 != err {
		t.Errorf("add after a spill error: %v, want %v again", err2, err)
	}
	if err2 := b.writeSorted(func([]byte) error { return nil }, nil); err2 != err {
		t.Errorf("writeSorted after a spill error: %v, want %v again", err2, err)
	}
	b.close()
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("%d files left in the spill directory after close, want none", len(entries))
	}
}

func TestBucketSortClose(t *testing.T) {
	dir := t.TempDir()
	const n = 6
	rng := rand.New(rand.NewPCG(5, n))
	b, err := newBucketSortSizes(dir, n, tinyBucketSizes(n))
	if err != nil {
		t.Fatal(err)
	}
	addShuffledPacked(t, rng, b, randomPacked(rng, n, 300))
	if err := b.flush(); err != nil {
		t.Fatal(err)
	}
	if b.fsize == 0 {
		t.Fatal("nothing was spilled")
	}
	for i := range 2 {
		if err := b.close(); err != nil {
			t.Errorf("close #%d: %v", i+1, err)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 0 {
		t.Errorf("%d files left in the spill directory after close, want none", len(entries))
	}
	if err := b.add(make([]byte, n)); err == nil {
		t.Error("add after close = nil, want an error")
	}
	if err := b.writeSorted(func([]byte) error { return nil }, nil); err == nil {
		t.Error("writeSorted after close = nil, want an error")
	}
}

// TestBucketSortRadix checks radixSort56 against slices.Sort on keys whose
// varying bits are anywhere in the low 56, duplicates included.
func TestBucketSortRadix(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	var counts radixCounts
	for _, size := range []int{0, 1, 2, 100, radixMinKeys, 10000} {
		for _, bits := range []int{0, 1, 4, 13, 24, 56} {
			for _, shift := range []int{0, 1, 56 - bits} {
				shift = min(shift, 56-bits)
				keys := make([]uint64, size)
				for i := range keys {
					keys[i] = 0xab<<56 | rng.Uint64()&(1<<bits-1)<<shift
				}
				want := slices.Sorted(slices.Values(keys))
				got := radixSort56(keys, make([]uint64, size), &counts)
				if !slices.Equal(got, want) {
					t.Errorf("radixSort56 of %d keys varying in bits %d..%d is not sorted", size, shift, shift+bits-1)
				}
			}
		}
	}
}

// TestBucketSortPackNibbles checks that packed keys order as their records
// do, and unpack to them.
func TestBucketSortPackNibbles(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	for range 10000 {
		n := 1 + rng.IntN(packedMaxN)
		x, y := randomPacked(rng, n, 1)[0], randomPacked(rng, n, 1)[0]
		kx, ky := packed.Key(x), packed.Key(y)
		if got, want := cmp.Compare(kx, ky), bytes.Compare(x, y); got != want {
			t.Fatalf("keys of %v and %v compare %d, want %d", x, y, got, want)
		}
		if got := packed.UnpackKey(kx, make([]byte, n)); !bytes.Equal(got, x) {
			t.Fatalf("packed.UnpackKey(packed.Key(%v)) = %v", x, got)
		}
	}
}

// bucketBenchRecords holds BenchmarkBucketSort's records, made once.
var bucketBenchRecords struct {
	sync.Once
	by map[int][]byte
}

// randomPermutationsPacked returns count distinct random permutations of
// 0..n-1 whose first two rows are not in attacking columns, like the
// solutions of a listing, packed, in random order.
func randomPermutationsPacked(n, count int) []byte {
	rng := rand.New(rand.NewPCG(7, uint64(n)))
	seen := make(map[string]bool, count)
	out := make([]byte, 0, count*n)
	rec := make([]byte, n)
	for len(seen) < count {
		for i := range rec {
			rec[i] = byte(i)
		}
		rng.Shuffle(n, func(i, j int) { rec[i], rec[j] = rec[j], rec[i] })
		if d := int(rec[0]) - int(rec[1]); d >= -1 && d <= 1 || seen[string(rec)] {
			continue
		}
		seen[string(rec)] = true
		out = append(out, rec...)
	}
	return out
}

// BenchmarkBucketSort sorts 2 million distinct random permutations of an
// N=16 board (and 1 million of N=17, the slow path), added in 64 KiB
// batches as workers send them, and reports the cost per record of add and
// of writeSorted (spill file reads included, the caller's write trivial).
func BenchmarkBucketSort(b *testing.B) {
	bucketBenchRecords.Do(func() {
		bucketBenchRecords.by = map[int][]byte{16: randomPermutationsPacked(16, 2_000_000), 17: randomPermutationsPacked(17, 1_000_000)}
	})
	for _, n := range []int{16, 17} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			sols := bucketBenchRecords.by[n]
			records := float64(len(sols) / n)
			batch := (64 << 10) / n * n
			var addTime, sortTime time.Duration
			for b.Loop() {
				bs, err := newBucketSort(b.TempDir(), n)
				if err != nil {
					b.Fatal(err)
				}
				start := time.Now()
				for s := range slices.Chunk(sols, batch) {
					if err := bs.add(s); err != nil {
						b.Fatal(err)
					}
				}
				mid := time.Now()
				var sum byte
				if err := bs.writeSorted(func(s []byte) error { sum += s[len(s)-1]; return nil }, nil); err != nil {
					b.Fatal(err)
				}
				sortTime += time.Since(mid)
				addTime += mid.Sub(start)
				if err := bs.close(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(addTime.Nanoseconds())/records/float64(b.N), "add-ns/record")
			b.ReportMetric(float64(sortTime.Nanoseconds())/records/float64(b.N), "sort-ns/record")
		})
	}
}

// BenchmarkBucketSortKeys compares slices.Sort with radixSort56 on one
// bucket of N=16 keys, at sizes around radixMinKeys and at the median
// (68000) and largest (133000) bucket of N=16.
func BenchmarkBucketSortKeys(b *testing.B) {
	for _, size := range []int{500, 2000, 3000, 12000, 68000, 133000} {
		rng := rand.New(rand.NewPCG(8, uint64(size)))
		orig := make([]uint64, size)
		for i := range orig {
			orig[i] = packed.Key(append([]byte{3, 9}, randomPermBytes(rng, 14, 2)...))
		}
		keys, tmp := make([]uint64, size), make([]uint64, size)
		var counts radixCounts
		sorts := []struct {
			name string
			sort func() []uint64
		}{
			{"slices", func() []uint64 { slices.Sort(keys); return keys }},
			{"radix", func() []uint64 { return radixSort56(keys, tmp, &counts) }},
		}
		for _, s := range sorts {
			b.Run(fmt.Sprintf("%s/%d", s.name, size), func(b *testing.B) {
				var elapsed time.Duration
				for b.Loop() {
					copy(keys, orig)
					start := time.Now()
					s.sort()
					elapsed += time.Since(start)
				}
				b.ReportMetric(float64(elapsed.Nanoseconds())/float64(b.N*size), "ns/key")
			})
		}
	}
}

// randomPermBytes returns a random permutation of base..base+n-1.
func randomPermBytes(rng *rand.Rand, n, base int) []byte {
	p := make([]byte, n)
	for i, v := range rng.Perm(n) {
		p[i] = byte(v + base)
	}
	return p
}
