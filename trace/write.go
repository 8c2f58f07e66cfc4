package trace

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// writers maps a file extension to the writer of that kind of trace.
var writers = map[string]func(io.Writer, *Trace) error{
	".gif":  WriteGIF,
	".svg":  WriteSVG,
	".html": WriteHTML,
}

// CheckPath reports whether path names a kind of trace Write knows (by its
// extension, .gif, .svg or .html, in any case); the error wraps ErrFormat.
func CheckPath(path string) error {
	if _, ok := writers[strings.ToLower(filepath.Ext(path))]; !ok {
		return fmt.Errorf("%w, not %q", ErrFormat, path)
	}
	return nil
}

// Write writes t to the file path, in the kind its extension names.
func Write(path string, t *Trace) error {
	if err := CheckPath(path); err != nil {
		return err
	}
	write := writers[strings.ToLower(filepath.Ext(path))]
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("trace: %w", err)
	}
	bw := bufio.NewWriterSize(f, 64<<10)
	err = write(bw, t)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("trace: %s: %w", path, err)
	}
	return nil
}
