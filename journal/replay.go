package journal

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"iter"
	"os"
	"slices"
)

// CorruptError says where a journal stops being trustworthy. It matches
// ErrCorrupt with errors.Is, and also Err (ErrDuplicate) when set.
type CorruptError struct {
	Path   string
	Offset int64  // byte offset of the first bad record
	Reason string // what is wrong there
	Err    error  // a more specific sentinel, or nil
}

func (e *CorruptError) Error() string {
	p := e.Path
	if p == "" {
		p = "journal"
	}
	return fmt.Sprintf("%s: corrupt at offset %d: %s", p, e.Offset, e.Reason)
}

// Is makes errors.Is(err, ErrCorrupt) true, and errors.Is(err, e.Err).
func (e *CorruptError) Is(target error) bool {
	return target == ErrCorrupt || (e.Err != nil && target == e.Err)
}

// Replay is what Open found in a journal.
type Replay struct {
	Settings Settings // as stored in the journal
	Splits   []Split  // the tasks split, in journal order
	Records  []Record // committed results in commit order; no index twice (nil from Resume: see Results)
	// Repaired is set when a torn last record (an append cut short by a crash)
	// was truncated away. The caller should log it; the task it held was never
	// acknowledged, so it is simply run again.
	Repaired *Repair
	// Compacted is set when the journal was worth rewriting (compact.go):
	// what the rewrite did, or why it failed.
	Compacted *Compaction

	src    source  // the journal's bytes, for Results (Resume)
	parsed *parsed // what parse found in them
}

// Results yields the committed results in commit order, as Records
// holds them, read again from the journal's file at each call, through a
// window of a few megabytes: a resume of 10^7 tasks need not hold the
// file's 300 MB, nor 64 bytes per result (Resume). Call it before the
// Journal is closed; if reading fails, the results end early and Err
// says why.
func (rp Replay) Results() iter.Seq[Record] {
	return func(yield func(Record) bool) {
		if rp.parsed == nil {
			for _, r := range rp.Records {
				if !yield(r) {
					return
				}
			}
			return
		}
		rp.parsed.each(rp.src, yield)
	}
}

// Entry is one record of a journal's replay in file order: a split or
// reopen (IsSplit), or a committed result that stands.
type Entry struct {
	IsSplit bool
	Split   Split
	Result  Record
}

// Entries yields the splits, reopens and standing results (none of a
// distrusted worker) in the order the journal holds them, read again
// from the file at each call like Results: a resume that applies them in
// this order holds what the run held at each point, never every task
// made (Resume keeps no Splits). Call it before the Journal is closed.
func (rp Replay) Entries() iter.Seq[Entry] {
	return func(yield func(Entry) bool) {
		if rp.parsed == nil {
			return
		}
		p := rp.parsed
		walk(rp.src, p.first, p.end, func(_ int, _ []byte, e entry) bool {
			switch e.kind {
			case recSplit:
				return yield(Entry{IsSplit: true, Split: e.split})
			case recResult:
				for _, r := range e.results {
					if (r.Worker == 0 || !isIn(p.distrusted, r.Worker)) && !yield(Entry{Result: r}) {
						return false
					}
				}
			}
			return true
		})
	}
}

// Err is the error that reading the results met in Results, if any: a
// resume that restored fewer results than the journal holds must stop.
func (rp Replay) Err() error {
	if rp.src == nil {
		return nil
	}
	return rp.src.failed()
}

// Repair describes a torn tail that Open truncated.
type Repair struct {
	Offset  int64  // the file now ends here
	Dropped int64  // bytes removed
	Reason  string // why the last record was unreadable
}

// Read decodes the journal at path without locking, repairing or checking
// settings: for inspection tools and tests. A torn tail is reported in
// Replay.Repaired but the file is not changed.
func Read(path string) (Replay, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Replay{}, fmt.Errorf("journal: %w", err)
	}
	p, err := parse(data)
	if err != nil {
		if ce, ok := err.(*CorruptError); ok {
			ce.Path = path
		}
		return Replay{}, err
	}
	recs, _ := p.records(memSource{data})
	rp := Replay{Settings: p.settings, Records: recs, Splits: p.splits}
	if p.torn != nil {
		rp.Repaired = &Repair{Offset: int64(p.torn.off), Dropped: int64(len(data) - p.torn.off), Reason: p.torn.reason}
	}
	return rp, nil
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
	version    uint64              // the file's format version
	names      workerNames         // the worker numbers the file's batches use
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
	out.tasks = out.settings.Tasks
	out.distrusted = make(map[uint64]struct{})
	out.first, out.end = off, src.size()
	out.version = headerVersion(src.head(off))
	var bad error // a record that reads but cannot stand: the journal is corrupt
	stop, err := walk(src, off, src.size(), func(at int, _ []byte, e entry) bool {
		out.frames++
		switch e.kind {
		case recDistrust:
			out.distrusted[e.distrust] = struct{}{}
		case recWorker:
			out.names.keys = append(out.names.keys, e.worker)
		case recSplit:
			bad = out.addSplit(e.split, int64(at), keep)
		default:
			bad = out.add(src, int64(at), e.results)
		}
		return bad == nil
	})
	switch {
	case bad != nil:
		return out, bad
	case err != nil:
		if err := out.badFrame(src, stop, err); err != nil {
			return out, err
		}
	}
	return out, out.dropDistrusted(src)
}

// addSplit adds the split or reopening sp, read at offset at, to p.
func (p *parsed) addSplit(sp Split, at int64, keep bool) error {
	if reason := checkSplit(sp, p.tasks, &p.split); reason != "" {
		return &CorruptError{Offset: at, Reason: reason}
	}
	p.split.set(sp.Parent, !sp.Reopen)
	p.nsplits++
	if keep {
		p.splits = append(p.splits, sp)
	}
	p.tasks += sp.Count
	p.done.grow(p.tasks)
	p.split.grow(p.tasks)
	if p.seen != nil {
		p.seen.grow(p.tasks)
	}
	return nil
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

// walk is the one walk over a journal's records: it calls fn with the
// offset, payload and decoded entry (decodeEntry) of every frame of src in
// [from, to), in order, until fn returns false. It returns where it
// stopped, and the error of a frame that does not read or decode there:
// parse judges that (a torn tail or a corruption); the later walks cover
// what parse has read, so an error there is a failed read.
//
// Every walk starts at the first record, so it reads every worker record
// (batch.go) before the batches that use its number.
func walk(src source, from, to int, fn func(at int, payload []byte, e entry) bool) (stop int, err error) {
	var rs []Record // the results of a record, reused
	var names workerNames
	for off := from; off < to; {
		payload, next, err := src.frame(off)
		var e entry
		if err == nil {
			e, err = decodeEntry(payload, rs, &names)
			rs = e.results
		}
		if err != nil {
			return off, cmp.Or(src.failed(), err)
		}
		if e.kind == recWorker {
			names.keys = append(names.keys, e.worker)
		}
		if !fn(off, payload, e) {
			return off, nil
		}
		off = next
	}
	return to, nil
}

// walkResults calls fn with every result of the result and run records
// of src in [from, to), in order, until fn returns false, and with each
// split record's number of children (0 for a result).
func walkResults(src source, from, to int, fn func(r Record, children int) bool) error {
	_, err := walk(src, from, to, func(_ int, _ []byte, e entry) bool {
		switch {
		case e.kind == recSplit && !e.split.Reopen:
			return fn(Record{}, e.split.Count)
		case e.kind == recResult:
			for _, r := range e.results {
				if !fn(r, 0) {
					return false
				}
			}
		}
		return true
	})
	return err
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
	walk(memSource{data}, off, len(data), func(at int, _ []byte, e entry) bool {
		if e.kind == recResult && slices.ContainsFunc(e.results, func(r Record) bool { return r.Index == idx }) {
			found = int64(at)
			return false
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
		if t := data[i+frameHeader]; t == 0 || t > recWorker {
			continue // cheap test before the CRC: garbage rarely has a record type there
		}
		p, _, err := readFrame(data, i)
		if err != nil {
			continue
		}
		if _, err := decodeEntry(p, nil, nil); err == nil {
			return i
		}
		if _, err := decodeSettings(p); err == nil {
			return i
		}
	}
	return -1
}
