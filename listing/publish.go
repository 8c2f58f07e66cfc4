package listing

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"

	"github.com/nqueens/nqueens/internal/packed"
	"github.com/nqueens/nqueens/solver"
)

// publishBlock is how much of a spill file the publisher reads at once:
// large reads, and many solutions per call of a packed sink.
const publishBlock = 256 << 10

// DefaultMaxOpen is Options.MaxOpen's default: the spill files open at
// once in all spools of a job. Each is a file descriptor; the coordinator
// also holds one a connection (up to 4352, coordinator.maxConnections) and
// Go raises the soft descriptor limit to the hard one, which containers
// set to 20,000 or more (this VM: 20,000; Docker: 1,048,576). 1024 keeps
// spills under a fifth of the smallest of those with every connection
// open, and is more than the streaming leases of any cluster that can
// finish a listing (one a worker slot: N=17 streams 12 M representatives).
const DefaultMaxOpen = 1024

// DefaultMaxAbandoned is Options.MaxAbandoned's default: the attempts with
// a spill file that one spool (one worker session) may abandon (discard
// without a Result: a lease released, expired, rejected or cancelled)
// before Open refuses it. A correct worker abandons an attempt only when
// one of its leases expires (it stalled for a whole lease; each such lease
// also counts toward the task's retry cap) or when it stops, and then it
// releases once the leases it holds and opens no more. A session that
// keeps streaming and abandoning makes the coordinator create, write and
// remove a file each time for nothing: after 256 it is cut
// off.
const DefaultMaxAbandoned = 256

// Options configure a Publisher.
type Options struct {
	// Dir holds the spill files and the bucket sort's file: a folder of
	// the job's own, which the caller creates and removes.
	Dir string
	// N is the board size, Tasks the number of tasks of the plan: the
	// listing is written once that many tasks are added.
	N, Tasks int
	// Unique lists the canonical solution of each class only.
	Unique bool
	// AsIs adds the spilled solutions as they are, without making their
	// classes: for listings whose workers stream every solution (the
	// completions of pinned queens). Unique is then ignored.
	AsIs bool
	// Sink receives the listing, in lexicographic order. If it is also a
	// NibbleSink or a PackedSink, the faster method is used.
	Sink Sink
	// Final, when not nil, holds back the sorting until it is closed: with
	// verification on, a commit may be revoked until every task is
	// committed and verified.
	Final <-chan struct{}
	// MaxOpen caps the spill files open at once in all spools
	// (DefaultMaxOpen when 0); Open beyond it fails with ErrOverBudget.
	MaxOpen int
	// MaxAbandoned caps the attempts one spool may abandon
	// (DefaultMaxAbandoned when 0); Open beyond it fails with
	// ErrOverBudget.
	MaxAbandoned int
	// Records makes the bucket sort keep n-byte records even for
	// n <= packed.MaxKeyN: tests use it to run the path of the larger
	// boards on boards small enough to list.
	Records bool

	sizes *bucketSizes // tests: tiny buckets (nil: defaultBucketSizes)
}

// Progress says how far the listing is written.
type Progress struct {
	Writing bool   // every task is in; the sink is being written
	Written uint64 // solutions written so far
	Total   uint64 // solutions to write, once Writing
}

// Publisher makes the listing from the committed tasks' spill files of
// class representatives: it turns each representative into the solutions
// of its class (or, with Unique, the canonical one), collects them in a
// bucketSort as tasks are added, and once every task is in, writes them to
// the sink in lexicographic order. Memory stays bounded: the bucketSort
// keeps its solutions on disk.
//
// With Options.Final set, a commit may be taken back (Revoke), so the
// publisher keeps the files aside until Final closes and sorts them in
// then.
//
// Add, Revoke, Progress, Spool and Close are safe for concurrent use; Run
// is called once.
type Publisher struct {
	opts    Options
	n       int
	sorted  *bucketSort
	block   []byte   // sortIn's read buffer
	images  []byte   // sortIn's classes of one block
	keys    []uint64 // the same, as keys (keyed bucket sorts)
	maxOpen int64
	open    atomic.Int64 // spill files open in all spools

	mu sync.Mutex
	// mu guards queue, taken, writing, written, total and closed.
	queue   map[int]string // committed tasks' spill files not yet sorted in ("" = no solutions)
	taken   int            // tasks taken from queue
	writing bool           // every task is in; the sink is being written
	written uint64
	total   uint64 // solutions to write, once writing
	closed  bool
	notify  chan struct{}
}

// New returns a Publisher for the listing opts describe; its bucket sort's
// file is created in opts.Dir.
func New(opts Options) (*Publisher, error) {
	if opts.Sink == nil {
		return nil, errors.New("listing: no sink")
	}
	if opts.Tasks < 0 {
		return nil, fmt.Errorf("listing: %d tasks", opts.Tasks)
	}
	sizes := defaultBucketSizes
	if opts.sizes != nil {
		sizes = *opts.sizes
	}
	sizes.records = opts.Records
	sorted, err := newBucketSortSizes(opts.Dir, opts.N, sizes)
	if err != nil {
		return nil, err
	}
	if opts.MaxOpen <= 0 {
		opts.MaxOpen = DefaultMaxOpen
	}
	if opts.MaxAbandoned <= 0 {
		opts.MaxAbandoned = DefaultMaxAbandoned
	}
	return &Publisher{opts: opts, n: opts.N, sorted: sorted, maxOpen: int64(opts.MaxOpen),
		queue: make(map[int]string), notify: make(chan struct{}, 1)}, nil
}

// Add hands the publisher the spill file of committed task index: the path
// that Attempt.Close returned ("" when the task has no solutions). The
// publisher owns the file from then on. Add does not block (the scheduler
// calls it under its lock).
func (p *Publisher) Add(index int, path string) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		removeSpill(path)
		return
	}
	p.queue[index] = path
	p.mu.Unlock()
	select {
	case p.notify <- struct{}{}:
	default:
	}
}

// Grow adds tasks to the number the listing waits for: a task split
// into k children adds k-1 (the coordinator numbers the children after
// the plan's tasks). It does not block.
func (p *Publisher) Grow(tasks int) {
	p.mu.Lock()
	p.opts.Tasks += tasks
	p.mu.Unlock()
	select {
	case p.notify <- struct{}{}:
	default:
	}
}

// Revoke takes back task index, added before and not yet sorted in (see
// Options.Final): its file is removed. It does not block.
func (p *Publisher) Revoke(index int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	removeSpill(p.queue[index])
	delete(p.queue, index)
}

// Progress reports how far the listing is written.
func (p *Publisher) Progress() Progress {
	p.mu.Lock()
	defer p.mu.Unlock()
	return Progress{Writing: p.writing, Written: p.written, Total: p.total}
}

// Run sorts in every task's solutions as it is added, then writes the
// listing to the sink (without closing it), until done or ctx ends. Every
// goroutine it starts has ended when it returns.
func (p *Publisher) Run(ctx context.Context) error {
	if p.opts.Final != nil {
		select {
		case <-p.opts.Final:
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
		all, tasks := p.taken == p.opts.Tasks, p.opts.Tasks
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
		if p.opts.Final != nil {
			return fmt.Errorf("listing: %d of %d tasks published once the job was done", p.taken, tasks)
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
	if ns, ok := p.opts.Sink.(NibbleSink); ok && p.sorted.keyed {
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
func (p *Publisher) sortIn(path string) error {
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
				if p.opts.AsIs {
					keys = append(keys, packed.Key(block[i:i+n]))
					continue
				}
				keys = packed.AppendClassKeys(keys, block[i:i+n], p.opts.Unique)
			}
			p.keys = keys
			if err := p.sorted.addKeys(keys); err != nil {
				return err
			}
			continue
		}
		sols = sols[:0]
		for i := 0; i < got && p.opts.AsIs; i += n {
			sols = append(sols, block[i:i+n]...)
		}
		for i := 0; i < got && !p.opts.AsIs; i += n {
			sols = solver.AppendClass(sols, block[i:i+n], p.opts.Unique)
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

// Close removes the spill files added and not sorted in, and the bucket
// sort's file (a run that ended, well or not); files added later are
// removed at once. Call it after Run has returned. The spools' attempts
// are their own: their sessions close them.
func (p *Publisher) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	for i, path := range p.queue {
		removeSpill(path)
		delete(p.queue, i)
	}
	return p.sorted.close()
}

// write hands whole packed solutions to the sink, in order.
func (p *Publisher) write(sols []byte) error {
	if ps, ok := p.opts.Sink.(PackedSink); ok {
		return ps.WritePacked(sols)
	}
	cols := make([]int, p.n)
	for i := 0; i < len(sols); i += p.n {
		packed.Unpack(cols, sols[i:i+p.n])
		if err := p.opts.Sink.Write(cols); err != nil {
			return err
		}
	}
	return nil
}
