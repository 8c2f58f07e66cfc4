package journal

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
)

// The file layout, all integers little-endian:
//
//	magic   8 bytes  "nqjrnl1\n"
//	header  frame    payload = recHeader, format version, Settings
//	entries frame*   payload = recResult, Record
//	                      or recRun, first task, tasks, worker key, then
//	                         total, unique and nodes of each task
//	                      or recDistrust, worker key
//	                      or recSplit, parent, first child, children
//	                      or recReopen, task (a split task's subtree dropped: it is one task again)
//	                      or recBatch, results (batch.go)
//	                      or recWorker, worker key (the next worker number, batch.go)
//
// A result's payload ends with the worker key when it is not 0; journals
// written before worker keys existed read as results of worker 0.
//
// A frame is
//
//	length  uint32   length of the payload (1..MaxRecordSize)
//	crc     uint32   CRC-32C (Castagnoli) of the length bytes and the payload
//	payload length bytes
//
// Integers inside payloads are unsigned varints, except the plan fingerprint,
// which is a fixed 8 bytes.
const (
	magic       = "nqjrnl1\n"
	frameHeader = 8 // length + crc

	// formatVersion is written into the header record; bump it when payloads
	// change. Version 2 added batch and worker records; a build reads
	// every version up to its own, and refuses a later one in one line
	// rather than take a record it does not know for a torn tail.
	formatVersion = 2

	recHeader   byte = 1
	recResult   byte = 2
	recDistrust byte = 3
	recSplit    byte = 4
	recRun      byte = 5
	recReopen   byte = 6
	recBatch    byte = 7
	recWorker   byte = 8
)

// MaxRecordSize caps a record's payload. It bounds what a decoder will believe
// from a length field (a corrupt length can never make it read or allocate more)
// and it is far above any real record: a result is under 100 bytes, a header
// a few hundred.
const MaxRecordSize = 64 << 10

// MaxDigestSize caps Record.Digest: room for a SHA-512 of a task's solutions.
const MaxDigestSize = 64

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// errShort says a frame or payload ends before its declared end.
var errShort = errors.New("truncated")

// frameCRC is the checksum stored in a frame: it covers the length bytes too,
// so a flipped bit in the length is caught even when it points at other data.
func frameCRC(lenBytes, payload []byte) uint32 {
	return crc32.Update(crc32.Checksum(lenBytes, castagnoli), castagnoli, payload)
}

// appendFrame appends the frame for payload to dst.
func appendFrame(dst, payload []byte) []byte {
	var h [frameHeader]byte
	binary.LittleEndian.PutUint32(h[0:4], uint32(len(payload)))
	binary.LittleEndian.PutUint32(h[4:8], frameCRC(h[0:4], payload))
	dst = append(dst, h[:]...)
	return append(dst, payload...)
}

// readFrame reads the frame at data[off:]. It returns the payload (a subslice of
// data, never a copy) and the offset just past the frame.
func readFrame(data []byte, off int) (payload []byte, next int, err error) {
	rest := data[off:]
	if len(rest) < frameHeader {
		return nil, 0, fmt.Errorf("frame header: %w (%d of %d bytes)", errShort, len(rest), frameHeader)
	}
	n := binary.LittleEndian.Uint32(rest[0:4])
	if n == 0 || n > MaxRecordSize {
		return nil, 0, fmt.Errorf("bad record length %d (allowed 1..%d)", n, MaxRecordSize)
	}
	if uint64(len(rest)-frameHeader) < uint64(n) {
		return nil, 0, fmt.Errorf("payload: %w (%d of %d bytes)", errShort, len(rest)-frameHeader, n)
	}
	payload = rest[frameHeader : frameHeader+int(n)]
	if got, want := frameCRC(rest[0:4], payload), binary.LittleEndian.Uint32(rest[4:8]); got != want {
		return nil, 0, fmt.Errorf("crc mismatch (stored %08x, computed %08x)", want, got)
	}
	return payload, off + frameHeader + int(n), nil
}

// decoder reads varints and bytes from a payload; the first error sticks.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err = errors.New("bad varint")
		return 0
	}
	d.b = d.b[n:]
	return v
}

// int reads a uvarint that must fit in a non-negative int.
func (d *decoder) int() int {
	v := d.uvarint()
	if v > math.MaxInt32 && d.err == nil {
		d.err = fmt.Errorf("integer %d out of range", v)
		return 0
	}
	return int(v)
}

// varint reads a signed (zigzag) varint.
func (d *decoder) varint() int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.err = errors.New("bad varint")
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) byte() byte {
	if d.err != nil {
		return 0
	}
	if len(d.b) < 1 {
		d.err = errShort
		return 0
	}
	v := d.b[0]
	d.b = d.b[1:]
	return v
}

func (d *decoder) fixed64() uint64 {
	if d.err != nil {
		return 0
	}
	if len(d.b) < 8 {
		d.err = errShort
		return 0
	}
	v := binary.LittleEndian.Uint64(d.b)
	d.b = d.b[8:]
	return v
}

// bytes reads a length-prefixed byte string of at most max bytes. The result
// aliases the payload; callers copy what they keep.
func (d *decoder) bytes(max int) []byte {
	n := d.uvarint()
	if d.err != nil {
		return nil
	}
	if n > uint64(max) {
		d.err = fmt.Errorf("byte string of %d bytes exceeds %d", n, max)
		return nil
	}
	if uint64(len(d.b)) < n {
		d.err = errShort
		return nil
	}
	v := d.b[:n]
	d.b = d.b[n:]
	return v
}

func (d *decoder) end() error {
	if d.err == nil && len(d.b) != 0 {
		d.err = fmt.Errorf("%d trailing bytes", len(d.b))
	}
	return d.err
}

// appendResult appends the result payload for r to dst.
func appendResult(dst []byte, r Record) []byte {
	dst = append(dst, recResult)
	dst = binary.AppendUvarint(dst, uint64(r.Index))
	dst = binary.AppendUvarint(dst, r.Total)
	dst = binary.AppendUvarint(dst, r.Unique)
	dst = binary.AppendUvarint(dst, r.Nodes)
	dst = binary.AppendUvarint(dst, uint64(len(r.Digest)))
	dst = append(dst, r.Digest...)
	if r.Worker != 0 {
		dst = binary.AppendUvarint(dst, r.Worker)
	}
	return dst
}

// appendRun appends the payload of a run record: the results rs of
// consecutive tasks from rs[0].Index, all of one worker, without digests
// (QueueRun checked them). Each task costs its three counts, 3 to 20
// bytes, where a result record costs about 26 with its frame.
func appendRun(dst []byte, rs []Record) []byte {
	dst = binary.AppendUvarint(append(dst, recRun), uint64(rs[0].Index))
	dst = binary.AppendUvarint(dst, uint64(len(rs)))
	dst = binary.AppendUvarint(dst, rs[0].Worker)
	for _, r := range rs {
		dst = binary.AppendUvarint(dst, r.Total)
		dst = binary.AppendUvarint(dst, r.Unique)
		dst = binary.AppendUvarint(dst, r.Nodes)
	}
	return dst
}

// decodeResults parses a result or a run payload into the results it
// holds, appended to dst[:0].
func decodeResults(p []byte, dst []Record) ([]Record, error) {
	if len(p) > 0 && p[0] == recResult {
		r, err := decodeResult(p)
		if err != nil {
			return dst[:0], err
		}
		return append(dst[:0], r), nil
	}
	d := decoder{b: p}
	if t := d.byte(); d.err == nil && t != recRun {
		return dst[:0], fmt.Errorf("record type %d, want run (%d)", t, recRun)
	}
	first, n, w := d.int(), d.int(), d.uvarint()
	switch {
	case d.err != nil:
	case n == 0:
		d.err = errors.New("a run of no task")
	case n > len(d.b)/3: // every task takes three bytes at least
		d.err = fmt.Errorf("a run of %d tasks in %d bytes", n, len(d.b))
	case first > math.MaxInt32-n:
		d.err = fmt.Errorf("task index %d+%d out of range", first, n)
	}
	dst = dst[:0]
	for i := 0; i < n && d.err == nil; i++ {
		dst = append(dst, Record{Index: first + i, Total: d.uvarint(), Unique: d.uvarint(), Nodes: d.uvarint(), Worker: w})
	}
	if err := d.end(); err != nil {
		return dst[:0], fmt.Errorf("run: %w", err)
	}
	return dst, nil
}

// appendKey appends the payload of a record that names one worker key:
// a distrust (recDistrust) or a worker's number (recWorker, batch.go).
func appendKey(dst []byte, typ byte, w uint64) []byte {
	return binary.AppendUvarint(append(dst, typ), w)
}

// appendDistrust appends the payload of a distrust record for worker w.
func appendDistrust(dst []byte, w uint64) []byte { return appendKey(dst, recDistrust, w) }

// decodeKey parses the payload of a record that names one worker key,
// never 0 (the key of no worker).
func decodeKey(p []byte) (uint64, error) {
	d := decoder{b: p[1:]}
	w := d.uvarint()
	if d.err == nil && w == 0 {
		d.err = errors.New("worker key 0")
	}
	if err := d.end(); err != nil {
		return 0, fmt.Errorf("record type %d: %w", p[0], err)
	}
	return w, nil
}

// appendSplit appends the payload of a split record, or of a reopen
// record (sp.Reopen).
func appendSplit(dst []byte, sp Split) []byte {
	if sp.Reopen {
		return binary.AppendUvarint(append(dst, recReopen), uint64(sp.Parent))
	}
	dst = binary.AppendUvarint(append(dst, recSplit), uint64(sp.Parent))
	dst = binary.AppendUvarint(dst, uint64(sp.First))
	return binary.AppendUvarint(dst, uint64(sp.Count))
}

// decodeSplit parses a split or reopen payload.
func decodeSplit(p []byte) (Split, error) {
	d := decoder{b: p}
	t := d.byte()
	if d.err == nil && t != recSplit && t != recReopen {
		return Split{}, fmt.Errorf("record type %d, want split (%d) or reopen (%d)", t, recSplit, recReopen)
	}
	var sp Split
	if t == recReopen {
		sp = Split{Parent: d.int(), Reopen: true}
	} else {
		sp = Split{Parent: d.int(), First: d.int(), Count: d.int()}
	}
	if err := d.end(); err != nil {
		return Split{}, fmt.Errorf("split: %w", err)
	}
	return sp, nil
}

// decodeResult parses a result payload. The Digest is copied.
func decodeResult(p []byte) (Record, error) {
	d := decoder{b: p}
	if t := d.byte(); d.err == nil && t != recResult {
		return Record{}, fmt.Errorf("record type %d, want result (%d)", t, recResult)
	}
	var r Record
	r.Index = d.int()
	r.Total = d.uvarint()
	r.Unique = d.uvarint()
	r.Nodes = d.uvarint()
	if dg := d.bytes(MaxDigestSize); len(dg) > 0 {
		r.Digest = bytes.Clone(dg)
	}
	if d.err == nil && len(d.b) > 0 {
		if r.Worker = d.uvarint(); d.err == nil && r.Worker == 0 {
			d.err = errors.New("worker key 0 written out")
		}
	}
	if err := d.end(); err != nil {
		return Record{}, fmt.Errorf("result: %w", err)
	}
	return r, nil
}

// entry is one record after the header, decoded: a result, a run or a
// batch of them (kind recResult), a distrusted worker (recDistrust), a
// split or reopening (recSplit; Split.Reopen tells which), or a worker's
// number (recWorker, with its key in worker).
type entry struct {
	kind     byte
	results  []Record
	distrust uint64
	split    Split
	worker   uint64
}

// decodeEntry decodes the payload of a record after the header: the one
// place that dispatches on a record's type. A result's records reuse rs's
// array; a batch's workers are named by names (decodeBatch).
func decodeEntry(p []byte, rs []Record, names *workerNames) (entry, error) {
	if len(p) == 0 {
		return entry{}, errShort
	}
	switch p[0] {
	case recBatch:
		rs, err := decodeBatch(p, rs, names)
		return entry{kind: recResult, results: rs}, err
	case recWorker:
		k, err := decodeKey(p)
		return entry{kind: recWorker, worker: k, results: rs[:0]}, err
	case recDistrust:
		w, err := decodeKey(p)
		return entry{kind: recDistrust, distrust: w, results: rs[:0]}, err
	case recSplit, recReopen:
		sp, err := decodeSplit(p)
		return entry{kind: recSplit, split: sp, results: rs[:0]}, err
	default:
		rs, err := decodeResults(p, rs)
		return entry{kind: recResult, results: rs}, err
	}
}
