package solver

import (
	"fmt"
	"sort"
	"sync"
)

// MaxLazyTasks caps a lazy plan (NewLazyPlan): it holds a few bytes per
// border placement, not per task, so the bound is only that a task's
// index fits the coordinator's 32-bit task records with room for the
// children of its splits.
const MaxLazyTasks = 1 << 27

// NewLazyPlan plans the same tasks as NewPlan, in the same order and with
// the same fingerprint, without holding their prefixes: Tasks is nil, and
// Len and Prefix answer from the border placements, working a prefix out
// again when it is asked for (a coordinator with 10^7 tasks
// keeps a few bytes per task, not a slice each). Depth may go to MaxDepth
// and the plan to MaxLazyTasks tasks.
func NewLazyPlan(n, depth int, kind Kind) (Plan, error) {
	p, err := newPlan(n, min(depth, frameDepth), kind, MaxLazyTasks)
	if err != nil || depth <= frameDepth {
		return p, err
	}
	if maxd := MaxDepth(n, kind); depth > maxd {
		return Plan{}, fmt.Errorf("depth %d out of range: for n=%d it must be 0..%d", depth, n, maxd)
	}
	lp := &lazyPlan{n: n, cached: -1}
	for _, t := range p.Tasks {
		f := lazyFrame{first: lp.tasks}
		copy(f.key[:], []uint8{uint8(t.Prefix[0]), uint8(t.Prefix[1]), uint8(t.Prefix[2])})
		bd, extra := lp.frameBoard(f.key, depth)
		f.extra = uint8(extra)
		count := 0
		p := make([]int, frameDepth+extra)
		bd.prefixes(0, extra, 0, 0, 0, p, func([]int) bool { count++; return count <= MaxLazyTasks })
		if lp.tasks += count; lp.tasks > MaxLazyTasks {
			return Plan{}, fmt.Errorf("depth %d gives more than %d tasks for n=%d: choose a smaller depth", depth, MaxLazyTasks, n)
		}
		if count > 0 {
			lp.frames = append(lp.frames, f)
		}
	}
	return Plan{N: n, Depth: depth, Kind: kind, lazy: lp}, nil
}

// lazyPlan is a plan of depth past frameDepth as its border placements
// (frames), each with the index of its first task: a frame's tasks are
// the placements of its next extra free rows, in the order
// board.prefixes lists them. The prefixes of one frame are cached, so a
// coordinator that leases tasks in order works each frame out once.
type lazyPlan struct {
	n      int
	frames []lazyFrame
	tasks  int

	mu     sync.Mutex
	cached int     // the frame whose tasks cache holds, or -1
	cache  []uint8 // its tasks' extra rows, extra bytes each
}

// lazyFrame is one border placement of a lazy plan.
type lazyFrame struct {
	first int               // index of its first task
	key   [frameDepth]uint8 // the border values
	extra uint8             // free rows its tasks fix beyond the border
}

// frameBoard returns the board of a frame and how many free rows a task
// of a plan of depth fixes in it: never the last free row, which the
// search keeps for the lazily placed queen (as countPlan does).
func (lp *lazyPlan) frameBoard(key [frameDepth]uint8, depth int) (board, int) {
	q, nq, _ := tripleQueens(lp.n, int(key[0]), int(key[1]), int(key[2]))
	var bd board
	bd.init(lp.n, frame{queens: q, nq: nq})
	return bd, max(0, min(depth-frameDepth, bd.k-1))
}

// frameOf returns the frame that holds task i.
func (lp *lazyPlan) frameOf(i int) int {
	return sort.Search(len(lp.frames), func(f int) bool { return lp.frames[f].first > i }) - 1
}

// prefix works out task i's prefix.
func (lp *lazyPlan) prefix(i int) []int {
	fi := lp.frameOf(i)
	f := lp.frames[fi]
	p := make([]int, frameDepth+int(f.extra))
	for j, v := range f.key {
		p[j] = int(v)
	}
	lp.mu.Lock()
	defer lp.mu.Unlock()
	if lp.cached != fi {
		lp.expand(fi)
	}
	at := (i - f.first) * int(f.extra)
	for j, v := range lp.cache[at : at+int(f.extra)] {
		p[frameDepth+j] = int(v)
	}
	return p
}

// expand fills the cache with frame fi's tasks.
func (lp *lazyPlan) expand(fi int) {
	f := lp.frames[fi]
	bd, _ := lp.frameBoard(f.key, frameDepth+int(f.extra))
	lp.cache = lp.cache[:0]
	scratch := make([]int, frameDepth+int(f.extra))
	bd.prefixes(0, int(f.extra), 0, 0, 0, scratch, func(p []int) bool {
		for _, v := range p[frameDepth:] {
			lp.cache = append(lp.cache, uint8(v))
		}
		return true
	})
	lp.cached = fi
}

// Len returns the number of tasks of the plan.
func (p Plan) Len() int {
	if p.lazy != nil {
		return p.lazy.tasks
	}
	return len(p.Tasks)
}

// Prefix returns task i's prefix (0 <= i < Len()). The caller must not
// modify it: for a plan that holds its Tasks it is the task's own.
func (p Plan) Prefix(i int) []int {
	if p.lazy != nil {
		return p.lazy.prefix(i)
	}
	return p.Tasks[i].Prefix
}

// leading returns the first value of task i's prefix, or -1 for the
// empty prefix of a depth-0 plan, without working the prefix out.
func (p Plan) leading(i int) int {
	if p.lazy != nil {
		return int(p.lazy.frames[p.lazy.frameOf(i)].key[0])
	}
	if len(p.Tasks[i].Prefix) == 0 {
		return -1
	}
	return p.Tasks[i].Prefix[0]
}

// LeadingStarts returns the index of the first task of each run of tasks
// with the same first value (leading), in order. A plan lists its tasks in the
// order of their prefixes, so each first value (and the empty prefix)
// makes one run.
func (p Plan) LeadingStarts() []int {
	var starts []int
	last := -2
	add := func(first, lead int) {
		if lead != last {
			starts, last = append(starts, first), lead
		}
	}
	if p.lazy != nil {
		for _, f := range p.lazy.frames {
			add(f.first, int(f.key[0]))
		}
		return starts
	}
	for i := range p.Tasks {
		add(i, p.leading(i))
	}
	return starts
}

// Prefixes calls yield with the index and prefix of each of the count
// tasks from first (clipped to the plan), in order, until yield returns
// false. The prefix is valid only during the call. A lazy plan's frames
// are worked out here, not in the shared cache, so the slots of a worker
// that run leases of several tasks each (a run) do not evict each other's
// frame.
func (p Plan) Prefixes(first, count int, yield func(i int, prefix []int) bool) {
	first = max(first, 0)
	end := min(first+max(count, 0), p.Len())
	if p.lazy == nil {
		for i := first; i < end; i++ {
			if !yield(i, p.Tasks[i].Prefix) {
				return
			}
		}
		return
	}
	lp := p.lazy
	for fi := lp.frameOf(first); first < end; fi++ {
		f := lp.frames[fi]
		bd, _ := lp.frameBoard(f.key, frameDepth+int(f.extra))
		scratch := make([]int, frameDepth+int(f.extra))
		for j, v := range f.key {
			scratch[j] = int(v)
		}
		i, stopped := f.first, false
		bd.prefixes(0, int(f.extra), 0, 0, 0, scratch, func(pr []int) bool {
			if i >= end {
				return false
			}
			if i >= first {
				if !yield(i, pr) {
					stopped = true
					return false
				}
				first = i + 1
			}
			i++
			return true
		})
		if stopped {
			return
		}
	}
}
