package journal

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// Batch records: the single results a sync window gathers, one frame.
//
// A single-task result record costs about 26 bytes, 8 of them its frame
// and 10 the worker's key, which is random. When a run splits its tasks
// into millions of children, each committed alone, that is most of the
// journal. A batch record holds every digest-less single result queued
// since the last other record, each as
//
//	index   signed varint, the difference from the batch's previous index (from 0 for the first)
//	worker  unsigned varint, the worker's number (below)
//	total, unique, nodes   unsigned varints
//
// so a result costs its counts and two or three bytes. A worker record
// names the key of the next worker number, the first time a batch needs
// it: number 0 is key 0 (no key), number i the key of the file's i-th
// worker record. The numbers belong to one file: compaction renumbers.

// maxBatchEntry is the most bytes one result takes in a batch record.
const maxBatchEntry = 5 * binary.MaxVarintLen64

// maxWorkerNumbers bounds the worker numbers of one file, and so the map
// that holds them: every session that commits needs one, and a year of
// reconnecting workers, or a peer that rejoins to commit one task each
// time, would grow it without end. Past it, the results of a worker
// without a number are single records (26 bytes instead of about 6).
const maxWorkerNumbers = 1 << 16

// workerNames maps the worker numbers of batch records to keys, as the
// worker records read so far name them: keys[i-1] is number i's.
type workerNames struct{ keys []uint64 }

// key returns the key of number n, or false when no worker record named
// it yet.
func (w *workerNames) key(n uint64) (uint64, bool) {
	if n == 0 {
		return 0, true
	}
	if n > uint64(len(w.keys)) {
		return 0, false
	}
	return w.keys[n-1], true
}

// batcher writes batch and worker records into a buffer of frames. A
// batch stays open, its frame's header unwritten, until close seals it.
type batcher struct {
	numbers map[uint64]uint64 // worker key → number, for the keys named in the file
	open    int               // offset of the open batch's frame in the buffer; -1: none
	last    int               // the open batch's last index
}

func newBatcher(names *workerNames) batcher {
	b := batcher{numbers: make(map[uint64]uint64, len(names.keys)), open: -1}
	for i, k := range names.keys {
		b.numbers[k] = uint64(i + 1)
	}
	return b
}

// takes reports whether add takes r: a result without a digest whose
// worker has a number, or may get one (maxWorkerNumbers).
func (b *batcher) takes(r Record) bool {
	if len(r.Digest) > 0 {
		return false
	}
	_, named := b.numbers[r.Worker]
	return named || r.Worker == 0 || len(b.numbers) < maxWorkerNumbers
}

// add appends r (one it takes) to the open batch of buf, which it opens
// first if need be, and a worker record before it when r's worker has no
// number yet, and returns buf.
func (b *batcher) add(buf []byte, r Record) []byte {
	num, named := b.numbers[r.Worker]
	if r.Worker == 0 {
		num, named = 0, true
	}
	if !named {
		buf = b.close(buf)
		num = uint64(len(b.numbers) + 1)
		b.numbers[r.Worker] = num
		buf = appendFrame(buf, appendKey(nil, recWorker, r.Worker))
	}
	if b.open >= 0 && len(buf)-b.open-frameHeader > MaxRecordSize-maxBatchEntry {
		buf = b.close(buf)
	}
	if b.open < 0 {
		b.open, b.last = len(buf), 0
		buf = append(buf, make([]byte, frameHeader)...)
		buf = append(buf, recBatch)
	}
	buf = binary.AppendVarint(buf, int64(r.Index)-int64(b.last))
	b.last = r.Index
	buf = binary.AppendUvarint(buf, num)
	buf = binary.AppendUvarint(buf, r.Total)
	buf = binary.AppendUvarint(buf, r.Unique)
	return binary.AppendUvarint(buf, r.Nodes)
}

// close seals the open batch of buf, if any, by writing its frame's
// length and checksum; it changes no length.
func (b *batcher) close(buf []byte) []byte {
	if b.open < 0 {
		return buf
	}
	h, payload := buf[b.open:b.open+frameHeader], buf[b.open+frameHeader:]
	binary.LittleEndian.PutUint32(h[0:4], uint32(len(payload)))
	binary.LittleEndian.PutUint32(h[4:8], frameCRC(h[0:4], payload))
	b.open = -1
	return buf
}

// decodeBatch parses a batch payload into its results, appended to
// dst[:0], with their workers' keys from names; a nil names (a scan for
// valid frames, which has not read the worker records) checks the bytes
// only and leaves each Worker as its number.
func decodeBatch(p []byte, dst []Record, names *workerNames) ([]Record, error) {
	d := decoder{b: p[1:]}
	dst = dst[:0]
	last := int64(0)
	for len(d.b) > 0 && d.err == nil {
		idx := last + d.varint()
		if d.err == nil && (idx < 0 || idx > math.MaxInt32) {
			d.err = fmt.Errorf("task index %d out of range", idx)
			break
		}
		last = idx
		r := Record{Index: int(idx), Worker: d.uvarint(), Total: d.uvarint(), Unique: d.uvarint(), Nodes: d.uvarint()}
		if names != nil && d.err == nil {
			k, ok := names.key(r.Worker)
			if !ok {
				d.err = fmt.Errorf("worker number %d before its worker record", r.Worker)
			}
			r.Worker = k
		}
		dst = append(dst, r)
	}
	switch {
	case d.err != nil:
		return dst[:0], fmt.Errorf("batch: %w", d.err)
	case len(dst) == 0:
		return dst, errors.New("batch: no result")
	}
	return dst, nil
}
