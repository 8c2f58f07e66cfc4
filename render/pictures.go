package render

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
)

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
					pngDrawer = newPNGBoard(n, s.opts.Labels)
				}
				for !failed.Load() {
					i := int(next.Add(1) - 1)
					if i >= count {
						return
					}
					solution(i, cols)
					caption := boardCaption(n, uint64(i+1), total, s.opts.Unique)
					name := fileName(uint64(i+1), total)
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
							return writeSVG(w, cols, caption, s.opts.Labels)
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
		count := sheetFit(n, count, s.opts.Labels)
		boards := make([][]int, count)
		for i := range boards {
			boards[i] = solution(i, make([]int, n))
		}
		title := sheetTitle(n, uint64(count), total, s.opts.Unique)
		if err := writeFile(s.opts.SheetPath, func(w io.Writer) error {
			return writeSheet(w, n, boards, title, s.opts.Labels)
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

// fileName is the base name (without extension) of the picture of solution
// i (1-based) of a run of total: "solution-0017" for 17 of 92.
func fileName(i, total uint64) string {
	return fmt.Sprintf("solution-%0*d", nameWidth(total), i)
}

// boardCaption is the line under a board: "N=8 · solution 17 of 92", or
// "N=8 · fundamental solution 3 of 12" when unique.
func boardCaption(n int, i, total uint64, unique bool) string {
	kind := "solution"
	if unique {
		kind = "fundamental solution"
	}
	return fmt.Sprintf("N=%d · %s %d of %d", n, kind, i, total)
}

// sheetTitle is the heading of a contact sheet: "N=8 · all 92 solutions" or
// "N=16 · first 1000 of 14772512 solutions".
func sheetTitle(n int, count, total uint64, unique bool) string {
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
