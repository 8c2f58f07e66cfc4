package journal

// commitSet is which tasks a journal holds committed, and by which worker.
// A journal of known size keeps a slice of worker numbers, 4 bytes per
// task (0: not committed), where a map took about 40: a coordinator of
// 10^7 tasks holds it whole. The workers' keys are numbered in the order
// they first commit. One of unknown size (Settings.Tasks 0) keeps a map,
// since its indexes have no bound to size a slice by.
type commitSet struct {
	by   []uint32          // worker number + 1 by task index; 0: not committed
	keys []uint64          // worker key by number
	num  map[uint64]uint32 // worker key -> number + 1
	m    map[int]uint64    // unknown size: task index -> worker key
}

func newCommitSet(tasks int) commitSet {
	if tasks <= 0 {
		return commitSet{m: make(map[int]uint64)}
	}
	return commitSet{by: make([]uint32, tasks), num: make(map[uint64]uint32)}
}

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
