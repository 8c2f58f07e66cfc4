package sched

import "github.com/nqueens/nqueens/solver"

// taskRec is the scheduler's record of one live task: its state, where it
// hangs in the split tree (a child's parent, value and depth), its share
// of the work estimate, and its committed counts (a collapsed task's are
// its subtree's). No pointer, so the collector never scans a chunk.
type taskRec struct {
	taskState
	value  uint8   // a child's last prefix value
	depth  uint8   // a child's prefix length
	group  uint8   // a child's work group (observe.go)
	weight float32 // a child's units of work (observe.go)
	parent int64   // a child's parent task
	c      solver.Counts
}

// chunkBits sets the tasks a chunk holds: 2^10 records of 48 bytes, 48
// KB. A chunk is held while any task in it lives, and the live tasks of
// a run spread over many chunks (a lease's task, its siblings, its
// ancestors along each open path), so the chunk is small: at N=27 with
// 50 workers, chunks of 2^14 held 140-170 MB for 3,500 live tasks. The
// directory of chunks costs a pointer per 1,024 tasks made (8 MB at
// 10^9).
const chunkBits = 10

// taskChunk holds the records of chunkSize consecutive task indices.
type taskChunk struct {
	recs []taskRec
	live int // records made and not gone
}

// taskStore holds the task records by index, made in order and never
// renumbered, in chunks: a chunk is released once every task in it is
// gone (collapsed into its parent, or dropped with a reopened subtree),
// so memory follows the live tasks, not the tasks ever made.
type taskStore struct {
	bits    int          // log2 of the tasks a chunk holds: chunkBits, or a test's
	chunks  []*taskChunk // nil once released
	n       int          // tasks made
	live    int          // tasks made and not gone
	peak    int          // most live tasks at once
	held    int          // chunks held now
	scratch taskRec      // what at returns for a released chunk's task
}

// len is the number of tasks made.
func (st *taskStore) len() int { return st.n }

// at returns task idx's record (0 <= idx < len). A task of a released
// chunk reads as gone; what is written to it is lost.
func (st *taskStore) at(idx int) *taskRec {
	c := st.chunks[idx>>st.bits]
	if c == nil {
		st.scratch = taskRec{taskState: taskState{flags: taskGone}}
		return &st.scratch
	}
	return &c.recs[idx&(1<<st.bits-1)]
}

// add appends r as the next task and returns its index.
func (st *taskStore) add(r taskRec) int {
	idx := st.n
	if st.bits == 0 {
		st.bits = chunkBits
	}
	if idx&(1<<st.bits-1) == 0 {
		st.chunks = append(st.chunks, &taskChunk{recs: make([]taskRec, 1<<st.bits)})
		st.held++
	}
	c := st.chunks[idx>>st.bits]
	c.recs[idx&(1<<st.bits-1)] = r
	c.live++
	st.n++
	st.live++
	st.peak = max(st.peak, st.live)
	return idx
}

// drop marks task idx gone and releases its chunk when the chunk is full
// and every task in it is gone.
func (st *taskStore) drop(idx int) {
	c := st.chunks[idx>>st.bits]
	if c == nil {
		return
	}
	r := &c.recs[idx&(1<<st.bits-1)]
	if r.is(taskGone) {
		return
	}
	r.set(taskGone, true)
	c.live--
	st.live--
	if c.live == 0 && (idx>>st.bits+1)<<st.bits <= st.n {
		st.chunks[idx>>st.bits] = nil
		st.held--
	}
}

// each calls fn for every task not gone, in index order.
func (st *taskStore) each(fn func(idx int, r *taskRec)) {
	for ci, c := range st.chunks {
		if c == nil {
			continue
		}
		for i := range c.recs {
			idx := ci<<st.bits + i
			if idx >= st.n {
				return
			}
			if r := &c.recs[i]; !r.is(taskGone) {
				fn(idx, r)
			}
		}
	}
}
