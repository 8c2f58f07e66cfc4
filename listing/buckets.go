package listing

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/nqueens/nqueens/internal/packed"
	"github.com/nqueens/nqueens/solver"
)

// errDuplicateSolution marks a solution added to a bucketSort twice: the
// symmetry images of distinct representatives never coincide, so a
// duplicate is a bug or a lying worker, and the listing must not hide it.
var errDuplicateSolution = errors.New("duplicate solution")

// errBucketSortClosed is returned by a bucketSort used after close.
var errBucketSortClosed = errors.New("bucket sort is closed")

// bucketSizes are the memory knobs of a bucketSort. They are a value, not
// package variables, so tests can make them tiny (to force spills and many
// write calls) without touching what other tests see.
type bucketSizes struct {
	// buffer is the in-memory buffer of each bucket, in bytes, rounded
	// down to whole records (at least one). 8 KiB keeps the n*n buffers
	// at 2 MiB for n = 16 and 8 MiB for n = 32, and each spill large
	// enough that the segment index stays at 0.2% of the spilled bytes.
	buffer int
	// spill is the write buffer in front of the spill file: full bucket
	// buffers gather here so one write(2) carries many of them. A write
	// per 8 KiB bucket buffer made add 45% slower (29 ns a record at
	// N=16 against 20); 4 MiB gained nothing over 1 MiB.
	spill int
	// records keeps n-byte records even for n <= packedMaxN (tests: the
	// path of the larger boards, on boards small enough to list).
	records bool
	// chunk is the most bytes writeSorted hands to write at once, rounded
	// down to whole records: large enough that the caller's per-call cost
	// vanishes, far under gRPC's 4 MiB message limit if it forwards them.
	chunk int
}

// defaultBucketSizes are the sizes newBucketSort uses.
var defaultBucketSizes = bucketSizes{buffer: 8 << 10, spill: 1 << 20, chunk: 256 << 10}

// packedMaxN is the largest n whose solutions fit a uint64 at 4 bits a
// column, the fast path of writeSorted.
const packedMaxN = packed.MaxKeyN

// bucketSort collects packed solutions of an n-board in any order and writes
// them back in lexicographic order, with memory bounded independently of how
// many there are: listing all 14,772,512 solutions of N=16 from their
// symmetry representatives means sorting 236 MB that arrive in no useful
// order, and the coordinator must not hold them all.
//
// A solution is packed as n bytes, byte r the 0-based column of row r.
// For n <= 16 (packedMaxN), the boards a listing can finish, it is kept as
// a uint64 key instead, 4 bits a row, row 0 in the top nibble (packed.Key;
// addKeys and writeSortedKeys take keys as they are), so keys order as the
// records do and a record costs 8 bytes. It goes to the bucket of its first
// two rows (the key's top byte, or sol[0]*n + sol[1] above 16, so bucket
// order is lexicographic order of those rows), into that bucket's small
// buffer; a full buffer is appended to one shared spill file and
// remembered as a segment (offset, length). writeSorted then takes the
// buckets in order, reads each back, sorts it in memory (the keys by an
// LSD radix sort, records above 16 by bytes.Compare), rejects duplicates,
// and hands it to the caller while the next bucket is sorted in another
// goroutine.
//
// Memory: a buffer of 8 KiB a bucket (256 buckets, 2 MiB, for keys; n*n,
// 8 MiB at n = 32, above), a 1 MiB spill write buffer, 16 bytes of
// segment index per 8 KiB spilled, and during writeSorted two buckets at a
// time, 24 bytes a key (n+16 bytes a record above 16), sized once for the
// largest bucket. The largest bucket of the N=16 listing holds 133,351
// solutions (0.9%; the median 67,697): 3.2 MB, so writeSorted allocates
// about 7 MB. At N=20, where the listing itself is 780 GB, a bucket would
// hold GBs; a third keyed row would be the fix. The spill file grows to 8
// bytes a solution (n above 16): 118 MB at N=16.
//
// Measured on the 2-CPU development VM (AMD EPYC), BenchmarkBucketSort at
// N=16, 2 million distinct random permutations (about 9500 a bucket): add
// 19 ns a record, spill writes included; writeSorted 34 ns a record, spill
// reads, sort and unpacking included, the caller's write trivial. On all
// 14,772,512 solutions of N=16, shuffled: add 16 to 21 ns, writeSorted 30
// to 34 ns a record, about 0.3 s and 0.5 s in all. On a median N=16
// bucket the 14-bit LSD radix sort takes 12 ns a key, slices.Sort 72
// (BenchmarkBucketSortKeys); below radixMinKeys keys slices.Sort is the
// faster, so both are used. N=17, sorted with bytes.Compare, costs 130 ns a
// record in writeSorted.
//
// A bucketSort is used by one goroutine at a time; add must not run during
// writeSorted. After an I/O error the bucketSort keeps returning it; only
// close is still useful.
type bucketSort struct {
	n      int
	keyed  bool // n <= packedMaxN: records are uint64 keys (packed.Key), 8 bytes little-endian
	second int  // index of the second keyed row: 1, or 0 when n = 1 (one bucket)
	sizes  bucketSizes
	f      *os.File // the spill file; nil after close
	fsize  int64    // bytes written to f
	wbuf   []byte   // spill write buffer, at file offset fsize
	buf    []byte   // the bucket buffers, bucket i at buf[i*bufCap:]
	bufCap int      // bytes in each bucket buffer, whole records
	fill   []int    // bytes in each bucket buffer
	segs   [][]bucketSegment
	added  uint64
	err    error // sticky I/O error
}

// bucketSegment is a run of one bucket's records in the spill file.
type bucketSegment struct {
	off, len int64
}

// newBucketSort returns an empty bucketSort for n-boards whose spill file is
// created in dir.
func newBucketSort(dir string, n int) (*bucketSort, error) {
	return newBucketSortSizes(dir, n, defaultBucketSizes)
}

// newBucketSortSizes is newBucketSort with explicit sizes.
func newBucketSortSizes(dir string, n int, sizes bucketSizes) (*bucketSort, error) {
	if n < 1 || n > solver.MaxN {
		return nil, fmt.Errorf("bucket sort: n=%d, want 1..%d", n, solver.MaxN)
	}
	keyed, w, buckets := n <= packedMaxN && !sizes.records, n, n*n
	if keyed {
		// The top byte of a key holds rows 0 and 1: the bucket.
		w, buckets = 8, 256
	}
	bufCap := max(sizes.buffer/w, 1) * w
	sizes.spill = max(sizes.spill, bufCap)
	sizes.chunk = max(sizes.chunk/n, 1) * n
	f, err := os.CreateTemp(dir, "buckets-*")
	if err != nil {
		return nil, fmt.Errorf("bucket sort: %w", err)
	}
	second := 1
	if n == 1 {
		second = 0
	}
	return &bucketSort{
		n:      n,
		keyed:  keyed,
		second: second,
		sizes:  sizes,
		f:      f,
		wbuf:   make([]byte, 0, sizes.spill),
		buf:    make([]byte, buckets*bufCap),
		bufCap: bufCap,
		fill:   make([]int, buckets),
		segs:   make([][]bucketSegment, buckets),
	}, nil
}

// add adds the packed solutions in sols (whole records, any order). It
// copies them; sols may be reused when add returns. A chunk with a wrong
// length or a column out of range is refused whole, and nothing of it is
// added.
func (b *bucketSort) add(sols []byte) error {
	if b.err != nil {
		return b.err
	}
	n := b.n
	if len(sols)%n != 0 {
		return fmt.Errorf("bucket sort: %d bytes are not whole %d-byte solutions", len(sols), n)
	}
	if err := checkBucketColumns(sols, n); err != nil {
		return err
	}
	if b.keyed {
		for off := 0; off+n <= len(sols); off += n {
			if err := b.put(packed.Key(sols[off : off+n])); err != nil {
				return err
			}
		}
		b.added += uint64(len(sols) / n)
		return nil
	}
	buf, fill, bufCap, second := b.buf, b.fill, b.bufCap, b.second
	for off := 0; off+n <= len(sols); off += n {
		rec := sols[off : off+n]
		i := int(rec[0])*n + int(rec[second])
		f := fill[i]
		base := i * bufCap
		copy(buf[base+f:base+f+n], rec)
		f += n
		if f == bufCap {
			if err := b.spill(i, buf[base:base+bufCap]); err != nil {
				return err
			}
			f = 0
		}
		fill[i] = f
	}
	b.added += uint64(len(sols) / n)
	return nil
}

// addKeys adds solutions packed as keys (packed.Key of a valid record;
// n <= packedMaxN only), in any order: the fast path of add, without its
// packing and checks.
func (b *bucketSort) addKeys(keys []uint64) error {
	if b.err != nil {
		return b.err
	}
	if !b.keyed {
		return fmt.Errorf("bucket sort: keys for n=%d, above %d", b.n, packedMaxN)
	}
	for _, key := range keys {
		if err := b.put(key); err != nil {
			return err
		}
	}
	b.added += uint64(len(keys))
	return nil
}

// put appends one key to its bucket's buffer, spilling a full buffer.
func (b *bucketSort) put(key uint64) error {
	i := int(key >> 56)
	f := b.fill[i]
	base := i * b.bufCap
	binary.LittleEndian.PutUint64(b.buf[base+f:], key)
	f += 8
	if f == b.bufCap {
		if err := b.spill(i, b.buf[base:base+f]); err != nil {
			return err
		}
		f = 0
	}
	b.fill[i] = f
	return nil
}

// checkBucketColumns reports the first record of sols with a column outside
// 0..n-1 (packed.BadColumn).
func checkBucketColumns(sols []byte, n int) error {
	off := packed.BadColumn(sols, n)
	if off < 0 {
		return nil
	}
	return fmt.Errorf("bucket sort: solution %d has column %d in row %d, want 0..%d", off/n, sols[off], off%n, n-1)
}

// spill appends a full bucket buffer to the spill write buffer, flushing it
// first when it has no room.
func (b *bucketSort) spill(i int, data []byte) error {
	if b.f == nil {
		return errBucketSortClosed
	}
	if len(b.wbuf)+len(data) > cap(b.wbuf) {
		if err := b.flush(); err != nil {
			return err
		}
	}
	off := b.fsize + int64(len(b.wbuf))
	b.wbuf = append(b.wbuf, data...)
	segs := b.segs[i]
	if k := len(segs) - 1; k >= 0 && segs[k].off+segs[k].len == off {
		segs[k].len += int64(len(data))
		return nil
	}
	b.segs[i] = append(segs, bucketSegment{off: off, len: int64(len(data))})
	return nil
}

// flush writes the spill write buffer to the spill file.
func (b *bucketSort) flush() error {
	if b.f == nil {
		return errBucketSortClosed
	}
	if len(b.wbuf) == 0 {
		return nil
	}
	if _, err := b.f.Write(b.wbuf); err != nil {
		b.err = fmt.Errorf("bucket sort: spill: %w", err)
		return b.err
	}
	b.fsize += int64(len(b.wbuf))
	b.wbuf = b.wbuf[:0]
	return nil
}

// count returns how many solutions were added.
func (b *bucketSort) count() uint64 { return b.added }

// writeSorted calls write with all added solutions in strictly increasing
// lexicographic order, whole records, up to sizes.chunk bytes per call;
// write must not keep the slice. A solution added twice stops it with an
// error wrapping errDuplicateSolution that names the solution, so nothing is
// written twice (solutions of earlier buckets have been written by then).
// progress, if not nil, is called after each non-empty bucket with the
// number of solutions written so far. An error from write is returned
// wrapped. Every goroutine writeSorted starts has ended when it returns.
func (b *bucketSort) writeSorted(write func(sols []byte) error, progress func(written uint64)) error {
	return b.writeSortedTo(write, nil, progress)
}

// writeSortedKeys is writeSorted for n <= packedMaxN that hands write the
// keys (packed.Key) instead of the records, saving their unpacking.
func (b *bucketSort) writeSortedKeys(write func(keys []uint64) error, progress func(written uint64)) error {
	if !b.keyed {
		return fmt.Errorf("bucket sort: keys for n=%d, above %d", b.n, packedMaxN)
	}
	return b.writeSortedTo(nil, write, progress)
}

// writeSortedTo is writeSorted, handing keys to writeKeys when it is not
// nil (keyed only), else records to write.
func (b *bucketSort) writeSortedTo(write func(sols []byte) error, writeKeys func(keys []uint64) error, progress func(written uint64)) error {
	if b.err != nil {
		return b.err
	}
	if err := b.flush(); err != nil {
		return err
	}
	var order []int // the non-empty buckets
	largest := 0
	for i := range b.fill {
		if size := b.bucketBytes(i); size > 0 {
			order = append(order, i)
			largest = max(largest, size)
		}
	}

	// Bucket j is loaded and sorted in slots[j%2] by its own goroutine,
	// started when bucket j-1 is handed to write. Each slot is allocated
	// once, for the largest bucket.
	slots := [2]bucketSlot{{largest: largest}, {largest: largest}}
	var pending chan bucketResult
	start := func(j int) {
		ch := make(chan bucketResult, 1)
		i, s := order[j], &slots[j%2]
		go func() {
			ch <- b.prepare(i, s)
		}()
		pending = ch
	}
	defer func() {
		if pending != nil {
			<-pending
		}
	}()
	if len(order) > 0 {
		start(0)
	}
	var recs []byte // unpacked keys, when write wants records
	var written uint64
	for j := range order {
		res := <-pending
		pending = nil
		if j+1 < len(order) {
			start(j + 1)
		}
		if res.err != nil {
			return res.err
		}
		var err error
		if recs, err = b.writeBucket(res, recs, write, writeKeys); err != nil {
			return err
		}
		written += uint64(len(res.data)/b.n + len(res.keys))
		if progress != nil {
			progress(written)
		}
	}
	if written != b.added {
		return fmt.Errorf("bucket sort: wrote %d solutions, %d were added", written, b.added)
	}
	return nil
}

// writeBucket hands one sorted bucket to writeKeys (keys) or write
// (records, unpacking keys into recs, which it returns for reuse), in
// chunks of at most b.sizes.chunk bytes.
func (b *bucketSort) writeBucket(res bucketResult, recs []byte, write func(sols []byte) error, writeKeys func(keys []uint64) error) ([]byte, error) {
	chunk := b.sizes.chunk
	for keys := res.keys; len(keys) > 0; {
		m := min(len(keys), chunk/b.n)
		var err error
		if writeKeys != nil {
			err = writeKeys(keys[:m])
		} else {
			recs = slices.Grow(recs[:0], m*b.n)[:m*b.n]
			for k, key := range keys[:m] {
				packed.UnpackKey(key, recs[k*b.n:(k+1)*b.n])
			}
			err = write(recs)
		}
		if err != nil {
			return recs, fmt.Errorf("bucket sort: write: %w", err)
		}
		keys = keys[m:]
	}
	for data := res.data; len(data) > 0; {
		m := min(len(data), chunk)
		if err := write(data[:m]); err != nil {
			return recs, fmt.Errorf("bucket sort: write: %w", err)
		}
		data = data[m:]
	}
	return recs, nil
}

// bucketResult is one sorted bucket (records, or keys when keyed), or why
// it could not be sorted.
type bucketResult struct {
	data []byte
	keys []uint64
	err  error
}

// bucketSlot holds the buffers for sorting one bucket, reused from one
// bucket to the next but one.
type bucketSlot struct {
	largest   int      // bytes in the largest bucket: the buffers' size
	data      []byte   // the bucket's records as read
	keys, tmp []uint64 // packed keys and radix scratch, n <= packedMaxN
	counts    radixCounts
	big       []bucketBigKey // sort order, n > packedMaxN
	out       []byte         // sorted records, n > packedMaxN
}

// bucketBytes returns the bytes of bucket i, spilled and buffered.
func (b *bucketSort) bucketBytes(i int) int {
	total := b.fill[i]
	for _, seg := range b.segs[i] {
		total += int(seg.len)
	}
	return total
}

// growBucketBuf returns buf with length size, allocating it for the
// largest bucket (largest bytes, n bytes a record) when it is too small,
// so a slot allocates each buffer once and leaves no garbage behind.
func growBucketBuf[T any](buf []T, size, largest, n int) []T {
	if cap(buf) < size {
		buf = make([]T, max(size, largest/n))
	}
	return buf[:size]
}

// prepare reads bucket i into s and sorts it, returning its records (or
// keys) in order.
func (b *bucketSort) prepare(i int, s *bucketSlot) bucketResult {
	total := b.bucketBytes(i)
	s.data = growBucketBuf(s.data, total, s.largest, 1)
	pos := 0
	for _, seg := range b.segs[i] {
		dst := s.data[pos : pos+int(seg.len)]
		m, err := b.f.ReadAt(dst, seg.off)
		if m < len(dst) {
			if err == io.EOF || err == nil {
				err = io.ErrUnexpectedEOF
			}
			return bucketResult{err: fmt.Errorf("bucket sort: read %d of %d bytes at %d: %w", m, len(dst), seg.off, err)}
		}
		pos += m
	}
	base := i * b.bufCap
	copy(s.data[pos:], b.buf[base:base+b.fill[i]])
	if b.keyed {
		keys, err := b.sortKeys(s)
		return bucketResult{keys: keys, err: err}
	}
	data, err := b.sortBig(s)
	return bucketResult{data: data, err: err}
}

// sortKeys decodes the keys of s.data into s.keys and sorts them (radix
// sort from radixMinKeys keys, slices.Sort below), rejecting duplicates.
func (b *bucketSort) sortKeys(s *bucketSlot) ([]uint64, error) {
	data := s.data
	count := len(data) / 8
	if uint64(count) >= 1<<32 {
		return nil, fmt.Errorf("bucket sort: a bucket of %d solutions, more than a sort can count", count)
	}
	s.keys = growBucketBuf(s.keys, count, s.largest, 8)
	keys := s.keys
	for k := range keys {
		keys[k] = binary.LittleEndian.Uint64(data[k*8:])
	}
	if count < radixMinKeys {
		slices.Sort(keys)
	} else {
		s.tmp = growBucketBuf(s.tmp, count, s.largest, 8)
		keys = radixSort56(keys, s.tmp, &s.counts)
	}
	for k := 1; k < len(keys); k++ {
		if keys[k] == keys[k-1] {
			return nil, fmt.Errorf("bucket sort: %w %v", errDuplicateSolution, packed.UnpackKey(keys[k], make([]byte, b.n)))
		}
	}
	return keys, nil
}

// radixMinKeys is the bucket size from which radixSort56 beats
// slices.Sort: below it the radix sort's fixed cost, clearing and summing
// four 16384-entry histograms, dominates. BenchmarkBucketSortKeys, ns a
// key, slices.Sort against radixSort56: 16 against 190 at 500 keys, 18
// against 35 at 2000, 40 against 31 at 3000, 72 against 12 at 68000 (the
// median bucket of N=16).
const radixMinKeys = 2500

// radixDigit is the digit width of radixSort56 in bits: 14 bits make four
// passes over the 56. On buckets of 12000 to 133000 keys it took 13 to 15
// ns a key, 8-bit digits (seven passes) 20 to 25 and 11-bit digits (six)
// 18 to 22; each histogram (64 KiB) fits in L2.
const radixDigit = 14

// radixCounts are radixSort56's histograms, one per pass.
type radixCounts [4][1 << radixDigit]uint32

// radixSort56 sorts keys by their low 56 bits (the high 8 bits, rows 0 and
// 1, are the same within a bucket), radixDigit bits a pass, least
// significant first, skipping the passes whose digit is the same in every
// key (the low ones when n < 16). It uses tmp (as long as keys) as scratch
// and returns whichever of the two holds the result. len(keys) must be
// under 1<<32.
func radixSort56(keys, tmp []uint64, counts *radixCounts) []uint64 {
	const mask = 1<<radixDigit - 1
	if len(keys) < 2 {
		return keys
	}
	*counts = radixCounts{}
	for _, k := range keys {
		counts[0][k&mask]++
		counts[1][k>>radixDigit&mask]++
		counts[2][k>>(2*radixDigit)&mask]++
		counts[3][k>>(3*radixDigit)&mask]++
	}
	src, dst := keys, tmp[:len(keys)]
	for p := range counts {
		c := &counts[p]
		shift := uint(p * radixDigit)
		if int(c[src[0]>>shift&mask]) == len(src) {
			continue
		}
		var sum uint32
		for d, m := range c {
			c[d] = sum
			sum += m
		}
		for _, k := range src {
			d := k >> shift & mask
			dst[c[d]] = k
			c[d]++
		}
		src, dst = dst, src
	}
	return src
}

// bucketBigKey orders one record of n > packedMaxN columns (or fewer, with
// bucketSizes.records): key holds rows 2..9 (row 2 in the high byte, zero
// bytes past row n-1), which settle almost every comparison; i is the
// record's index.
type bucketBigKey struct {
	key uint64
	i   int
}

// sortBig sorts s.data into s.out and returns it.
func (b *bucketSort) sortBig(s *bucketSlot) ([]byte, error) {
	n := b.n
	data := s.data
	count := len(data) / n
	s.big = growBucketBuf(s.big, count, s.largest, n)
	lo, hi := min(2, n), min(10, n) // the rows in the key
	for k := range s.big {
		var key [8]byte
		copy(key[:], data[k*n+lo:k*n+hi])
		s.big[k] = bucketBigKey{key: binary.BigEndian.Uint64(key[:]), i: k}
	}
	slices.SortFunc(s.big, func(x, y bucketBigKey) int {
		if c := cmp.Compare(x.key, y.key); c != 0 {
			return c
		}
		return bytes.Compare(data[x.i*n+hi:x.i*n+n], data[y.i*n+hi:y.i*n+n])
	})
	s.out = growBucketBuf(s.out, len(data), s.largest, 1)
	for k, bk := range s.big {
		rec := data[bk.i*n : bk.i*n+n]
		if k > 0 && bytes.Equal(rec, s.out[(k-1)*n:k*n]) {
			return nil, fmt.Errorf("bucket sort: %w %v", errDuplicateSolution, rec)
		}
		copy(s.out[k*n:], rec)
	}
	return s.out, nil
}

// close removes the spill file. It may be called more than once, and after
// errors; the bucketSort is unusable afterwards.
func (b *bucketSort) close() error {
	if b.f == nil {
		return nil
	}
	name := b.f.Name()
	errClose := b.f.Close()
	errRemove := os.Remove(name)
	b.f, b.buf, b.wbuf, b.segs = nil, nil, nil, nil
	b.err = errBucketSortClosed
	if err := errors.Join(errClose, errRemove); err != nil {
		return fmt.Errorf("bucket sort: close: %w", err)
	}
	return nil
}
