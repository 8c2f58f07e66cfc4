// Package packed defines the two compact layouts in which an N-Queens
// solution travels between the worker, the listing and the renderer, so
// that each is written down once:
//
//   - Bytes: n bytes a solution, byte r the 0-based column of row r. Workers
//     stream class representatives this way (SolutionBatch.packed), the
//     listing spills and sorts them this way above MaxKeyN, and
//     render.Sink.WritePacked takes them.
//   - Key: for n ≤ MaxKeyN, a uint64 with row r's column in bits
//     63-4r..60-4r (row 0 in the top nibble) and the bits of rows ≥ n zero.
//     Keys order as the byte records do, so the listing's bucket sort sorts
//     them as integers, and render.Sink.WriteNibbles formats them as they
//     are.
//
// A round trip:
//
//	sol := packed.Append(nil, []int{1, 3, 0, 2}) // []byte{1, 3, 0, 2}
//	key := packed.Key(sol)                       // 0x1302000000000000
//	packed.UnpackKey(key, sol)                   // sol is 1 3 0 2 again
//	cols := make([]int, 4)
//	packed.Unpack(cols, sol)                     // cols is [1 3 0 2]
//
// AppendClassKeys makes the 8 symmetry images of a solution as keys, in
// registers: it is tied to the key layout, so it lives here; the same for
// any column list is solver.AppendClass.
package packed
