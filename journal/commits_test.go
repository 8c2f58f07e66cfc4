package journal

import (
	"slices"
	"testing"
)

// TestCommitSet: both forms (known size, grown by splits; unknown size)
// answer get and each the same way.
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
		c.each(func(i int, w uint64) {
			if w != uint64(1000+i) {
				t.Errorf("tasks %d: each says task %d by %d", tasks, i, w)
			}
			ws = append(ws, w)
		})
		slices.Sort(ws)
		if want := []uint64{1000, 1063, 1064, 1069, 1129}; !slices.Equal(ws, want) {
			t.Errorf("tasks %d: workers %v, want %v", tasks, ws, want)
		}
	}
}

// TestDoneSet: both forms (known size, grown by splits; unknown size)
// set, clear and count the same way.
func TestDoneSet(t *testing.T) {
	for _, tasks := range []int{0, 70} {
		d := newDoneSet(tasks)
		d.grow(130) // a split's children
		on := []int{0, 63, 64, 69, 129}
		for _, i := range on {
			d.set(i, true)
		}
		d.set(63, false)
		d.set(5, false) // clearing a clear bit
		for i := range 130 {
			want := slices.Contains(on, i) && i != 63
			if d.has(i) != want {
				t.Errorf("tasks %d: has(%d) = %v, want %v", tasks, i, d.has(i), want)
			}
		}
		if n := d.count(); n != 4 {
			t.Errorf("tasks %d: count %d, want 4", tasks, n)
		}
	}
}
