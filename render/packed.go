package render

import (
	"encoding/binary"
	"fmt"
	"runtime"
	"slices"
	"sync"
)

// WritePacked writes the solutions packed in sols, N bytes each (byte r
// holds the 0-based column of row r), in order: the same as calling Write
// with each, but the cols format of N ≤ 98 without pictures, the listing of
// a whole board, is formatted straight into the writer's buffer, many
// solutions per call. The coordinator's spill files hold this layout.
func (s *Sink) WritePacked(sols []byte) error {
	n := s.opts.N
	if len(sols)%n != 0 {
		return fmt.Errorf("render: %d packed bytes are not whole solutions of n=%d", len(sols), n)
	}
	if s.closed || s.text == nil || s.pictures || s.opts.Format != Cols || n >= len(colTokens) {
		var buf [64]int
		cols := buf[:0]
		if n > len(buf) {
			cols = make([]int, 0, n)
		}
		cols = cols[:n]
		for i := 0; i < len(sols); i += n {
			for r, c := range sols[i : i+n] {
				cols[r] = int(c)
			}
			if err := s.Write(cols); err != nil {
				return err
			}
		}
		return nil
	}
	count := len(sols) / n
	if s.pairs == nil {
		s.pairs = pairTokens(n)
	}
	if parts := min(runtime.GOMAXPROCS(0), maxFormatters, count/minPerFormatter); parts > 1 {
		return s.writePackedParallel(sols, parts)
	}
	if err := checkPacked(sols, n); err != nil {
		return fmt.Errorf("render: solution %d: %w", s.written+uint64(err.(packedError).index)+1, err)
	}
	line := packedLine(n)
	for i := 0; i < len(sols); {
		if s.text.Available() < line {
			if err := s.text.Flush(); err != nil {
				return fmt.Errorf("render: solutions: %w", err)
			}
		}
		buf := s.text.AvailableBuffer()
		buf = buf[:cap(buf)]
		fit := min((len(buf)/line)*n, len(sols)-i)
		pos := formatPacked(buf, sols[i:i+fit], n, s.pairs)
		s.written += uint64(fit / n)
		i += fit
		if _, err := s.text.Write(buf[:pos]); err != nil {
			return fmt.Errorf("render: solutions: %w", err)
		}
	}
	return nil
}

const (
	// maxFormatters caps the goroutines that format one WritePacked call.
	maxFormatters = 4
	// minPerFormatter is the fewest solutions worth a goroutine (a few
	// tens of microseconds of formatting).
	minPerFormatter = 2048
)

// writePackedParallel formats a large block of packed solutions (cols
// format) in parts, one goroutine each, then writes the parts in order.
// When the workers are done and only the publisher runs, this spreads its
// formatting over the idle cores.
func (s *Sink) writePackedParallel(sols []byte, parts int) error {
	n := s.opts.N
	count := len(sols) / n
	if len(s.parts) < parts {
		s.parts = make([][]byte, parts)
	}
	errs := make([]error, parts)
	var wg sync.WaitGroup
	for p := 0; p < parts; p++ {
		lo, hi := count*p/parts*n, count*(p+1)/parts*n
		wg.Add(1)
		go func() {
			defer wg.Done()
			piece := sols[lo:hi]
			if err := checkPacked(piece, n); err != nil {
				pe := err.(packedError)
				pe.index += lo / n
				errs[p] = pe
				return
			}
			buf := slices.Grow(s.parts[p][:0], (hi-lo)/n*packedLine(n))
			buf = buf[:cap(buf)]
			s.parts[p] = buf[:formatPacked(buf, piece, n, s.pairs)]
		}()
	}
	wg.Wait()
	for p := 0; p < parts; p++ {
		if errs[p] != nil {
			return fmt.Errorf("render: solution %d: %w", s.written+uint64(errs[p].(packedError).index)+1, errs[p])
		}
	}
	for p := 0; p < parts; p++ {
		if _, err := s.text.Write(s.parts[p]); err != nil {
			return fmt.Errorf("render: solutions: %w", err)
		}
	}
	s.written += uint64(count)
	return nil
}

// packedError names the first packed solution with a column out of range.
type packedError struct {
	index, row, col, n int
}

func (e packedError) Error() string {
	return fmt.Sprintf("queen of row %d is in column %d, outside 1..%d", e.row+1, e.col+1, e.n)
}

// checkPacked reports the first column of sols (packed, n bytes each)
// outside 0..n-1, as a packedError.
func checkPacked(sols []byte, n int) error {
	for i, c := range sols {
		if int(c) >= n {
			return packedError{index: i / n, row: i % n, col: int(c), n: n}
		}
	}
	return nil
}

// packedLine is the buffer one solution of formatPacked may need: 3 bytes
// a column at most, and room for the last 8-byte store.
func packedLine(n int) int { return 3*n + 8 }

// pairTokens returns the tokens of every pair of columns of an n-board
// (n < 99): entry a*n+b is columns a and b printed 1-based, each followed
// by a space, packed little-endian in the low bytes, with the length in
// the top byte. Half as many dependent stores as one token a column.
func pairTokens(n int) []uint64 {
	t := make([]uint64, n*n)
	for a := 0; a < n; a++ {
		for b := 0; b < n; b++ {
			ta, tb := colTokens[a], colTokens[b]
			la, lb := ta>>24, tb>>24
			v := uint64(ta&0xffffff) | uint64(tb&0xffffff)<<(8*la)
			t[a*n+b] = v | uint64(la+lb)<<56
		}
	}
	return t
}

// formatPacked writes sols (packed, n bytes each, columns checked, n < 99)
// in the cols format into buf, which must hold packedLine(n) bytes per
// solution, and returns the bytes used. pairs is pairTokens(n).
func formatPacked(buf, sols []byte, n int, pairs []uint64) int {
	pos := 0
	even := n &^ 1
	for i := 0; i+n <= len(sols); i += n {
		sol := sols[i : i+n]
		for r := 0; r < even; r += 2 {
			t := pairs[int(sol[r])*n+int(sol[r+1])]
			binary.LittleEndian.PutUint64(buf[pos:], t)
			pos += int(t >> 56)
		}
		if even < n {
			t := colTokens[sol[even]]
			binary.LittleEndian.PutUint32(buf[pos:], t)
			pos += int(t >> 24)
		}
		buf[pos-1] = '\n'
	}
	return pos
}
