package render

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// DefaultLimit is the number of pictures a Sink draws when Options.Limit is
// 0: every solution up to N=9 (352) and the first thousand beyond, so an
// N=16 run does not fill a folder with 14.8 million files by accident.
const DefaultLimit = 1000

// MaxLimit caps Options.Limit. Pictures are drawn at Close, when the total
// is known for the captions, so the Sink keeps up to Limit solutions in
// memory: 100,000 boards of N=32 are 12.8 MB.
const MaxLimit = 100_000

// textBufferSize is the bufio buffer of the solutions file: large enough
// that a write(2) carries thousands of short lines.
const textBufferSize = 256 << 10

// Options says what a Sink writes. The zero value of each output field means
// "not wanted".
type Options struct {
	N             int       // board size, ≥ 1
	Format        Format    // text format for SolutionsPath; "" means Cols
	SolutionsPath string    // "" = no text, "-" = Stdout, else a file (created or truncated)
	Stdout        io.Writer // where "-" writes; nil means os.Stdout
	PNGDir        string    // one PNG per solution (up to Limit), created if missing
	SVGDir        string    // one SVG per solution (up to Limit), created if missing
	SheetPath     string    // one PNG contact sheet of the first Limit solutions
	Limit         int       // cap on pictures per kind (0 = DefaultLimit; at most MaxLimit)
	Unique        bool      // captions say "fundamental solution"
}

// Sink receives the committed solutions of a run, in order, and writes every
// output its Options ask for: text goes straight through a buffered writer,
// pictures are drawn at Close. A Sink is not safe for concurrent use.
type Sink struct {
	opts    Options
	file    *os.File      // the solutions file, when it is not Stdout
	text    *bufio.Writer // nil when no text is wanted
	scratch []byte        // one formatted solution, when it does not fit text's buffer
	written uint64        // solutions received

	pictures bool     // any of PNGDir, SVGDir, SheetPath
	kept     []int32  // the first Limit solutions, N columns each
	parts    [][]byte // WritePacked's formatted parts, reused
	pairs    []uint64 // pairTokens(N), made by the first WritePacked
	closed   bool
}

// Open checks opts, creates the output folders and the solutions file, and
// returns a Sink ready for Write. Every problem it can foresee (unknown
// format, N too large for a picture kind, a folder that cannot be written)
// is reported here, before a long run starts, in one line.
func Open(opts Options) (*Sink, error) {
	if opts.N < 1 {
		return nil, fmt.Errorf("render: n = %d, want at least 1", opts.N)
	}
	if opts.Format == "" {
		opts.Format = Cols
	}
	switch {
	case opts.Limit == 0:
		opts.Limit = DefaultLimit
	case opts.Limit < 0 || opts.Limit > MaxLimit:
		return nil, fmt.Errorf("render: limit = %d, want 1..%d", opts.Limit, MaxLimit)
	}
	s := &Sink{opts: opts}
	if opts.SolutionsPath != "" {
		if err := checkText(opts.Format, opts.N); err != nil {
			return nil, fmt.Errorf("render: %w", err)
		}
	}
	if opts.PNGDir != "" || opts.SheetPath != "" {
		if opts.N > MaxPNGN {
			return nil, fmt.Errorf("render: png: n = %d is too large (at most %d; --svg goes to %d)", opts.N, MaxPNGN, MaxSVGN)
		}
	}
	if opts.SVGDir != "" && opts.N > MaxSVGN {
		return nil, fmt.Errorf("render: svg: n = %d is too large (at most %d)", opts.N, MaxSVGN)
	}
	for _, dir := range []string{opts.PNGDir, opts.SVGDir} {
		if dir == "" {
			continue
		}
		if err := checkDir(dir, true); err != nil {
			return nil, err
		}
	}
	if opts.SheetPath != "" {
		if err := checkDir(filepath.Dir(opts.SheetPath), false); err != nil {
			return nil, err
		}
	}
	s.pictures = opts.PNGDir != "" || opts.SVGDir != "" || opts.SheetPath != ""

	switch opts.SolutionsPath {
	case "":
	case "-":
		w := opts.Stdout
		if w == nil {
			w = os.Stdout
		}
		s.text = bufio.NewWriterSize(w, textBufferSize)
	default:
		f, err := os.Create(opts.SolutionsPath)
		if err != nil {
			return nil, fmt.Errorf("render: solutions file: %w", err)
		}
		s.file = f
		s.text = bufio.NewWriterSize(f, textBufferSize)
	}
	return s, nil
}

// checkDir makes sure dir exists (creating it when create is set) and that a
// file can be created in it.
func checkDir(dir string, create bool) error {
	if create {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("render: output folder: %w", err)
		}
	}
	f, err := os.CreateTemp(dir, ".nqueens-probe-*")
	if err != nil {
		return fmt.Errorf("render: output folder %s is not writable: %w", dir, err)
	}
	name := f.Name()
	f.Close()
	os.Remove(name)
	return nil
}

// Write takes the next solution (0-based columns of rows 0..N-1). It does not
// keep cols. Solutions beyond Limit still go to the text output.
func (s *Sink) Write(cols []int) error {
	if s.closed {
		return errors.New("render: write after close")
	}
	if err := checkCols(cols, s.opts.N); err != nil {
		return fmt.Errorf("render: solution %d: %w", s.written+1, err)
	}
	s.written++
	if s.text != nil {
		size := textSize(s.opts.Format, len(cols))
		if size <= s.text.Available() || size <= textBufferSize/2 {
			// Format straight into the writer's buffer: no copy, no allocation.
			if size > s.text.Available() {
				if err := s.text.Flush(); err != nil {
					return fmt.Errorf("render: solutions: %w", err)
				}
			}
			b := appendText(s.text.AvailableBuffer(), s.opts.Format, cols)
			if _, err := s.text.Write(b); err != nil {
				return fmt.Errorf("render: solutions: %w", err)
			}
		} else {
			s.scratch = appendText(slices.Grow(s.scratch[:0], size), s.opts.Format, cols)
			if _, err := s.text.Write(s.scratch); err != nil {
				return fmt.Errorf("render: solutions: %w", err)
			}
		}
	}
	if s.pictures && s.written <= uint64(s.opts.Limit) {
		for _, c := range cols {
			s.kept = append(s.kept, int32(c))
		}
	}
	return nil
}

// Close flushes the text output and draws the pictures, whose captions name
// total, the number of solutions of the whole run ("solution 17 of 92"). A
// total below the number of solutions written is replaced by that number.
// Close returns the first error; it closes the solutions file in any case.
func (s *Sink) Close(total uint64) error {
	if s.closed {
		return errors.New("render: close called twice")
	}
	s.closed = true
	var errs []error
	if s.text != nil {
		if err := s.text.Flush(); err != nil {
			errs = append(errs, fmt.Errorf("render: solutions: %w", err))
		}
	}
	if s.file != nil {
		if err := s.file.Close(); err != nil {
			errs = append(errs, fmt.Errorf("render: solutions: %w", err))
		}
	}
	if s.pictures {
		total = max(total, s.written)
		if err := s.drawPictures(total); err != nil {
			errs = append(errs, err)
		}
	}
	s.kept = nil
	return errors.Join(errs...)
}

// drawPictures writes the PNG and SVG files and the contact sheet of the kept
// solutions. The files are independent, so they are drawn on every core:
// Close runs after the search, when the cores are free, and PNG encoding
// (about 8 ms for an N=8 board) dominates.
func (s *Sink) drawPictures(total uint64) error {
	n := s.opts.N
	count := len(s.kept) / n
	solution := func(i int, cols []int) []int {
		for j := range cols {
			cols[j] = int(s.kept[i*n+j])
		}
		return cols
	}
	var (
		next     atomic.Int64 // the next picture to draw
		failed   atomic.Bool
		errOnce  sync.Once
		firstErr error
		wg       sync.WaitGroup
	)
	fail := func(err error) {
		errOnce.Do(func() { firstErr = err })
		failed.Store(true)
	}
	if s.opts.PNGDir != "" || s.opts.SVGDir != "" {
		for range min(runtime.GOMAXPROCS(0), count) {
			wg.Go(func() {
				cols := make([]int, n)
				var pngDrawer *pngBoard
				if s.opts.PNGDir != "" {
					pngDrawer = newPNGBoard(n)
				}
				for !failed.Load() {
					i := int(next.Add(1) - 1)
					if i >= count {
						return
					}
					solution(i, cols)
					caption := Caption(n, uint64(i+1), total, s.opts.Unique)
					name := FileName(uint64(i+1), total)
					if pngDrawer != nil {
						if err := writeFile(filepath.Join(s.opts.PNGDir, name+".png"), func(w io.Writer) error {
							return pngDrawer.encode(w, cols, caption)
						}); err != nil {
							fail(err)
							return
						}
					}
					if s.opts.SVGDir != "" {
						if err := writeFile(filepath.Join(s.opts.SVGDir, name+".svg"), func(w io.Writer) error {
							return WriteSVG(w, cols, caption)
						}); err != nil {
							fail(err)
							return
						}
					}
				}
			})
		}
	}
	if s.opts.SheetPath != "" {
		count := SheetFit(n, count)
		boards := make([][]int, count)
		for i := range boards {
			boards[i] = solution(i, make([]int, n))
		}
		title := SheetTitle(n, uint64(count), total, s.opts.Unique)
		if err := writeFile(s.opts.SheetPath, func(w io.Writer) error {
			return WriteSheet(w, n, boards, title)
		}); err != nil {
			fail(err)
		}
	}
	wg.Wait()
	return firstErr
}

// writeFile creates path, lets fill write it through a buffer, and closes it.
func writeFile(path string, fill func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("render: %w", err)
	}
	bw := bufio.NewWriterSize(f, 64<<10)
	err = fill(bw)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("render: %s: %w", path, err)
	}
	return nil
}

// nameWidth is the number of digits in picture file names: at least 4, more
// when total needs them, so names sort in solution order.
func nameWidth(total uint64) int {
	w := len(fmt.Sprint(total))
	return max(w, 4)
}

// FileName is the base name (without extension) of the picture of solution
// i (1-based) of a run of total: "solution-0017" for 17 of 92.
func FileName(i, total uint64) string {
	return fmt.Sprintf("solution-%0*d", nameWidth(total), i)
}

// Caption is the line under a board: "N=8 · solution 17 of 92", or
// "N=8 · fundamental solution 3 of 12" when unique.
func Caption(n int, i, total uint64, unique bool) string {
	kind := "solution"
	if unique {
		kind = "fundamental solution"
	}
	return fmt.Sprintf("N=%d · %s %d of %d", n, kind, i, total)
}

// SheetTitle is the heading of a contact sheet: "N=8 · all 92 solutions" or
// "N=16 · first 1000 of 14772512 solutions".
func SheetTitle(n int, count, total uint64, unique bool) string {
	kind := "solutions"
	if unique {
		kind = "fundamental solutions"
	}
	if count == 1 && total == 1 {
		return fmt.Sprintf("N=%d · 1 %s", n, kind[:len(kind)-1])
	}
	if total == 0 {
		return fmt.Sprintf("N=%d · no %s", n, kind)
	}
	if count >= total {
		return fmt.Sprintf("N=%d · all %d %s", n, total, kind)
	}
	return fmt.Sprintf("N=%d · first %d of %d %s", n, count, total, kind)
}

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
