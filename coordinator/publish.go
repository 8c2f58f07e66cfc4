package coordinator

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/nqueens/nqueens/internal/packed"
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

// publisher makes the listing from the committed tasks' spill files of
// class representatives: it turns each representative into the solutions
// of its class (or, for --unique, the canonical one), collects them in a
// bucketSort as tasks commit, and once every task is in, writes them to the
// sink in lexicographic order. Memory stays bounded: the bucketSort keeps
// its solutions on disk.
//
// With verification on, a commit may be taken back (a quarantine), so the
// publisher keeps the files aside until final closes (every task committed
// and verified) and sorts them in then.
type publisher struct {
	n, tasks int
	unique   bool            // list the canonical solution of each class only
	final    <-chan struct{} // when not nil: sort nothing in before it closes
	sink     Sink
	sorted   *bucketSort
	block    []byte   // sortIn's read buffer
	images   []byte   // sortIn's classes of one block
	keys     []uint64 // the same, as keys (keyed bucket sorts)

	mu sync.Mutex
	// mu guards queue, taken, writing, written and total.
	queue   map[int]string // committed tasks' spill files not yet sorted in ("" = no solutions)
	taken   int            // tasks taken from queue
	writing bool           // every task is in; the sink is being written
	written uint64
	total   uint64 // solutions to write, once writing
	notify  chan struct{}
}

func newPublisher(dir string, n, tasks int, unique bool, sink Sink, sizes bucketSizes) (*publisher, error) {
	sorted, err := newBucketSortSizes(dir, n, sizes)
	if err != nil {
		return nil, err
	}
	return &publisher{n: n, tasks: tasks, unique: unique, sink: sink, sorted: sorted,
		queue: make(map[int]string), notify: make(chan struct{}, 1)}, nil
}

// add is the scheduler's published hook: it must not block.
func (p *publisher) add(index int, path string) {
	p.mu.Lock()
	p.queue[index] = path
	p.mu.Unlock()
	select {
	case p.notify <- struct{}{}:
	default:
	}
}

// revoke is the scheduler's revoked hook: task index goes back to the
// queue, and its file is dropped. It must not block.
func (p *publisher) revoke(index int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	removeSpill(p.queue[index])
	delete(p.queue, index)
}

// progress reports whether the sink is being written, and how many of how
// many solutions are written.
func (p *publisher) progress() (writing bool, written, total uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.writing, p.written, p.total
}

// run sorts in every task's solutions as it commits, then writes the
// listing, until done or ctx ends.
func (p *publisher) run(ctx context.Context) error {
	if p.final != nil {
		select {
		case <-p.final:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	for {
		p.mu.Lock()
		var queue []string
		for i, path := range p.queue {
			queue = append(queue, path)
			delete(p.queue, i)
		}
		p.taken += len(queue)
		all := p.taken == p.tasks
		p.mu.Unlock()
		for i, path := range queue {
			if err := p.sortIn(path); err != nil {
				for _, rest := range queue[i+1:] {
					removeSpill(rest)
				}
				return err
			}
		}
		if all {
			break
		}
		if p.final != nil {
			return fmt.Errorf("listing: %d of %d tasks published once the job was done", p.taken, p.tasks)
		}
		select {
		case <-p.notify:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	p.mu.Lock()
	p.writing, p.total = true, p.sorted.count()
	p.mu.Unlock()
	progress := func(written uint64) {
		p.mu.Lock()
		p.written = written
		p.mu.Unlock()
	}
	if ns, ok := p.sink.(nibbleSink); ok && p.sorted.keyed {
		return p.sorted.writeSortedKeys(func(keys []uint64) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			return ns.WriteNibbles(keys)
		}, progress)
	}
	return p.sorted.writeSorted(func(sols []byte) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		return p.write(sols)
	}, progress)
}

// sortIn adds the classes of the representatives in one spill file to the
// bucket sort, and removes the file.
func (p *publisher) sortIn(path string) error {
	if path == "" {
		return nil
	}
	defer removeSpill(path)
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	n := p.n
	if p.block == nil {
		p.block = make([]byte, publishBlock/n*n)
		p.images = make([]byte, 0, 8*len(p.block))
	}
	block, sols, keys := p.block, p.images, p.keys[:0]
	for {
		got, err := io.ReadFull(f, block)
		if err == io.EOF {
			return nil
		}
		if err != nil && err != io.ErrUnexpectedEOF {
			return err
		}
		if got%n != 0 {
			return fmt.Errorf("spill file %s ends inside a solution", path)
		}
		if p.sorted.keyed {
			keys = keys[:0]
			for i := 0; i < got; i += n {
				keys = packed.AppendClassKeys(keys, block[i:i+n], p.unique)
			}
			p.keys = keys
			if err := p.sorted.addKeys(keys); err != nil {
				return err
			}
			continue
		}
		sols = sols[:0]
		for i := 0; i < got; i += n {
			sols = solver.AppendClass(sols, block[i:i+n], p.unique)
		}
		if err := p.sorted.add(sols); err != nil {
			return err
		}
	}
}

func removeSpill(path string) {
	if path != "" {
		os.Remove(path)
	}
}

// cleanup removes the spill files and the bucket sort's file (a run that
// ended, well or not).
func (p *publisher) cleanup() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, path := range p.queue {
		removeSpill(path)
		delete(p.queue, i)
	}
	p.sorted.close()
}

// nibbleSink is a Sink that also takes many solutions packed as keys
// (render.Sink.WriteNibbles): the fastest path, for n <= 16.
type nibbleSink interface {
	WriteNibbles(keys []uint64) error
}

// packedSink is a Sink that also takes many packed solutions at once
// (render.Sink): the fast path for listing a whole board.
type packedSink interface {
	WritePacked(sols []byte) error
}

// write hands whole packed solutions to the sink, in order.
func (p *publisher) write(sols []byte) error {
	if ps, ok := p.sink.(packedSink); ok {
		return ps.WritePacked(sols)
	}
	cols := make([]int, p.n)
	for i := 0; i < len(sols); i += p.n {
		packed.Unpack(cols, sols[i:i+p.n])
		if err := p.sink.Write(cols); err != nil {
			return err
		}
	}
	return nil
}
