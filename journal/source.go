package journal

import (
	"fmt"
	"io"
	"os"
)

// source is a journal's bytes as parse and parsed.each read them: frame
// by frame, in order. A memSource holds them all (Read, the fuzz test); a
// fileSource reads the file through a window (Open, Resume), so that the
// replay of a 300 MB journal holds a few megabytes of it, not all of it.
type source interface {
	size() int
	// frame reads the frame at off as readFrame does; its payload is
	// valid until the next call.
	frame(off int) (payload []byte, next int, err error)
	// head returns up to n bytes from the start (the magic and header).
	head(n int) []byte
	// all returns every byte, for the scans of a corrupt journal only.
	all() ([]byte, error)
	// failed is the error that reading the bytes met, if any: parse must
	// not take a frame it could not read for a torn or corrupt one.
	failed() error
}

// memSource is a journal image in memory.
type memSource struct{ data []byte }

func (m memSource) size() int                          { return len(m.data) }
func (m memSource) frame(off int) ([]byte, int, error) { return readFrame(m.data, off) }
func (m memSource) head(n int) []byte                  { return m.data[:min(n, len(m.data))] }
func (m memSource) all() ([]byte, error)               { return m.data, nil }
func (m memSource) failed() error                      { return nil }

// windowSize is how much of a journal file a fileSource reads at once:
// many frames per read, and room for the largest.
const windowSize = 4<<20 + frameHeader + MaxRecordSize

// fileSource reads a journal file of n bytes (its size when opened:
// appends after that are not read) through a window.
type fileSource struct {
	f   io.ReaderAt
	n   int
	buf []byte // the file's bytes [at, at+len(buf))
	at  int
	err error // sticky: a read failed
}

// newFileSource reads f, whose size it takes now.
func newFileSource(f *os.File) (*fileSource, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Size() > int64(^uint(0)>>1) {
		return nil, fmt.Errorf("journal of %d bytes is too large", fi.Size())
	}
	return &fileSource{f: f, n: int(fi.Size())}, nil
}

func (s *fileSource) size() int     { return s.n }
func (s *fileSource) failed() error { return s.err }

// span returns the file's bytes [off, off+n), n at most windowSize,
// fewer at the end of the file or after a failed read.
func (s *fileSource) span(off, n int) []byte {
	n = min(n, s.n-off)
	if off >= s.at && off+n <= s.at+len(s.buf) {
		return s.buf[off-s.at : off-s.at+n]
	}
	if s.buf == nil {
		s.buf = make([]byte, 0, windowSize)
	}
	s.buf, s.at = s.buf[:min(windowSize, s.n-off)], off
	if k, err := s.f.ReadAt(s.buf, int64(off)); k < len(s.buf) {
		s.buf = s.buf[:k]
		if s.err == nil {
			s.err = fmt.Errorf("read at offset %d: %w", off+k, err)
		}
	}
	return s.buf[:min(n, len(s.buf))]
}

func (s *fileSource) frame(off int) ([]byte, int, error) {
	p, next, err := readFrame(s.span(off, frameHeader+MaxRecordSize), 0)
	if err != nil {
		return nil, 0, err
	}
	return p, off + next, nil
}

func (s *fileSource) head(n int) []byte { return s.span(0, n) }

func (s *fileSource) all() ([]byte, error) {
	data := make([]byte, s.n)
	if k, err := s.f.ReadAt(data, 0); k < s.n {
		return nil, fmt.Errorf("read at offset %d: %w", k, err)
	}
	return data, nil
}
