package journal

import (
	"runtime"
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

// TestDoneSetGrowsInPlace: a known-size set grows into its reserved
// room without copying its bits, past the 2^25 children a set once
// reserved, and the bits it held stay set.
func TestDoneSetGrowsInPlace(t *testing.T) {
	d := newDoneSet(100)
	d.set(99, true)
	first := &d.bits[0]
	for _, tasks := range []int{1 << 20, 1<<25 + 1000, 1 << 28} {
		d.grow(tasks)
		d.set(tasks-1, true)
		if runtime.GOOS == "linux" && &d.bits[0] != first {
			t.Fatalf("growing to %d tasks copied the bits", tasks)
		}
	}
	if !d.has(99) || !d.has(1<<28-1) || d.has(1<<27) || d.count() != 4 {
		t.Errorf("after growing: has(99) %v, has(2^28-1) %v, has(2^27) %v, count %d; want true, true, false, 4", d.has(99), d.has(1<<28-1), d.has(1<<27), d.count())
	}
}
