package coordinator

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/nqueens/nqueens/solver"
)

// publishBlock is how much of a spill file the publisher reads at once:
// large reads, and many solutions per call of a packed sink.
const publishBlock = 256 << 10

// Sink receives the committed solutions of a run, in order. render.Sink
// implements it.
type Sink interface {
	Write(cols []int) error // called once per solution, in order; must not keep cols
	Close(total uint64) error
}

// publisher writes committed tasks' spilled solutions to the sink in task
// index order, as soon as they become contiguous. Memory stays bounded: a
// committed task waiting for an earlier one is a file name, not its
// solutions.
type publisher struct {
	n, tasks int
	sink     Sink
	mirror   []int // the scheduler's mirror pairs (nil: none)

	mu sync.Mutex
	// mu guards files and written.
	files   map[int]string // committed but unpublished tasks: index -> spill file ("" = no solutions)
	written uint64
	notify  chan struct{}
}

func newPublisher(n, tasks int, sink Sink) *publisher {
	return &publisher{n: n, tasks: tasks, sink: sink, files: make(map[int]string), notify: make(chan struct{}, 1)}
}

// add is the scheduler's published hook: it must not block.
func (p *publisher) add(index int, path string) {
	p.mu.Lock()
	p.files[index] = path
	p.mu.Unlock()
	select {
	case p.notify <- struct{}{}:
	default:
	}
}

// run publishes until every task is written or ctx ends.
func (p *publisher) run(ctx context.Context) error {
	cols := make([]int, p.n)
	for next := 0; next < p.tasks; {
		p.mu.Lock()
		path, ok := p.files[next]
		delete(p.files, next)
		p.mu.Unlock()
		if !ok {
			select {
			case <-p.notify:
				continue
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		var err error
		switch m := p.mirrorOf(next); {
		case m < 0:
			err = p.copy(path, cols, true)
		case m > next: // its mirror image is published from the same file later
			err = p.copy(path, cols, false)
		default:
			err = p.copyMirrored(path, cols)
		}
		if err != nil {
			return fmt.Errorf("publish task %d: %w", next, err)
		}
		next++
	}
	return nil
}

func (p *publisher) mirrorOf(i int) int {
	if p.mirror == nil {
		return -1
	}
	return p.mirror[i]
}

// copy streams one spill file to the sink, and removes it when remove.
func (p *publisher) copy(path string, cols []int, remove bool) error {
	if path == "" {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	if remove {
		defer os.Remove(path)
	}
	defer f.Close()
	block := make([]byte, publishBlock/p.n*p.n)
	for {
		got, err := io.ReadFull(f, block)
		if err == io.EOF {
			return nil
		}
		if err != nil && err != io.ErrUnexpectedEOF {
			return err
		}
		if got%p.n != 0 {
			return fmt.Errorf("spill file %s ends inside a solution", path)
		}
		if err := p.write(block[:got], cols); err != nil {
			return err
		}
		p.mu.Lock()
		p.written += uint64(got / p.n)
		p.mu.Unlock()
	}
}

// cleanup removes spill files that were never published (a failed run).
func (p *publisher) cleanup() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, path := range p.files {
		if path != "" {
			os.Remove(path)
		}
		delete(p.files, i)
	}
}

// copyMirrored streams the mirror images of the solutions in a spill file
// (column c -> n-1-c), last first, to the sink, and removes the file. The
// spill file holds the mirror task's solutions in increasing order, so their
// images come out in increasing order too: reflecting the columns reverses
// the lexicographic order. Records are n bytes, so the file is read
// backwards in blocks of whole records.
func (p *publisher) copyMirrored(path string, cols []int) error {
	if path == "" {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer os.Remove(path)
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	n := p.n
	size := st.Size()
	if size%int64(n) != 0 {
		return fmt.Errorf("spill file %s: %d bytes is not a multiple of n=%d", path, size, n)
	}
	block := make([]byte, publishBlock/n*n)
	out := make([]byte, len(block))
	m := byte(n - 1)
	for end := size; end > 0; {
		start := max(end-int64(len(block)), 0)
		buf := block[:end-start]
		if _, err := f.ReadAt(buf, start); err != nil {
			return err
		}
		// Reverse the records and reflect their columns.
		o := out[:len(buf)]
		for i, j := len(buf)-n, 0; i >= 0; i, j = i-n, j+n {
			src, dst := buf[i:i+n], o[j:j+n]
			for r, c := range src {
				dst[r] = m - c
			}
		}
		if err := p.write(o, cols); err != nil {
			return err
		}
		p.mu.Lock()
		p.written += uint64(len(buf) / n)
		p.mu.Unlock()
		end = start
	}
	return nil
}

// packedSink is a Sink that also takes many packed solutions at once
// (render.Sink): the fast path for listing a whole board.
type packedSink interface {
	WritePacked(sols []byte) error
}

// write hands whole packed solutions to the sink, in order.
func (p *publisher) write(sols []byte, cols []int) error {
	if ps, ok := p.sink.(packedSink); ok {
		return ps.WritePacked(sols)
	}
	for i := 0; i < len(sols); i += p.n {
		unpack(cols, sols[i:i+p.n])
		if err := p.sink.Write(cols); err != nil {
			return err
		}
	}
	return nil
}

// mirrorPairs pairs each task of an enumeration plan with the task whose
// prefix is its mirror image (column c -> n-1-c): mirror[i] = j for both
// members of a pair, -1 for a task that is its own image (n=1). Counting
// plans are symmetry-reduced already: nil.
//
// The solutions of the larger task of a pair are exactly the mirror images
// of the smaller one's, so the scheduler leases only the smaller and
// commits both with its result: the larger one's total is the same, its
// fundamental count 0 (each of its solutions has a smaller image, the
// smaller task's), and for a --unique plan it lists nothing. The publisher
// lists the larger one from the smaller one's spill file read backwards.
// Listing N=16 thus searches half the board.
func mirrorPairs(plan solver.Plan) []int {
	if plan.Kind != solver.KindAll && plan.Kind != solver.KindUnique {
		return nil
	}
	index := make(map[string]int, len(plan.Tasks))
	key := make([]byte, 0, solver.MaxN)
	for i, t := range plan.Tasks {
		key = key[:0]
		for _, c := range t.Prefix {
			key = append(key, byte(c))
		}
		index[string(key)] = i
	}
	mirror := make([]int, len(plan.Tasks))
	for i, t := range plan.Tasks {
		key = key[:0]
		for _, c := range t.Prefix {
			key = append(key, byte(plan.N-1-c))
		}
		j, ok := index[string(key)]
		if !ok || j == i {
			j = -1
		}
		mirror[i] = j
	}
	return mirror
}

// isMirrorLocked reports whether task i is the larger of a mirror pair: it
// is never leased. Called under s.mu.
func (s *scheduler) isMirrorLocked(i int) bool {
	return s.mirror != nil && s.mirror[i] >= 0 && s.mirror[i] < i
}

// commitMirrorLocked commits the mirror image of task i, just committed
// with counts c and spill file path, when i is the smaller of a pair (see
// mirrorPairs). Called under s.mu.
func (s *scheduler) commitMirrorLocked(i int, c solver.Counts, path string) {
	if s.mirror == nil || s.mirror[i] <= i {
		return
	}
	j := s.mirror[i]
	t := &s.tasks[j]
	if t.committed {
		return
	}
	mc := solver.Counts{Nodes: c.Nodes} // the same search, mirrored
	if s.plan.Kind == solver.KindAll {
		mc.Total = c.Total
	}
	t.committed, t.counts = true, mc
	s.committed++
	s.solutions += mc.Total
	if s.want && s.published != nil {
		if s.plan.Kind == solver.KindUnique {
			path = ""
		}
		s.published(j, path)
	}
}
