package solver

import "sync/atomic"

// tripleInfo is what counting and listing need of the frames (a, b, c, d)
// of one border triple (a, c, d), for every b: which of them are
// canonical, with which symmetries, which the count takes in one pass over
// the last row, and which it counts one by one.
type tripleInfo struct {
	canon uint32      // columns b of the canonical frames (0: the triple has none)
	stab  [MaxN]uint8 // the stabilizer of each canonical frame, by b (0: not canonical)
	lazy  uint32      // columns b of the frames left to the count's last row
	each  []frame     // the canonical frames counted one by one, b ascending
}

// framesOf works out the tripleInfo of (a, c, d) on an n-board: n calls of
// makeFrame, each comparing 8 images. A task of a deep plan is one triple
// and a few more queens, so this would be redone for every task of the
// triple (8% of counting at N=16, depth 5): tripleMemo keeps it.
func framesOf(n, a, c, d int) tripleInfo {
	m := n - 1
	var tf tripleInfo
	for b := 0; b < n; b++ {
		f, ok := makeFrame(n, [4]int{a, b, c, d})
		if !ok {
			continue
		}
		tf.canon |= 1 << b
		tf.stab[b] = f.stab
		if f.stab == 1 && c != m && d != m {
			tf.lazy |= 1 << b
			continue
		}
		tf.each = append(tf.each, f)
	}
	return tf
}

// tripleMemo remembers framesOf: a pure function of its arguments, so the
// memo changes no result, only the time. One table per board size, made
// when first needed, with a slot per triple (a, c, d): at most n³ entries
// of n, 256 KB of slots at N=32. Safe for concurrent use; a lookup is one
// atomic load and allocates nothing.
var tripleMemo [MaxN + 1]atomic.Pointer[[]atomic.Pointer[tripleInfo]]

// memoFramesOf is framesOf through tripleMemo; n must be a valid board
// size and a, c, d its columns. The caller must not modify the result.
func memoFramesOf(n, a, c, d int) *tripleInfo {
	tab := tripleMemo[n].Load()
	if tab == nil {
		t := make([]atomic.Pointer[tripleInfo], n*n*n)
		tripleMemo[n].CompareAndSwap(nil, &t)
		tab = tripleMemo[n].Load()
	}
	slot := &(*tab)[(a*n+c)*n+d]
	if tf := slot.Load(); tf != nil {
		return tf
	}
	tf := framesOf(n, a, c, d)
	slot.Store(&tf) // a concurrent miss stores an equal value
	return &tf
}
