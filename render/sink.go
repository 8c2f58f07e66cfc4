package render

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
)

// DefaultLimit is the number of pictures a Sink draws when Options.Limit is
// 0: every solution up to N=9 (352) and the first thousand beyond, so an
// N=16 run does not fill a folder with 14.8 million files by accident.
const DefaultLimit = 1000

// maxLimit caps Options.Limit. Pictures are drawn at Close, when the total
// is known for the captions, so the Sink keeps up to Limit solutions in
// memory: 100,000 boards of N=32 are 12.8 MB.
const maxLimit = 100_000

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
	Limit         int       // cap on pictures per kind (0 = DefaultLimit; at most maxLimit)
	Unique        bool      // captions say "fundamental solution"
	Labels        Labels    // file and rank labels on pictures (NoLabels: none); text ignores it
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
	case opts.Limit < 0 || opts.Limit > maxLimit:
		return nil, fmt.Errorf("render: limit = %d, want 1..%d", opts.Limit, maxLimit)
	}
	s := &Sink{opts: opts}
	if opts.SolutionsPath != "" {
		if err := checkText(opts.Format, opts.N); err != nil {
			return nil, fmt.Errorf("render: %w", err)
		}
	}
	if opts.PNGDir != "" || opts.SheetPath != "" {
		if opts.N > maxPNGN {
			return nil, fmt.Errorf("render: png: n = %d is too large (at most %d; --svg goes to %d)", opts.N, maxPNGN, maxSVGN)
		}
	}
	if opts.SVGDir != "" && opts.N > maxSVGN {
		return nil, fmt.Errorf("render: svg: n = %d is too large (at most %d)", opts.N, maxSVGN)
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
