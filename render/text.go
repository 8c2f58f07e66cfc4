package render

import (
	"encoding/binary"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// Format names a text layout of one solution.
type Format string

// The text formats. Their exact bytes are documented in doc.go and pinned by
// the golden files in testdata.
const (
	Cols   Format = "cols"   // "1 5 8 6 3 7 2 4\n"
	Coords Format = "coords" // "(1,1) (2,5) (3,8) ...\n"
	Matrix Format = "matrix" // N lines "0 0 1 0", then a blank line
	Board  Format = "board"  // N lines ". Q . .", then a blank line
)

// formats lists every text format in the order -h texts should show them.
var formats = []Format{Cols, Coords, Matrix, Board}

// maxGridN is the largest N the grid formats (matrix, board) accept. One
// solution of a grid format is 2·N² bytes: at N = 1000 that is 2 MB and a
// line no one can read; a million-queen board would be two terabytes. Use
// cols or coords for larger boards.
const maxGridN = 1000

// ParseFormat returns the Format named s, or an error that lists the names
// it knows.
func ParseFormat(s string) (Format, error) {
	for _, f := range formats {
		if string(f) == s {
			return f, nil
		}
	}
	return "", fmt.Errorf("unknown format %q (want one of %s)", s, formatNames())
}

func formatNames() string {
	names := make([]string, len(formats))
	for i, f := range formats {
		names[i] = string(f)
	}
	return strings.Join(names, ", ")
}

// WriteText writes one solution (0-based columns of rows 0..N-1) in format f,
// with its trailing newline (and, for matrix and board, the blank line that
// separates solutions). It allocates a buffer per call; a Sink reuses one.
func WriteText(w io.Writer, f Format, cols []int) error {
	if err := checkText(f, len(cols)); err != nil {
		return err
	}
	if err := checkCols(cols, len(cols)); err != nil {
		return err
	}
	b := appendText(make([]byte, 0, textSize(f, len(cols))), f, cols)
	_, err := w.Write(b)
	return err
}

// checkText reports whether format f can print a board of size n.
func checkText(f Format, n int) error {
	switch f {
	case Cols, Coords:
	case Matrix, Board:
		if n > maxGridN {
			return fmt.Errorf("format %s: n = %d is too large (at most %d; use cols or coords)", f, n, maxGridN)
		}
	default:
		return fmt.Errorf("unknown format %q (want one of %s)", f, formatNames())
	}
	return nil
}

// checkCols reports the first column outside 0..n-1 or a length other than n.
func checkCols(cols []int, n int) error {
	if len(cols) != n {
		return fmt.Errorf("solution has %d queens, want %d", len(cols), n)
	}
	for r, c := range cols {
		if uint(c) >= uint(n) {
			return fmt.Errorf("queen of row %d is in column %d, outside 1..%d", r+1, c+1, n)
		}
	}
	return nil
}

// textSize is an upper bound on the bytes of one solution in format f, so
// buffers are sized once.
func textSize(f Format, n int) int {
	d := len(strconv.Itoa(n))
	switch f {
	case Cols:
		return n*(d+1) + 4 // appendSmallCols stores 4 bytes at a time
	case Coords:
		return n * (2*d + 4)
	default: // Matrix, Board
		return 2*n*n + 1
	}
}

// small holds "1".."99" so the common case (N ≤ 99) needs no division.
var small = func() [100][2]byte {
	var t [100][2]byte
	for i := range t {
		t[i] = [2]byte{byte('0' + i/10), byte('0' + i%10)}
	}
	return t
}()

// appendNum appends v (≥ 0) in decimal.
func appendNum(b []byte, v int) []byte {
	switch {
	case v < 10:
		return append(b, byte('0'+v))
	case v < 100:
		return append(b, small[v][0], small[v][1])
	default:
		return strconv.AppendInt(b, int64(v), 10)
	}
}

// colTokens[c] is column c (0-based) printed 1-based with a space after
// it, packed little-endian in the low bytes; the top byte holds its length.
var colTokens = func() [99]uint32 {
	var t [99]uint32
	for c := range t {
		s := strconv.Itoa(c+1) + " "
		var v uint32
		for i := len(s) - 1; i >= 0; i-- {
			v = v<<8 | uint32(s[i])
		}
		t[c] = v | uint32(len(s))<<24
	}
	return t
}()

// appendSmallCols is the cols format for N ≤ 99, the hot path of listing
// every solution: one 4-byte store per queen instead of an append per digit.
func appendSmallCols(b []byte, cols []int) []byte {
	start := len(b)
	b = slices.Grow(b, 3*len(cols)+4)
	buf := b[start : start+3*len(cols)+4]
	pos := 0
	for _, c := range cols {
		t := colTokens[c]
		binary.LittleEndian.PutUint32(buf[pos:], t)
		pos += int(t >> 24)
	}
	if pos == 0 {
		return append(b, '\n')
	}
	buf[pos-1] = '\n'
	return b[:start+pos]
}

// appendText appends one solution in format f to b. cols must be valid.
func appendText(b []byte, f Format, cols []int) []byte {
	n := len(cols)
	switch f {
	case Cols:
		if n < len(colTokens) {
			return appendSmallCols(b, cols)
		}
		for i, c := range cols {
			if i > 0 {
				b = append(b, ' ')
			}
			b = appendNum(b, c+1)
		}
		return append(b, '\n')
	case Coords:
		for i, c := range cols {
			if i > 0 {
				b = append(b, ' ')
			}
			b = append(b, '(')
			b = appendNum(b, i+1)
			b = append(b, ',')
			b = appendNum(b, c+1)
			b = append(b, ')')
		}
		return append(b, '\n')
	default: // Matrix, Board
		empty, queen := byte('0'), byte('1')
		if f == Board {
			empty, queen = '.', 'Q'
		}
		for _, c := range cols {
			start := len(b)
			for j := 0; j < n; j++ {
				if j > 0 {
					b = append(b, ' ')
				}
				b = append(b, empty)
			}
			b[start+2*c] = queen
			b = append(b, '\n')
		}
		return append(b, '\n')
	}
}
