package sched

import (
	"container/heap"
	"fmt"
	"iter"
	"time"

	"github.com/nqueens/nqueens/solver"
)

// Splitting work on demand. A plan's tasks are only where the
// job starts: whenever a task is too big for the cluster it is split into
// its children (solver.Split), prefixes one value longer that cover
// exactly what it covers. A split task is never leased or counted again;
// its children are appended to the task list, numbered from the number of
// tasks before the split, and the journal records the split before any
// child's commit, so a resume that replays the splits in order numbers
// every task as the run did. Three rules split:
//
//   - the queue rule: when fewer than splitPerSlot tasks per attached
//     slot are queued, the largest queued task is split (unless it is
//     estimated at 10 ms or less), so that every slot that joins finds
//     work;
//   - the size rule: a task about to be leased whose estimated duration
//     (its share of the work, workEstimate, times the measured seconds
//     per share of the tasks committed so far, or boardSeconds' guess
//     before) exceeds TaskTarget is split instead, so no task of N=27
//     takes hours;
//   - the straggler rule: once nothing is queued and a slot is idle, a
//     counting task leased for longer than TaskTarget is taken back from
//     its worker and split, so no single task holds the end of a run (a
//     run of tasks, runs.go, is taken back and its tasks queued again).
//
// The ready heap serves the shallowest tasks first (largest first, the
// classic rule against a long tail); the plan's fresh tasks, all of the
// plan's depth, come between the retried ones of that depth and the
// deeper children.

// DefaultTaskTarget is the task duration the size and straggler rules aim
// at: long enough that a task's four messages cost nothing beside it,
// short enough that a lost task costs a minute of one core.
const DefaultTaskTarget = time.Minute

// splitPerSlot is how many queued tasks per attached slot the queue rule
// keeps: a few dozen, so that a slot that finishes always finds another
// task without waiting for the queue to be refilled.
const splitPerSlot = 32

// maxTasks bounds the live tasks of a job (store.go): the plan's, and
// those splitting made that are queued, leased or under a split not
// collapsed yet. A live task costs about 60 bytes (its 48-byte record,
// its queue entry, its share of an open split), so 2^25 of them stay
// under 2 GB; the tasks made over a run are not bounded (indices are
// 63-bit). Splitting depth first (the size rule's deep stack) and
// collapsing keep a run far below it: a worker that lies about its
// tasks' durations can make the scheduler split more, never grow it past
// this.
const maxTasks = 1 << 25

// minDurationSamples is how many measured tasks the size rule waits for
// before it trusts their durations over boardSeconds' guess.
const minDurationSamples = 3

// minSplitSeconds is the smallest estimated task the queue rule splits:
// a hundred times what a task costs the coordinator and a worker in
// messages (about 100 µs).
const minSplitSeconds = 0.01

// Split records that task Parent was split into Count children numbered
// First.. (a journal's split record, for a resumed job).
type Split struct {
	Parent, First, Count int
	// Reopen: task Parent's subtree was dropped and Parent queued again
	// as one task (a quarantine, collapse.go); First and Count are 0.
	Reopen bool
}

// Resumed is what a journal gives a resumed job (Config.OpenJournal).
type Resumed struct {
	Journal Journal
	// Results are the journal's committed results in commit order, at
	// most one per task; coordinator.New checks them (Restorable), which
	// reads them more than once, and distrusts the workers it names.
	Results iter.Seq[JournalResult]
	// ReadErr, when set, says after Results were read whether reading
	// them failed (they ended early): the resume must stop.
	ReadErr func() error
	Splits  []Split // in the journal's order
	// Entries, when set, are the journal's splits and results in its
	// order (its results those of Results less the distrusted workers'):
	// a resume replays them instead of Splits then Results, so that
	// collapse keeps its memory to the live tasks at every point.
	Entries iter.Seq[JournalEntry]
}

// JournalEntry is a split (IsSplit) or a result of a journal, in order.
type JournalEntry struct {
	IsSplit bool
	Split   Split
	Result  JournalResult
}

// splitter is the scheduler's record of the splits; guarded by
// scheduler.mu.
type splitter struct {
	on        bool          // the plan's kind splits (pinned plans do not)
	target    time.Duration // TaskTarget
	planTasks int           // the plan's tasks: indices from here on were made by splits
	deepest   int           // the longest prefix of any task
	board     float64       // boardSeconds: the guess before measurements
	max       int           // maxTasks: the live tasks at most
	// minUnits, when MinTasks is set, is the largest share of the work
	// (workEstimate units) a task may have: the plan's units over
	// MinTasks, so that splitting makes at least MinTasks tasks.
	minUnits float64
}

// newSplitter returns the splitter of opt's plan.
func newSplitter(opt Options) splitter {
	sp := splitter{on: opt.Plan.Kind != solver.KindPinned && !opt.NoSplit, target: opt.TaskTarget,
		planTasks: opt.Plan.Len(), deepest: opt.Plan.Depth, board: boardSeconds(opt.Plan.N), max: maxTasks}
	if sp.target <= 0 {
		sp.target = DefaultTaskTarget
	}
	if opt.testMaxTasks > 0 {
		sp.max = opt.testMaxTasks
	}
	if opt.testBoardSeconds > 0 {
		sp.board = opt.testBoardSeconds
	}
	if opt.MinTasks > 0 && sp.on {
		sp.minUnits = float64(sp.planTasks) / float64(opt.MinTasks)
	}
	return sp
}

// prefixLocked returns task idx's prefix, which the caller must not
// modify (the plan's own for a task of a plan that holds its prefixes).
func (s *Scheduler) prefixLocked(idx int) []int {
	if idx < s.sp.planTasks {
		return s.plan.Prefix(idx)
	}
	var rev [solver.MaxN + 1]int
	n := 0
	for idx >= s.sp.planTasks {
		c := s.store.at(idx)
		rev[n] = int(c.value)
		n++
		idx = int(c.parent)
	}
	base := s.plan.Prefix(idx)
	p := append(make([]int, 0, len(base)+n), base...)
	for i := n - 1; i >= 0; i-- {
		p = append(p, rev[i])
	}
	return p
}

// splitLocked splits task idx into its children and queues them; it
// reports false when the task cannot be split (committed, split already,
// at the board's last row, or the task bound reached). A leased task's
// lease is taken back and cancelled on its worker.
func (s *Scheduler) splitLocked(idx int, why string) bool {
	t := s.store.at(idx)
	if !s.sp.on || t.is(taskCommitted) || t.is(taskSplit) || t.is(taskNoSplit) || t.is(taskGone) || s.store.live+solver.MaxN > s.sp.max {
		return false
	}
	prefix := s.prefixLocked(idx)
	kids, err := solver.Split(s.plan.N, prefix)
	if err != nil || kids == nil {
		t.set(taskNoSplit, true)
		return false
	}
	sp := Split{Parent: idx, First: s.store.len(), Count: len(kids)}
	if s.opt.Journal != nil {
		if err := s.opt.Journal.Split(sp); err != nil {
			s.failLocked(fmt.Errorf("journal split of task %d: %w", idx, err))
			return false
		}
	}
	s.applySplitLocked(sp, kids, why == "size")
	if l := s.holder[idx]; l != nil && l.run == 1 { // a run's Result counts it superseded
		l.sess.out.Cancel(l.id, s.taskID(idx), "task split")
		s.takeBackLocked(l, causeSplit, "task split")
	}
	s.log.Debug("task split", "task", idx, "children", len(kids), "depth", len(prefix)+1, "why", why)
	return true
}

// applySplitLocked marks sp.Parent split and queues its children: on the
// deep stack (deep, the size rule's), first child on top, or in the
// ready heap.
func (s *Scheduler) applySplitLocked(sp Split, kids [][]int, deep bool) {
	depth := len(kids[0])
	s.store.at(sp.Parent).set(taskSplit, true)
	s.sp.deepest = max(s.sp.deepest, depth)
	s.stats.Splits++
	s.leaves += len(kids) - 1
	s.open[sp.Parent] = openSplit{first: sp.First, count: uint8(len(kids)), pending: uint8(len(kids))}
	group, weight := s.work.child(sp.Parent, len(kids))
	for _, k := range kids {
		i := s.store.add(taskRec{parent: int64(sp.Parent), value: uint8(k[depth-1]), depth: uint8(depth), group: group, weight: weight})
		if !deep {
			s.requeueLocked(i)
		}
	}
	if deep {
		for i := sp.First + len(kids) - 1; i >= sp.First; i-- {
			s.deep = append(s.deep, i)
			s.store.at(i).set(taskQueued, true)
		}
	}
	if s.opt.Listing != nil {
		s.opt.Listing.Grow(len(kids) - 1)
	}
}

// RestoreSplit replays a journal's split, or reopening (sp.Reopen),
// before any worker joins. The children must be numbered as this run
// would number them.
func (s *Scheduler) RestoreSplit(sp Split) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sp.Reopen {
		return s.restoreReopenLocked(sp.Parent)
	}
	if sp.Parent < 0 || sp.Parent >= s.store.len() || sp.First != s.store.len() || s.store.at(sp.Parent).is(taskSplit) || s.store.at(sp.Parent).is(taskGone) {
		return fmt.Errorf("journal split of task %d (children from %d) does not fit a plan of %d tasks", sp.Parent, sp.First, s.store.len())
	}
	kids, err := solver.Split(s.plan.N, s.prefixLocked(sp.Parent))
	if err != nil || len(kids) != sp.Count {
		return fmt.Errorf("journal split of task %d into %d children does not match this plan (%d children, %v)", sp.Parent, sp.Count, len(kids), err)
	}
	s.applySplitLocked(sp, kids, false)
	return nil
}

// depthLocked returns the length of task idx's prefix as the ready heap
// orders it: the plan's depth for a task of the plan.
func (s *Scheduler) depthLocked(idx int) uint8 {
	if idx < s.sp.planTasks {
		return uint8(s.plan.Depth)
	}
	return s.store.at(idx).depth
}

// leavesLocked is the number of leaf tasks that must be committed: every
// task not split (a collapsed record counting its leaves).
func (s *Scheduler) leavesLocked() int { return s.leaves }

// queuedLocked is the number of tasks waiting for a lease (about: the
// ready heap may still hold tasks committed by a late result).
func (s *Scheduler) queuedLocked() int {
	return s.requeued.Len() + len(s.deep) + s.sp.planTasks - s.next
}

// waitingLocked reports whether any task may be queued: the ready heap,
// the deep stack or the plan's fresh tasks hold one (or a stale entry).
func (s *Scheduler) waitingLocked() bool {
	return s.requeued.Len() > 0 || len(s.deep) > 0 || s.next < s.sp.planTasks
}

// fillLocked applies the queue rule: while fewer than splitPerSlot tasks
// per attached slot are queued, the largest queued task is split.
func (s *Scheduler) fillLocked() {
	if !s.sp.on || s.draining || s.err != nil {
		return
	}
	want := splitPerSlot * s.liveSlots
	for s.queuedLocked() < want {
		idx, _, ok := s.largestQueuedLocked()
		if !ok || !s.worthSplitting(idx) || !s.splitLocked(idx, "queue") {
			return
		}
	}
}

// largestQueuedLocked returns the queued task to serve first, and whether
// it is the ready heap's top (or else the plan's next fresh task).
func (s *Scheduler) largestQueuedLocked() (idx int, top, ok bool) {
	for s.requeued.Len() > 0 {
		it := s.requeued[0]
		if t := s.store.at(it.idx); t.is(taskCommitted) || s.holder[it.idx] != nil || t.is(taskSplit) || t.is(taskGone) {
			heap.Pop(&s.requeued)
			t.set(taskQueued, false)
			continue
		}
		if int(it.depth) <= s.plan.Depth || s.next >= s.sp.planTasks {
			return it.idx, true, true
		}
		break
	}
	for s.next < s.sp.planTasks {
		if t := s.store.at(s.next); !t.is(taskCommitted) && s.holder[s.next] == nil && !t.is(taskSplit) {
			return s.next, false, true
		}
		s.next++
	}
	if s.requeued.Len() > 0 { // deeper tasks, behind the plan's fresh ones
		return s.largestQueuedLocked()
	}
	return 0, false, false
}

// popLocked takes the next task to lease off the queue, splitting the
// ones the size rule finds too big on the way: their children go on the
// deep stack, which is served first, so the rule descends depth first
// and the queue holds a few siblings per level of one path, not a whole
// level of the tree.
func (s *Scheduler) popLocked() (int, bool) {
	for {
		idx, ok := s.nextQueuedLocked()
		if !ok {
			return 0, false
		}
		if s.tooBigLocked(idx) && s.splitLocked(idx, "size") {
			continue
		}
		return idx, true
	}
}

// nextQueuedLocked takes the next queued task off the queue: a retried
// task of the plan's depth, then the deep stack's top, then the plan's
// next fresh task, then the ready heap's deeper tasks.
func (s *Scheduler) nextQueuedLocked() (int, bool) {
	if s.requeued.Len() == 0 || int(s.requeued[0].depth) > s.plan.Depth {
		for len(s.deep) > 0 {
			idx := s.deep[len(s.deep)-1]
			s.deep = s.deep[:len(s.deep)-1]
			t := s.store.at(idx)
			t.set(taskQueued, false)
			if !t.is(taskCommitted) && !t.is(taskSplit) && !t.is(taskGone) && s.holder[idx] == nil {
				return idx, true
			}
		}
	}
	idx, top, ok := s.largestQueuedLocked()
	if !ok {
		return 0, false
	}
	if top {
		heap.Pop(&s.requeued)
		s.store.at(idx).set(taskQueued, false)
	} else {
		s.next++
	}
	return idx, true
}

// readyItem is a queued task in the ready heap.
type readyItem struct {
	depth uint8
	idx   int
}

// readyHeap orders queued tasks shallowest (largest) first, then by index.
type readyHeap []readyItem

func (h readyHeap) Len() int { return len(h) }
func (h readyHeap) Less(i, j int) bool {
	if h[i].depth != h[j].depth {
		return h[i].depth < h[j].depth
	}
	return h[i].idx < h[j].idx
}
func (h readyHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *readyHeap) Push(x any)   { *h = append(*h, x.(readyItem)) }
func (h *readyHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// tooBigLocked applies the size rule to task idx: longer than the
// target, or (MinTasks) a larger share of the board than MinTasks tasks
// of equal shares would have.
func (s *Scheduler) tooBigLocked(idx int) bool {
	if !s.sp.on || s.store.at(idx).is(taskNoSplit) {
		return false
	}
	if s.sp.minUnits > 0 && s.work.weightOf(idx) > s.sp.minUnits {
		return true
	}
	return s.work.seconds(idx, s.sp.board) > s.sp.target.Seconds()
}

// worthSplitting says whether the queue rule may split task idx: not a
// task estimated at minSplitSeconds or less (nor at a quarter of the
// target), whose children would cost more in messages than they save.
func (s *Scheduler) worthSplitting(idx int) bool {
	return s.work.seconds(idx, s.sp.board) > min(minSplitSeconds, s.sp.target.Seconds()/4)
}

// measureLocked records how long a committed task took: the worker's own
// figure, never more than the coordinator saw since it leased the task.
func (s *Scheduler) measureLocked(idx int, l *lease, elapsed time.Duration) {
	if l == nil || elapsed <= 0 {
		return
	}
	elapsed = min(elapsed, s.opt.Clock.Now().Sub(l.start))
	s.work.measure(idx, elapsed.Seconds())
}

// boardSeconds is a guess at the single-core seconds of a whole n-board,
// for the tasks' sizes before any is measured: 1.85e8 nodes at n=16
// (docs/scale.md), times about 0.41·n per row above, at 1.6e8 nodes per
// second. It only needs to tell seconds from hours.
func boardSeconds(n int) float64 {
	nodes := 1.85e8
	for k := 17; k <= n; k++ {
		nodes *= 0.41 * float64(k)
	}
	for k := 16; k > n && k > 1; k-- {
		nodes /= 0.41 * float64(k)
	}
	return nodes / 1.6e8
}

// splitStragglersLocked applies the straggler rule: with nothing queued
// and a slot idle, the counting tasks leased longer than TaskTarget are
// split, the longest-running first, at most one per idle session. It
// reports whether it split any.
func (s *Scheduler) splitStragglersLocked(now time.Time) (split bool) {
	if !s.sp.on || s.opt.Want || s.draining || s.err != nil || s.queuedLocked() > 0 || len(s.hungry) == 0 {
		return false
	}
	for range len(s.hungry) {
		var oldest *lease
		for _, sess := range s.sessions {
			for _, l := range sess.held {
				if !l.verify && !s.store.at(l.task).is(taskNoSplit) && now.Sub(l.start) > s.sp.target && (oldest == nil || longer(l, oldest)) {
					oldest = l
				}
			}
		}
		switch {
		case oldest == nil:
			return split
		case oldest.run > 1: // its tasks go out again one by one, or in short runs
			oldest.sess.out.Cancel(oldest.id, s.taskID(oldest.task), "run taken back to share its tasks")
			s.takeBackLocked(oldest, causeSplit, "run taken back")
		case !s.splitLocked(oldest.task, "straggler"):
			return split
		}
		split = true
	}
	return split
}

// longer reports whether lease a has run longer than b, or as long with
// more tasks.
func longer(a, b *lease) bool {
	return a.start.Before(b.start) || a.start.Equal(b.start) && a.run > b.run
}
