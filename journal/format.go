package journal

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"sort"
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

	// formatVersion is written into the header record; bump it when payloads change.
	formatVersion = 1

	recHeader   byte = 1
	recResult   byte = 2
	recDistrust byte = 3
	recSplit    byte = 4
	recRun      byte = 5
	recReopen   byte = 6
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

// encodeSettings returns the header payload for s.
func encodeSettings(s Settings) []byte {
	b := []byte{recHeader}
	b = binary.AppendUvarint(b, formatVersion)
	b = binary.AppendUvarint(b, uint64(s.N))
	b = binary.AppendUvarint(b, uint64(s.Depth))
	b = append(b, s.Kind)
	b = binary.LittleEndian.AppendUint64(b, s.Fingerprint)
	b = binary.AppendUvarint(b, uint64(s.SolverVersion))
	b = binary.AppendUvarint(b, uint64(s.Tasks))
	keys := make([]string, 0, len(s.Extra))
	for k := range s.Extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	b = binary.AppendUvarint(b, uint64(len(keys)))
	for _, k := range keys {
		b = binary.AppendUvarint(b, uint64(len(k)))
		b = append(b, k...)
		v := s.Extra[k]
		b = binary.AppendUvarint(b, uint64(len(v)))
		b = append(b, v...)
	}
	return b
}

// decodeSettings parses a header payload.
func decodeSettings(p []byte) (Settings, error) {
	d := decoder{b: p}
	if t := d.byte(); d.err == nil && t != recHeader {
		return Settings{}, fmt.Errorf("record type %d, want header (%d)", t, recHeader)
	}
	if v := d.uvarint(); d.err == nil && v != formatVersion {
		return Settings{}, fmt.Errorf("unsupported journal format version %d (this build reads %d)", v, formatVersion)
	}
	var s Settings
	s.N = d.int()
	s.Depth = d.int()
	s.Kind = d.byte()
	s.Fingerprint = d.fixed64()
	s.SolverVersion = d.int()
	s.Tasks = d.int()
	n := d.uvarint()
	if d.err == nil && n > uint64(len(d.b)) { // every pair takes at least 2 bytes
		d.err = fmt.Errorf("%d extra settings in %d bytes", n, len(d.b))
	}
	if d.err == nil && n > 0 {
		s.Extra = make(map[string]string, n)
		prev := ""
		for i := uint64(0); i < n && d.err == nil; i++ {
			k := string(d.bytes(MaxRecordSize))
			v := string(d.bytes(MaxRecordSize))
			if d.err == nil && i > 0 && k <= prev {
				d.err = fmt.Errorf("extra setting keys not sorted and unique at %q", k)
			}
			prev = k
			s.Extra[k] = v
		}
	}
	if err := d.end(); err != nil {
		return Settings{}, fmt.Errorf("header: %w", err)
	}
	return s, nil
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

// appendDistrust appends the payload of a distrust record for worker w.
func appendDistrust(dst []byte, w uint64) []byte {
	return binary.AppendUvarint(append(dst, recDistrust), w)
}

// decodeDistrust parses a distrust payload.
func decodeDistrust(p []byte) (uint64, error) {
	d := decoder{b: p}
	if t := d.byte(); d.err == nil && t != recDistrust {
		return 0, fmt.Errorf("record type %d, want distrust (%d)", t, recDistrust)
	}
	w := d.uvarint()
	if d.err == nil && w == 0 {
		d.err = errors.New("distrust of worker 0")
	}
	if err := d.end(); err != nil {
		return 0, fmt.Errorf("distrust: %w", err)
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

// checkSplit says why sp cannot follow in a journal whose plan has tasks
// tasks so far (split holds the tasks split already), or "" when it may.
func checkSplit(sp Split, tasks int, split *doneSet) string {
	switch {
	case tasks == 0:
		return "split record in a journal of unknown size (Settings.Tasks 0)"
	case sp.Parent < 0 || sp.Parent >= tasks:
		return fmt.Sprintf("split of task %d out of range [0,%d)", sp.Parent, tasks)
	case sp.Reopen && !split.has(sp.Parent):
		return fmt.Sprintf("reopen of task %d, which is not split", sp.Parent)
	case sp.Reopen:
		return ""
	case sp.First != tasks:
		return fmt.Sprintf("split of task %d numbers its children from %d, want %d", sp.Parent, sp.First, tasks)
	case sp.Count < 1 || sp.Count > MaxChildren:
		return fmt.Sprintf("split of task %d into %d children (allowed 1..%d)", sp.Parent, sp.Count, MaxChildren)
	case split.has(sp.Parent):
		return fmt.Sprintf("task %d split twice", sp.Parent)
	}
	return ""
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

// tail describes a torn last record found by parse.
type tail struct {
	off    int    // where the bad bytes start (the valid prefix's length)
	reason string // why the record there is unreadable
}

// parsed is what parse found in a journal's bytes.
type parsed struct {
	settings   Settings
	first, end int                 // where the entries start, and where the valid ones end
	results    int                 // result records read, distrusted workers' included
	frames     int                 // entry frames read
	groups     int                 // stretches of results a compaction would write as one record each
	last       Record              // the last result read (for groups)
	splits     []Split             // in journal order, when kept (parseFrom's keep)
	nsplits    int                 // split and reopen records read
	split      doneSet             // the tasks split at the end (a bit a task)
	tasks      int                 // Settings.Tasks plus every split's children
	distrusted map[uint64]struct{} // workers with a distrust record
	done       doneSet             // the committed tasks that stand (none of a distrusted worker)
	seen       *commitSet          // every committed task and its last committer, once a re-commit is met
	torn       *tail               // nil when the file ends cleanly
}

// parseHeader decodes the magic and the header record at the start of
// data; it returns the settings and the offset of the first record after
// them. Its errors are *CorruptError.
func parseHeader(data []byte) (Settings, int, error) {
	if len(data) < len(magic) || string(data[:len(magic)]) != magic {
		if len(data) == 0 {
			return Settings{}, 0, &CorruptError{Offset: 0, Reason: "empty file (not a journal)"}
		}
		return Settings{}, 0, &CorruptError{Offset: 0, Reason: "bad magic (not a journal)"}
	}
	p, next, err := readFrame(data, len(magic))
	var s Settings
	if err == nil {
		s, err = decodeSettings(p)
	}
	if err != nil {
		return Settings{}, 0, &CorruptError{Offset: int64(len(magic)), Reason: "header record: " + err.Error()}
	}
	return s, next, nil
}

// parse decodes a whole journal image. A bad record with nothing valid after it
// is a torn tail (reported, not an error); a bad record followed by a valid one
// is a *CorruptError; a task index committed twice is a *CorruptError wrapping
// ErrDuplicate. parse never allocates more than a small multiple of len(data).
func parse(data []byte) (parsed, error) { return parseFrom(memSource{data}, true) }

// parseFrom is parse of the bytes of src, read once in order (but for the
// scans of a corrupt journal); an error in reading them is returned as it
// is, never taken for a torn or corrupt record.
func parseFrom(src source, keep bool) (parsed, error) {
	var out parsed
	var off int
	var err error
	out.settings, off, err = parseHeader(src.head(len(magic) + frameHeader + MaxRecordSize))
	if err != nil {
		if e := src.failed(); e != nil {
			return out, e
		}
		return out, err
	}
	// A task may be committed again only after a distrust record of the
	// worker that committed it first; Append writes nothing else. The
	// committed set is a bit a task; who committed each is worked out from
	// the frames read so far (committers) only when a task is committed
	// again, which takes a distrust. No record is kept: parsed.each reads
	// the results that stand again from src.
	out.done = newDoneSet(out.settings.Tasks)
	out.split = newDoneSet(out.settings.Tasks) // a bit a task: 10^8 tasks in 12 MB
	split := &out.split
	out.tasks = out.settings.Tasks
	out.distrusted = make(map[uint64]struct{})
	out.first, out.end = off, src.size()
	var rs []Record // the results of a frame, reused
	for off < src.size() {
		at := int64(off)
		p, next, err := src.frame(off)
		var distrust uint64
		var sp Split
		if err == nil {
			switch p[0] {
			case recDistrust:
				distrust, err = decodeDistrust(p)
			case recSplit, recReopen:
				sp, err = decodeSplit(p)
			default:
				rs, err = decodeResults(p, rs)
			}
		}
		if err != nil {
			if err := out.badFrame(src, off, err); err != nil {
				return out, err
			}
			break
		}
		off = next
		out.frames++
		switch {
		case distrust != 0:
			out.distrusted[distrust] = struct{}{}
		case p[0] == recSplit || p[0] == recReopen:
			if reason := checkSplit(sp, out.tasks, split); reason != "" {
				return out, &CorruptError{Offset: at, Reason: reason}
			}
			split.set(sp.Parent, !sp.Reopen)
			out.nsplits++
			if keep {
				out.splits = append(out.splits, sp)
			}
			out.tasks += sp.Count
			out.done.grow(out.tasks)
			split.grow(out.tasks)
			if out.seen != nil {
				out.seen.grow(out.tasks)
			}
		default:
			if err := out.add(src, at, rs); err != nil {
				return out, err
			}
		}
	}
	return out, out.dropDistrusted(src)
}

// badFrame judges a frame at off that does not read (err): a failed read
// is returned as it is; a valid frame after it makes the journal corrupt;
// else it is a torn tail, where the replay ends (nil).
func (p *parsed) badFrame(src source, off int, err error) error {
	if e := src.failed(); e != nil {
		return e
	}
	data, e := src.all()
	if e != nil {
		return e
	}
	if at := nextValidFrame(data, off+1); at >= 0 {
		return &CorruptError{Offset: int64(off), Reason: fmt.Sprintf("%v (a valid record follows at offset %d)", err, at)}
	}
	p.torn = &tail{off: off, reason: err.Error()}
	p.end = off
	return nil
}

// add takes the results rs of the frame at offset at: each within the
// plan, none of a worker distrusted already, and a task committed again
// only after its committer was distrusted.
func (p *parsed) add(src source, at int64, rs []Record) error {
	for i, r := range rs {
		if t := p.tasks; t > 0 && r.Index >= t {
			return &CorruptError{Offset: at, Reason: fmt.Sprintf("task index %d out of range [0,%d)", r.Index, t)}
		}
		if r.Worker != 0 && isIn(p.distrusted, r.Worker) {
			return &CorruptError{Offset: at, Reason: fmt.Sprintf("task %d committed by worker %x after its distrust record", r.Index, r.Worker)}
		}
		if p.done.has(r.Index) {
			if p.seen == nil {
				seen, err := p.committers(src, int(at))
				if err != nil {
					return err
				}
				for _, q := range rs[:i] { // this frame's, before r
					seen.set(q.Index, q.Worker)
				}
				p.seen = seen
			}
			if first, _ := p.seen.get(r.Index); first == 0 || !isIn(p.distrusted, first) {
				return &CorruptError{Offset: at, Reason: fmt.Sprintf("task %d already committed at offset %d", r.Index, firstCommitIn(src, r.Index)), Err: ErrDuplicate}
			}
		}
		p.done.set(r.Index, true)
		if p.seen != nil {
			p.seen.set(r.Index, r.Worker)
		}
		if p.results == 0 || !continues(p.last, r) {
			p.groups++
		}
		p.results++
		p.last = r
	}
	return nil
}

// continues reports whether result r may follow result prev in one run
// record: the next task, the same worker, neither with a digest.
func continues(prev, r Record) bool {
	return r.Index == prev.Index+1 && r.Worker == prev.Worker && len(r.Digest) == 0 && len(prev.Digest) == 0
}

// isIn reports whether w is in set.
func isIn(set map[uint64]struct{}, w uint64) bool {
	_, ok := set[w]
	return ok
}

// walk calls fn with the offset and payload of every frame of src in
// [from, to), in order, until fn returns false; those frames were read
// once already (parse), so an error is a failed read, returned.
func walk(src source, from, to int, fn func(at int, payload []byte) bool) error {
	for off := from; off < to; {
		payload, next, err := src.frame(off)
		if err != nil {
			return cmp.Or(src.failed(), err)
		}
		if !fn(off, payload) {
			return nil
		}
		off = next
	}
	return nil
}

// walkResults calls fn with every result of the result and run records
// of src in [from, to), in order, until fn returns false, and with each
// split record's number of children (0 for a result).
func walkResults(src source, from, to int, fn func(r Record, children int) bool) error {
	var rs []Record
	return walk(src, from, to, func(_ int, payload []byte) bool {
		switch payload[0] {
		case recSplit:
			sp, _ := decodeSplit(payload)
			return fn(Record{}, sp.Count)
		case recResult, recRun:
			rs, _ = decodeResults(payload, rs)
			for _, r := range rs {
				if !fn(r, 0) {
					return false
				}
			}
		}
		return true
	})
}

// committers works out who last committed each task in the frames of src
// before offset end (which parse has read): for a replay that meets a
// task committed again.
func (p *parsed) committers(src source, end int) (*commitSet, error) {
	c := newCommitSet(p.settings.Tasks)
	tasks := p.settings.Tasks
	err := walkResults(src, p.first, end, func(r Record, children int) bool {
		if children > 0 {
			tasks += children
			c.grow(tasks)
		} else {
			c.set(r.Index, r.Worker)
		}
		return true
	})
	return &c, err
}

// dropDistrusted clears, at the end of a replay, the committed bits of
// the tasks whose standing commit is a distrusted worker's: the live
// journal then takes them again from others.
func (p *parsed) dropDistrusted(src source) error {
	if len(p.distrusted) == 0 {
		return nil
	}
	if p.seen != nil {
		p.seen.each(func(i int, w uint64) {
			if w != 0 && isIn(p.distrusted, w) {
				p.done.set(i, false)
			}
		})
		return nil
	}
	// No re-commit: each of their tasks is still theirs.
	return clearCommits(src, p.first, p.end, &p.done, func(w uint64) bool { return w != 0 && isIn(p.distrusted, w) })
}

// clearCommits clears in done the tasks of the results in src's frames
// [from, to) whose worker is bad: those workers' tasks, which nobody may
// commit again before they are distrusted.
func clearCommits(src source, from, to int, done *doneSet, bad func(w uint64) bool) error {
	return walkResults(src, from, to, func(r Record, children int) bool {
		if children == 0 && bad(r.Worker) {
			done.set(r.Index, false)
		}
		return true
	})
}

// each calls yield with the results that stand in src, which parse read
// into p (none of a distrusted worker), in commit order, until yield
// returns false. A read that fails now ends the results early, and
// src.failed says so.
func (p *parsed) each(src source, yield func(Record) bool) {
	walkResults(src, p.first, p.end, func(r Record, children int) bool {
		if children > 0 || r.Worker != 0 && isIn(p.distrusted, r.Worker) {
			return true
		}
		return yield(r)
	})
}

// records returns the results that stand in src, which parse read into
// p, sized once.
func (p *parsed) records(src source) ([]Record, error) {
	out := make([]Record, 0, p.results)
	p.each(src, func(r Record) bool { out = append(out, r); return true })
	return out, src.failed()
}

// firstCommitIn is firstCommit over the bytes of src (-1 if they cannot
// be read).
func firstCommitIn(src source, idx int) int64 {
	data, err := src.all()
	if err != nil {
		return -1
	}
	return firstCommit(data, idx)
}

// firstCommit returns the offset of the first result or run record that
// commits task idx in a journal image that parse has read up to a
// duplicate of it (for the error message: parse keeps no offsets).
func firstCommit(data []byte, idx int) int64 {
	_, off, err := parseHeader(data)
	if err != nil {
		return -1
	}
	found := int64(-1)
	var rs []Record
	walk(memSource{data}, off, len(data), func(at int, p []byte) bool {
		if p[0] == recResult || p[0] == recRun {
			rs, _ = decodeResults(p, rs)
			if len(rs) > 0 && rs[0].Index <= idx && idx < rs[0].Index+len(rs) {
				found = int64(at)
				return false
			}
		}
		return true
	})
	return found
}

// nextValidFrame returns the offset of the first frame at or after from that has
// a sane length, a matching CRC and a payload that decodes, or -1.
func nextValidFrame(data []byte, from int) int {
	for i := from; i+frameHeader < len(data); i++ {
		n := binary.LittleEndian.Uint32(data[i:])
		if n == 0 || n > MaxRecordSize || uint64(len(data)-i-frameHeader) < uint64(n) {
			continue
		}
		if t := data[i+frameHeader]; t != recHeader && t != recResult && t != recDistrust && t != recRun && t != recSplit && t != recReopen {
			continue // cheap test before the CRC: garbage rarely has a record type there
		}
		p, _, err := readFrame(data, i)
		if err != nil {
			continue
		}
		if _, err := decodeResults(p, nil); err == nil {
			return i
		}
		if _, err := decodeSplit(p); err == nil {
			return i
		}
		if _, err := decodeDistrust(p); err == nil {
			return i
		}
		if _, err := decodeSettings(p); err == nil {
			return i
		}
	}
	return -1
}
