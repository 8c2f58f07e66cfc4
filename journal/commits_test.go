package journal

import (
	"slices"
	"testing"
)

// TestCommitSet: both forms (known size, grown by splits; unknown size)
// answer get and workers the same way.
func TestCommitSet(t *testing.T) {
	for _, tasks := range []int{0, 70} {
		c := newCommitSet(tasks)
		c.grow(130) // a split's children
		for _, i := range []int{0, 63, 64, 69, 129} {
			c.set(i, uint64(1000+i))
		}
		for i := range 130 {
			w, ok := c.get(i)
			want := i == 0 || i == 63 || i == 64 || i == 69 || i == 129
			if ok != want || ok && w != uint64(1000+i) {
				t.Errorf("tasks %d: get(%d) = %d, %v; want committed %v", tasks, i, w, ok, want)
			}
		}
		var ws []uint64
		c.workers(func(w uint64) { ws = append(ws, w) })
		slices.Sort(ws)
		if want := []uint64{1000, 1063, 1064, 1069, 1129}; !slices.Equal(ws, want) {
			t.Errorf("tasks %d: workers %v, want %v", tasks, ws, want)
		}
	}
}
