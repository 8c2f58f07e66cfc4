package journal

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
)

// Compaction: a journal of single-task result records (26 bytes a task:
// one written before batch records, format version 1) is rewritten by the
// resume that opens it as its header, its splits and distrust records,
// and its standing results grouped into run records (one per stretch of
// consecutive tasks of one worker), the others in batch records, in the
// current format: the snapshot. The
// run then appends to it (the tail). The rewrite goes to a temporary file
// that is read back and checked before it replaces the journal
// atomically, so a crash or a failure leaves one journal or the other,
// whole.

// compactSuffix marks the temporary file of a rewrite, beside the journal.
const compactSuffix = ".compact-"

// removeStale removes what rewrites of the journal at path left when
// their process was killed; the caller holds the journal's lock, so no
// rewrite of it is under way.
func removeStale(path string) {
	stale, _ := filepath.Glob(globEscape(path) + compactSuffix + "*")
	for _, name := range stale {
		os.Remove(name)
	}
}

// globEscape quotes the characters filepath.Match treats as special.
func globEscape(s string) string {
	var b []byte
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '*' || c == '?' || c == '[' || c == '\\' {
			b = append(b, '\\')
		}
		b = append(b, s[i])
	}
	return string(b)
}

// compactMin is how many records a compaction must save for a resume to
// rewrite its journal: a few hundred kilobytes.
const compactMin = 1 << 14

// Compaction is what a resume's rewrite of its journal did.
type Compaction struct {
	Before, After int64 // the journal's bytes
	Err           error // the rewrite failed: the journal was kept as it was
}

// worthCompacting reports whether rewriting the journal p parsed would
// save compactMin records at least: runs of one worker's consecutive
// tasks, or, in a journal of an earlier format, single results that
// batch records would hold.
func (p *parsed) worthCompacting() bool {
	fixed := p.nsplits + len(p.distrusted)
	return p.frames-(p.groups+fixed) >= compactMin || p.version < formatVersion && p.frames-fixed >= compactMin
}

// compact rewrites the journal at path, which f holds locked and parse
// read from src into p, as described above. On success it returns the new
// file (locked, replacing path; f is closed), its source and its parse.
// An error with replaced set came after the rename: the directory entry
// may not be durable, so neither file may take appends (fatal); without
// it the journal is as it was.
func compact(path string, f *os.File, src source, p *parsed) (nf *os.File, nsrc *fileSource, np parsed, replaced bool, err error) {
	removeStale(path)
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+compactSuffix+"*")
	if err != nil {
		return nil, nil, parsed{}, false, err
	}
	nf, nsrc, np, err = writeCompacted(tmp, src, p)
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return nil, nil, parsed{}, false, plainErr(err) // the temporary file is gone: do not name it
	}
	if err := syncDir(filepath.Dir(path)); err != nil {
		tmp.Close()
		return nil, nil, parsed{}, true, fmt.Errorf("fsync directory after the rewrite: %w", err)
	}
	f.Close()
	return nf, nsrc, np, true, nil
}

// writeCompacted writes the compacted journal into tmp, fsyncs it and
// parses it back: the same settings, splits and standing results, or an
// error.
func writeCompacted(tmp *os.File, src source, p *parsed) (*os.File, *fileSource, parsed, error) {
	if err := lockFile(tmp); err != nil {
		return nil, nil, parsed{}, err
	}
	w := bufio.NewWriterSize(tmp, 1<<20)
	w.Write(appendFrame([]byte(magic), encodeSettings(p.settings)))
	standing := 0
	var group []Record
	out, b := []byte(nil), newBatcher(&workerNames{}) // the rewrite numbers the workers anew
	flush := func() {
		switch {
		case len(group) == 0:
		case len(group) == 1 && b.takes(group[0]):
			out = b.add(out, group[0])
		case len(group) == 1:
			out = appendFrame(b.close(out), appendResult(nil, group[0]))
		default:
			out = appendFrame(b.close(out), appendRun(nil, group))
		}
		group = group[:0]
		if len(out) >= 1<<20 {
			w.Write(b.close(out))
			out = out[:0]
		}
	}
	// In the file's order: a resume that replays it in order holds, at
	// each point, only what the run held then (collapse).
	_, err := walk(src, p.first, p.end, func(_ int, payload []byte, e entry) bool {
		switch e.kind {
		case recWorker:
			return true // the batcher names the workers its batches use
		case recResult:
		default:
			flush()
			out = appendFrame(b.close(out), payload)
			return true
		}
		for _, r := range e.results {
			if r.Worker != 0 && isIn(p.distrusted, r.Worker) {
				continue
			}
			standing++
			if len(group) > 0 && (!continues(group[len(group)-1], r) || len(group) == maxRunRecord) {
				flush()
			}
			group = append(group, r)
		}
		return true
	})
	flush()
	w.Write(b.close(out))
	if err == nil {
		err = w.Flush()
	}
	if err == nil {
		err = tmp.Sync()
	}
	if err != nil {
		return nil, nil, parsed{}, err
	}
	nsrc, err := newFileSource(tmp)
	if err != nil {
		return nil, nil, parsed{}, err
	}
	np, err := parseFrom(nsrc, p.splits != nil)
	switch {
	case err != nil:
		return nil, nil, parsed{}, fmt.Errorf("the rewrite does not read back: %w", err)
	case np.results != standing || np.tasks != p.tasks || np.nsplits != p.nsplits || np.torn != nil:
		return nil, nil, parsed{}, fmt.Errorf("the rewrite reads back as %d results of %d tasks, %d splits; want %d, %d, %d",
			np.results, np.tasks, np.nsplits, standing, p.tasks, p.nsplits)
	}
	return tmp, nsrc, np, nil
}
