package journal

import "github.com/nqueens/nqueens/internal/offheap"

// commitSet is which tasks a journal holds committed, and by which worker.
// A journal of known size keeps a slice of worker numbers, 4 bytes per
// task (0: not committed) outside the heap (package offheap), where a map took about 40: a coordinator of
// 10^7 tasks holds it whole. The workers' keys are numbered in the order
// they first commit. One of unknown size (Settings.Tasks 0) keeps a map,
// since its indexes have no bound to size a slice by.
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
// beyond its plan's tasks (a coordinator makes at most 2^25 tasks).
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

// workers calls fn with the committer of every committed task.
func (c *commitSet) workers(fn func(w uint64)) {
	if c.m != nil {
		for _, w := range c.m {
			fn(w)
		}
		return
	}
	for _, k := range c.by {
		if k != 0 {
			fn(c.keys[k-1])
		}
	}
}
