package coordinator

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"sync"
)

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
		if err := p.copy(path, cols); err != nil {
			return fmt.Errorf("publish task %d: %w", next, err)
		}
		next++
	}
	return nil
}

// copy streams one spill file to the sink and removes it.
func (p *publisher) copy(path string, cols []int) error {
	if path == "" {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer os.Remove(path)
	defer f.Close()
	r := bufio.NewReaderSize(f, spillBufferSize)
	sol := make([]byte, p.n)
	for {
		if _, err := io.ReadFull(r, sol); err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
		unpack(cols, sol)
		if err := p.sink.Write(cols); err != nil {
			return err
		}
		p.mu.Lock()
		p.written++
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
