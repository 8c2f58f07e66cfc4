package journal

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"sort"
)

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
	if v := d.uvarint(); d.err == nil && (v == 0 || v > formatVersion) {
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

// headerVersion is the format version of the journal image data, whose
// header parseHeader has read.
func headerVersion(data []byte) uint64 {
	p, _, _ := readFrame(data, len(magic))
	v, _ := binary.Uvarint(p[1:])
	return v
}

// Settings identify a job. Open refuses a journal whose settings differ from
// the caller's in any field, so every input that changes the tasks or their
// results must be here: the named fields, plus anything else in Extra.
type Settings struct {
	N             int
	Depth         int
	Kind          uint8  // solver.Kind
	Fingerprint   uint64 // solver.Plan.Fingerprint()
	SolverVersion int    // solver.Version
	Tasks         int    // number of tasks in the plan; when > 0, Append and replay check 0 <= Index < Tasks
	// Extra holds further settings as opaque strings ("unique": "true", ...).
	// A nil and an empty map are equal.
	Extra map[string]string
}

// Diff lists the fields where s and o differ, as "n: 17 != 18" lines (s first);
// it is empty when they match.
func (s Settings) Diff(o Settings) []string {
	var d []string
	add := func(name string, a, b any) {
		if a != b {
			d = append(d, fmt.Sprintf("%s: %v != %v", name, a, b))
		}
	}
	add("n", s.N, o.N)
	add("depth", s.Depth, o.Depth)
	add("kind", s.Kind, o.Kind)
	add("fingerprint", fmt.Sprintf("%016x", s.Fingerprint), fmt.Sprintf("%016x", o.Fingerprint))
	add("solver_version", s.SolverVersion, o.SolverVersion)
	add("tasks", s.Tasks, o.Tasks)
	keys := slices.Sorted(maps.Keys(s.Extra))
	for k := range o.Extra {
		if _, ok := s.Extra[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		a, aok := s.Extra[k]
		b, bok := o.Extra[k]
		if aok != bok || a != b {
			d = append(d, fmt.Sprintf("%s: %s != %s", k, quoteOrUnset(a, aok), quoteOrUnset(b, bok)))
		}
	}
	return d
}

func quoteOrUnset(v string, ok bool) string {
	if !ok {
		return "(unset)"
	}
	return fmt.Sprintf("%q", v)
}

func (s Settings) validate() error {
	if s.N < 0 || s.Depth < 0 || s.SolverVersion < 0 || s.Tasks < 0 {
		return fmt.Errorf("journal: negative setting in n=%d depth=%d solver_version=%d tasks=%d", s.N, s.Depth, s.SolverVersion, s.Tasks)
	}
	if len(encodeSettings(s)) > MaxRecordSize {
		return fmt.Errorf("journal: settings encode to more than %d bytes", MaxRecordSize)
	}
	return nil
}

// ReadSettings returns the settings in the header of the journal at path,
// without reading its records, locking or repairing it: what a resume
// needs to know before it plans. A missing file matches fs.ErrNotExist; a
// file that is not a journal matches ErrCorrupt.
func ReadSettings(path string) (Settings, error) {
	f, err := os.Open(path)
	if err != nil {
		return Settings{}, fmt.Errorf("journal: %w", err)
	}
	defer f.Close()
	head := make([]byte, len(magic)+frameHeader+MaxRecordSize)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return Settings{}, fmt.Errorf("journal %s: %w", path, plainErr(err))
	}
	s, _, err := parseHeader(head[:n])
	if ce, ok := err.(*CorruptError); ok {
		ce.Path = path
	}
	return s, err
}
