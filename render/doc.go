// Package render writes the solutions of a run: as text, one solution after
// another, and as pictures of the boards (PNG, SVG, a PNG contact sheet).
//
// The coordinator opens one Sink per run, hands it every committed solution
// in order, and closes it with the total, which the picture captions need:
//
//	s, err := render.Open(render.Options{
//		N: 8, Format: render.Coords, SolutionsPath: "-", Stdout: os.Stdout,
//		PNGDir: "boards", SheetPath: "sheet.png", // Limit 0: DefaultLimit pictures
//	})
//	if err != nil { return err }         // bad format, unwritable folder, N too large: one line
//	for cols := range solver.Solutions(8, nil) {
//		if err := s.Write(cols); err != nil { return err }
//	}
//	return s.Close(92)                    // boards/solution-0001.png ... 0092.png, sheet.png
//
// --first is the same with one solution and Close(1).
//
// # Text formats
//
// Columns are 0-based in Go and printed 1-based. Numbers are separated by one
// space; no line has trailing spaces; every line ends in "\n".
//
//	cols    one line per solution: the column of the queen of rows 1..N
//	        1 5 8 6 3 7 2 4
//	coords  one line per solution: (row,column) pairs, no space inside a pair
//	        (1,1) (2,5) (3,8) (4,6) (5,3) (6,7) (7,2) (8,4)
//	matrix  N lines of N cells "0" or "1", then an empty line
//	board   N lines of N cells "." or "Q", then an empty line
//	        . Q . .
//	        . . . Q
//	        Q . . .
//	        . . Q .
//
// cols and coords print any N (a 1,000,000-queen solution in cols is 6.9 MB
// and takes some tens of milliseconds); matrix and board refuse N above
// 1000, where one solution would be 2·N² bytes. A Sink formats
// straight into a 256 KiB bufio buffer, without fmt and without allocating:
// a line of N=16 costs about 0.1 µs (BenchmarkSinkCols).
//
// # Pictures
//
// A picture shows a checkerboard (top-left square light, row 1 at the top,
// column 1 at the left) with a crimson crown on each queen's square, and a
// caption under it: "N=8 · solution 17 of 92", or "N=8 · fundamental solution
// 3 of 12" when Options.Unique is set. PNG and SVG share one layout:
//
//	Cell   = clamp(512/N, 1, 64) pixels (integer division)
//	Width  = max(N·Cell + 2·16, 320)
//	Height = N·Cell + 16 + 36       (16 above the board, a 36 pixel caption band)
//
// so boards up to N=8 have 64 pixel squares, boards of N=9..256 are 256 to
// 512 pixels wide, and from N=257 on each square is one pixel. Squares of 12 pixels or more get
// the crown glyph; smaller ones a filled square. Limits: a PNG (and a contact
// sheet) shows at most 4096 queens; an SVG at most
// 100,000 (its squares are one <pattern>, each queen one <use class="queen">
// element, so it grows with N, not N²). Open refuses larger boards with an
// error that names the limit.
//
// The font is Go Regular (golang.org/x/image/font/gofont), compiled into the
// binary: pictures look the same on every machine and need no system fonts.
// SVG captions are <text> that names Go first and falls back to sans-serif.
//
// Files are named solution-NNNN.png and solution-NNNN.svg, numbered from 1
// in the order of Write, zero-padded to the digits of the total and at least
// 4 (solution-0017.png of 92, solution-00017.png of 14200), so they sort in
// solution order. Only the first Limit solutions get pictures (DefaultLimit
// = 1000 when Options.Limit is 0, at most 100,000), because
// pictures are drawn at Close, when the total is known, and the Sink keeps
// the solutions until then.
//
// The contact sheet (SheetPath) holds the same first Limit boards in a grid
// of ceil(√count) columns under a title ("N=8 · all 92 solutions", "N=16 ·
// first 1000 of 14772512 solutions"), each board with its solution number
// under it: thumbnails of at most 128 pixels and 16 pixel squares, rows of
// at most about 3072 pixels (sheet.go has the exact rules). A sheet has at
// most 64 Mi pixels: when the first Limit boards do not fit (a limit in the
// tens of thousands), it holds as many of them as fit, and its title says
// how many.
//
// # Labels
//
// Options.Labels names the files and ranks along the board's edges, as a
// chessboard diagram does: LetterLabels puts files a, b, c ... under the
// columns (up to N = 26; 1..N beyond) and ranks 1..N left of the rows;
// NumberLabels numbers both 1..N. Rank 1 is the top row, as the text formats
// count rows, so the queen printed as (2,5) by coords stands on rank 2,
// file e. ChessLabels numbers the ranks from the bottom, as a chess diagram
// does (that queen stands on e7 of an 8-board); the board is the same. The
// labels take a band left of the board and one under it (the
// picture grows by them; without labels nothing moves); squares too small
// for a label each get one every 2, 5, 10, ... squares (1 and the
// multiples). The contact sheet labels every thumbnail the same way. Text
// output is the same bytes with or without labels.
//
// Other pictures of boards (the trace package's animation) draw with the
// same colours (Colors).
package render
