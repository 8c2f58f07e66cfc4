package journal

import (
	"math/bits"

	"github.com/nqueens/nqueens/internal/offheap"
)

// commitSet is which tasks a journal holds committed, and by which
// worker: what a replay works out from the frames when it meets a task
// committed again (after a distrust), where a doneSet's bit is not enough.
// A journal of known size keeps a slice of worker numbers, 4 bytes per
// task (0: not committed) outside the heap (package offheap), where a map
// took about 40. The workers' keys are numbered in the order they first
// commit. One of unknown size (Settings.Tasks 0) keeps a map, since its
// indexes have no bound to size a slice by.
type commitSet struct {
	anchor *byte             // owns by's memory map (package offheap)
	by     []uint32          // worker number + 1 by task index; 0: not committed
	keys   []uint64          // worker key by number
	num    map[uint64]uint32 // worker key -> number + 1
	m      map[int]uint64    // unknown size: task index -> worker key
}

func newCommitSet(tasks int) commitSet {
	if tasks <= 0 {
		return commitSet{m: make(map[int]uint64)}
	}
	c := commitSet{anchor: new(byte), num: make(map[uint64]uint32)}
	c.by = offheap.Make[uint32](c.anchor, tasks, tasks+splitRoom)
	return c
}

// splitRoom is how many children of splits a commitSet reserves room for
// beyond its plan's tasks, 4 bytes each; past it the set grows on the
// heap. A commitSet is made only when a replay meets a task committed
// again (a distrust), which is rare.
const splitRoom = 1 << 25

// grow makes room for tasks in all (after a split); the caller has
// checked every index against that number.
func (c *commitSet) grow(tasks int) {
	if c.m != nil || tasks <= len(c.by) {
		return
	}
	c.by = append(c.by, make([]uint32, tasks-len(c.by))...)
}

// get returns the worker that committed task i, if it is committed.
func (c *commitSet) get(i int) (uint64, bool) {
	if c.m != nil {
		w, ok := c.m[i]
		return w, ok
	}
	if c.by[i] == 0 {
		return 0, false
	}
	return c.keys[c.by[i]-1], true
}

// set records that worker w committed task i.
func (c *commitSet) set(i int, w uint64) {
	if c.m != nil {
		c.m[i] = w
		return
	}
	k, ok := c.num[w]
	if !ok {
		c.keys = append(c.keys, w)
		k = uint32(len(c.keys))
		c.num[w] = k
	}
	c.by[i] = k
}

// each calls fn with every committed task and its committer.
func (c *commitSet) each(fn func(i int, w uint64)) {
	if c.m != nil {
		for i, w := range c.m {
			fn(i, w)
		}
		return
	}
	for i, k := range c.by {
		if k != 0 {
			fn(i, c.keys[k-1])
		}
	}
}

// doneSet is which tasks a journal holds committed, a bit each (outside
// the heap), or a set for a journal of unknown size: 1.4 MB for 10^7
// tasks where a commitSet takes 40. Who committed a task is in the file:
// the rare times it is needed (a Distrust, a replay that meets a
// re-commit) it is read from there.
type doneSet struct {
	anchor *byte            // owns bits' memory map (package offheap)
	bits   []uint64         // bit i%64 of word i/64: task i is committed
	m      map[int]struct{} // unknown size
}

func newDoneSet(tasks int) doneSet {
	if tasks <= 0 {
		return doneSet{m: make(map[int]struct{})}
	}
	d := doneSet{anchor: new(byte)}
	d.bits = offheap.Make[uint64](d.anchor, words(tasks), words(tasks+bitRoom))
	return d
}

// bitRoom is how many tasks beyond its plan's a doneSet reserves room
// for: the children splits make over a run, unbounded since subtrees
// collapse (N=28 in minute-long tasks makes about 6·10^9). The room is
// address space (1 GiB), not memory: only the pages of the tasks made
// are touched, a bit a task, and growing never copies. A set that grew on
// the heap instead doubled as it grew, and the collector let as much
// garbage pile up: at N=27 the coordinator's RSS rose from 60 to 165 MB
// over 1.3·10^8 tasks made, for 35 MB of bits.
const bitRoom = 1 << 33

// words is how many words hold a bit for each of tasks.
func words(tasks int) int { return (tasks + 63) / 64 }

// grow makes room for tasks in all (after a split).
func (d *doneSet) grow(tasks int) {
	w := words(tasks)
	switch {
	case d.m != nil || w <= len(d.bits):
	case w <= cap(d.bits): // never written beyond len: zero
		d.bits = d.bits[:w]
	default:
		d.bits = append(d.bits, make([]uint64, w-len(d.bits))...)
	}
}

// has reports whether task i is committed.
func (d *doneSet) has(i int) bool {
	if d.m != nil {
		_, ok := d.m[i]
		return ok
	}
	return d.bits[i/64]&(1<<(i%64)) != 0
}

// set marks task i committed (on) or not.
func (d *doneSet) set(i int, on bool) {
	switch {
	case d.m != nil && on:
		d.m[i] = struct{}{}
	case d.m != nil:
		delete(d.m, i)
	case on:
		d.bits[i/64] |= 1 << (i % 64)
	default:
		d.bits[i/64] &^= 1 << (i % 64)
	}
}

// count is the number of committed tasks.
func (d *doneSet) count() int {
	if d.m != nil {
		return len(d.m)
	}
	n := 0
	for _, w := range d.bits {
		n += bits.OnesCount64(w)
	}
	return n
}
