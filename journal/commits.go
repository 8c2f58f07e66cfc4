package journal

import "math/bits"

// commitSet is which tasks a journal holds committed, and by which worker.
// A journal of known size keeps a slice and a bitmap, 8 bytes and a bit
// per task, where a map took about 40: a resume of a million tasks holds
// it whole. One of unknown size (Settings.Tasks 0) keeps a map, since its
// indexes have no bound to size a slice by.
type commitSet struct {
	by  []uint64       // worker key by task index, valid where has is set
	has []uint64       // bit i: task i is committed
	m   map[int]uint64 // unknown size: task index -> worker key
}

func newCommitSet(tasks int) commitSet {
	if tasks <= 0 {
		return commitSet{m: make(map[int]uint64)}
	}
	return commitSet{by: make([]uint64, tasks), has: make([]uint64, (tasks+63)/64)}
}

// grow makes room for tasks in all (after a split); the caller has
// checked every index against that number.
func (c *commitSet) grow(tasks int) {
	if c.m != nil || tasks <= len(c.by) {
		return
	}
	c.by = append(c.by, make([]uint64, tasks-len(c.by))...)
	c.has = append(c.has, make([]uint64, (tasks+63)/64-len(c.has))...)
}

// get returns the worker that committed task i, if it is committed.
func (c *commitSet) get(i int) (uint64, bool) {
	if c.m != nil {
		w, ok := c.m[i]
		return w, ok
	}
	if c.has[i/64]&(1<<(i%64)) == 0 {
		return 0, false
	}
	return c.by[i], true
}

// set records that worker w committed task i.
func (c *commitSet) set(i int, w uint64) {
	if c.m != nil {
		c.m[i] = w
		return
	}
	c.has[i/64] |= 1 << (i % 64)
	c.by[i] = w
}

// workers calls fn with the committer of every committed task.
func (c *commitSet) workers(fn func(w uint64)) {
	if c.m != nil {
		for _, w := range c.m {
			fn(w)
		}
		return
	}
	for k, word := range c.has {
		for word != 0 {
			i := 64*k + bits.TrailingZeros64(word)
			word &= word - 1
			fn(c.by[i])
		}
	}
}
