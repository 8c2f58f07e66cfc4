package render

import (
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"

	"github.com/nqueens/nqueens/internal/packed"
)

// maxNibblesN is the largest board WriteNibbles takes: 16 rows of 4 bits
// fill a uint64 key.
const maxNibblesN = packed.MaxKeyN

// WriteNibbles writes solutions packed in uint64 keys (N ≤ 16; row r's
// 0-based column in bits 63-4r..60-4r, the bits of rows ≥ N zero) in order:
// the same output as calling Write with each, but the cols format without
// pictures, the listing of a whole board, indexes one 256-entry table of
// tokens by each byte of a key (two rows) and formats straight into the
// writer's buffer. The coordinator's bucket sort orders solutions as these
// keys, so it hands them over without unpacking.
//
// The keys of one call are checked before anything of it is written: a bad
// key (a column ≥ N, bits set below row N's nibble) is an error that names
// its 1-based solution number, and nothing of the call is written. N > 16
// is an error too.
//
// Measured on N=16's first 262,144 solutions into a discarding writer, on a
// two-core AMD EPYC VM shared with other work: 1024 keys a call (one
// goroutine) cost about 10 ns a solution against WritePacked's 33 for the
// same solutions, 16384 keys a call (formatted in two parts) about 8.5 ns
// against 21 (BenchmarkWriteNibbles, BenchmarkWritePackedN16).
func (s *Sink) WriteNibbles(keys []uint64) error {
	n := s.opts.N
	if n > maxNibblesN {
		return fmt.Errorf("render: n = %d is too large for solutions packed 4 bits a row (at most %d)", n, maxNibblesN)
	}
	if len(keys) == 0 {
		return nil
	}
	if s.closed {
		return errors.New("render: write after close")
	}
	if s.text == nil || s.pictures || s.opts.Format != Cols {
		return s.writeNibblesSlow(keys)
	}
	if parts := min(runtime.GOMAXPROCS(0), maxFormatters, len(keys)/minPerFormatter); parts > 1 {
		return s.writeNibblesParallel(keys, parts)
	}
	if err := checkNibbles(keys, n); err != nil {
		return s.badKey(err)
	}
	tokens := nibbleTokens()
	line := packedLine(n)
	for i := 0; i < len(keys); {
		if s.text.Available() < line+nibblesSlack {
			if err := s.text.Flush(); err != nil {
				return fmt.Errorf("render: solutions: %w", err)
			}
		}
		buf := s.text.AvailableBuffer()
		buf = buf[:cap(buf)]
		fit := min((len(buf)-nibblesSlack)/line, len(keys)-i)
		pos := formatNibbles(buf, keys[i:i+fit], n, tokens)
		s.written += uint64(fit)
		i += fit
		if _, err := s.text.Write(buf[:pos]); err != nil {
			return fmt.Errorf("render: solutions: %w", err)
		}
	}
	return nil
}

// writeNibblesSlow unpacks each key into one reused array and hands it to
// Write: every format and option other than plain cols text. The keys are
// checked first, so a bad key leaves the call unwritten, as on the fast path.
func (s *Sink) writeNibblesSlow(keys []uint64) error {
	n := s.opts.N
	if err := checkNibbles(keys, n); err != nil {
		return s.badKey(err)
	}
	var buf [maxNibblesN]int
	cols := buf[:n]
	for _, k := range keys {
		packed.KeyCols(k, cols)
		if err := s.Write(cols); err != nil {
			return err
		}
	}
	return nil
}

// writeNibblesParallel is writePackedParallel for keys: it checks and
// formats a large block in parts, one goroutine each, then writes the parts
// in order, or nothing when a part holds a bad key.
func (s *Sink) writeNibblesParallel(keys []uint64, parts int) error {
	n := s.opts.N
	count := len(keys)
	tokens := nibbleTokens()
	if len(s.parts) < parts {
		s.parts = make([][]byte, parts)
	}
	errs := make([]*nibbleError, parts)
	var wg sync.WaitGroup
	for p := range parts {
		lo, hi := count*p/parts, count*(p+1)/parts
		wg.Go(func() {
			piece := keys[lo:hi]
			if err := checkNibbles(piece, n); err != nil {
				err.index += lo
				errs[p] = err
				return
			}
			buf := slices.Grow(s.parts[p][:0], len(piece)*packedLine(n)+nibblesSlack)
			buf = buf[:cap(buf)]
			s.parts[p] = buf[:formatNibbles(buf, piece, n, tokens)]
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return s.badKey(err)
		}
	}
	for p := range parts {
		if _, err := s.text.Write(s.parts[p]); err != nil {
			return fmt.Errorf("render: solutions: %w", err)
		}
	}
	s.written += uint64(count)
	return nil
}

// nibbleError names the first key of a call that does not put n queens on
// an n-board: its index in the call, and the key.
type nibbleError struct {
	index int
	key   uint64
	n     int
}

// Error says what is wrong with the key in Write's words when a column is
// out of range, so the two paths report a bad solution alike.
func (e *nibbleError) Error() string {
	var cols [maxNibblesN]int
	packed.KeyCols(e.key, cols[:e.n])
	for r, c := range cols[:e.n] {
		if c >= e.n {
			return fmt.Sprintf("queen of row %d is in column %d, outside 1..%d", r+1, c+1, e.n)
		}
	}
	return fmt.Sprintf("key 0x%016x has bits set below row %d", e.key, e.n)
}

// badKey wraps err with the solution number it names, counted over the
// whole run as Write counts.
func (s *Sink) badKey(err *nibbleError) error {
	return fmt.Errorf("render: solution %d: %w", s.written+uint64(err.index)+1, err)
}

// checkNibbles returns the first key that does not put n queens on an
// n-board (n ≤ 16) as a *nibbleError, or nil (packed.BadKey).
func checkNibbles(keys []uint64, n int) *nibbleError {
	if i := packed.BadKey(keys, n); i >= 0 {
		return &nibbleError{index: i, key: keys[i], n: n}
	}
	return nil
}

// nibbleTokens returns the tokens of every pair of columns 0..15, indexed
// by a byte of a key: entry a<<4|b is columns a and b in pairTokens' layout.
// That is pairTokens(16), whose index a*16+b is the same number, and it
// serves every n ≤ 16 because a byte of a key always holds two rows. Built
// once, on the first WriteNibbles of the process.
var nibbleTokens = sync.OnceValue(func() *[256]uint64 {
	return (*[256]uint64)(pairTokens(maxNibblesN))
})

// nibblesSlack is the room formatNibbles needs past the last key's
// packedLine: the N=16 loop gives each key a 64-byte window, 8 more than
// packedLine(16), so that its eight stores need no bounds checks.
const nibblesSlack = 8

// window16 is the bytes formatNibbles16 may touch for one key:
// packedLine(16) and nibblesSlack.
const window16 = 3*maxNibblesN + 8 + nibblesSlack

// formatNibbles writes keys (columns checked, n ≤ 16) in the cols format
// into buf, which must hold packedLine(n) bytes per key and nibblesSlack
// more, and returns the bytes used. Each byte of a key, from the top, is
// two rows; an odd n ends with the top nibble of the next byte alone.
func formatNibbles(buf []byte, keys []uint64, n int, tokens *[256]uint64) int {
	if n == maxNibblesN {
		return formatNibbles16(buf, keys, tokens)
	}
	pos := 0
	pairs, odd := n/2, n%2 == 1
	for _, k := range keys {
		for range pairs {
			t := tokens[k>>56]
			binary.LittleEndian.PutUint64(buf[pos:], t)
			pos += int(t >> 56)
			k <<= 8
		}
		if odd {
			t := colTokens[k>>60]
			binary.LittleEndian.PutUint32(buf[pos:], t)
			pos += int(t >> 24)
		}
		buf[pos-1] = '\n'
	}
	return pos
}

// formatNibbles16 is formatNibbles for N=16, the board whose listing is
// long enough to matter, unrolled: each key gets a 64-byte window, and a
// token's length masked to 3 bits keeps every store provably inside it, so
// the eight stores need no bounds checks and no loop counter. That halves
// the time of the loop above (about 19 ns a key down to 10, measured apart).
func formatNibbles16(buf []byte, keys []uint64, tokens *[256]uint64) int {
	pos := 0
	for _, k := range keys {
		w := (*[window16]byte)(buf[pos:])
		o := 0
		t := tokens[k>>56]
		binary.LittleEndian.PutUint64(w[o:], t)
		o += int(t>>56) & 7
		t = tokens[k>>48&0xff]
		binary.LittleEndian.PutUint64(w[o:], t)
		o += int(t>>56) & 7
		t = tokens[k>>40&0xff]
		binary.LittleEndian.PutUint64(w[o:], t)
		o += int(t>>56) & 7
		t = tokens[k>>32&0xff]
		binary.LittleEndian.PutUint64(w[o:], t)
		o += int(t>>56) & 7
		t = tokens[k>>24&0xff]
		binary.LittleEndian.PutUint64(w[o:], t)
		o += int(t>>56) & 7
		t = tokens[k>>16&0xff]
		binary.LittleEndian.PutUint64(w[o:], t)
		o += int(t>>56) & 7
		t = tokens[k>>8&0xff]
		binary.LittleEndian.PutUint64(w[o:], t)
		o += int(t>>56) & 7
		t = tokens[k&0xff]
		binary.LittleEndian.PutUint64(w[o:], t)
		o += int(t>>56) & 7
		w[o-1] = '\n'
		pos += o
	}
	return pos
}
