// Package trace films the plain row-by-row backtracker on a small board,
// step by step, for people learning how backtracking works:
//
//	t, err := trace.Record(4, trace.Options{}) // N ≤ 12; MaxSteps 0 = DefaultMaxSteps
//	if err != nil { return err }               // one line: n, steps or until out of range
//	return trace.Write("t.gif", t)             // or .svg, .html
//
// Record runs the backtracker to its end (or to the Options.Until-th
// solution), counts every step and keeps the first MaxSteps. A step is one
// of four things, and each is one frame:
//
//	place      a queen goes on the next row's first free square (outlined)
//	conflict   the square tried is attacked: it turns red, the queens that
//	           attack it are outlined, the refused queen is grey
//	backtrack  the row's queen comes off again (grey where it stood)
//	solution   every row has a queen: their squares turn gold, numbered
//
// Squares of the empty rows that a placed queen attacks are shaded. N=4 is
// 78 steps and 2 solutions; N=8 is 17,868 steps; N=12 about 11 million,
// counted in about 0.15 s (BenchmarkRecordN12).
//
// Every frame has two caption lines in the Go font that render's pictures
// use: "N=4 · step 17 of 78" ("N=8 · step 17 · first 3000 of 17868 steps"
// when capped) and the partial column list with what the step did, "cols 1
// 3 · conflict at (3,3)" (1-based, as --format cols and coords print).
//
// The kinds of file:
//
//	.gif   animated, looping; frames after the first hold only what changed
//	       (the rest transparent), so a step costs a few hundred bytes;
//	       three steps a second, two seconds on a solution
//	.svg   one <g class="frame"> per step over a board drawn once, played by
//	       a CSS animation (no script, no slider: it plays in an <img>)
//	.html  one self-contained page (inline CSS and script, nothing fetched)
//	       with Play/Pause, Step and Restart buttons
//
// The colours and the crown are render's (render.Colors, render.QueenGlyph,
// render.QueenSymbol).
package trace
