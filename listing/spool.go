package listing

import (
	"errors"
	"fmt"
	"os"
	"sync"
)

// ErrOverBudget is wrapped by Spool.Open's errors when a spill file would
// exceed a bound: Options.MaxOpen for the job, Options.MaxAbandoned for the
// spool. The coordinator ends the worker's session with ResourceExhausted;
// the job goes on.
var ErrOverBudget = errors.New("over the spill budget")

// ErrEnded is returned by Attempt.Write and Attempt.Close when the attempt
// was discarded meanwhile (Spool.End: its lease ended, say by a Cancel).
var ErrEnded = errors.New("attempt ended")

// Spool holds the attempts of one worker session: one spill file per lease
// that streams solutions, open from the lease's first valid batch until its
// Result (Attempt.Close), or until the lease ends otherwise (Discard, End),
// or the session does (Close). So a session holds a spill file only for a
// live lease: at most its live leases, and at most Options.MaxOpen files in
// all spools together. A Spool's methods are safe for concurrent use: End
// may come from the scheduler while the session's handler writes.
//
// An attempt has no write buffer: each Write is one write(2) of a whole
// validated batch, as large as the worker made it (64 KiB,
// worker.BatchBytes), so an attempt costs a file descriptor and no memory
// beyond its struct, and the spill bytes in memory are bounded by the
// batch being written. On disk an attempt holds at most its task's
// representatives, which the coordinator checks one by one.
type Spool struct {
	p *Publisher

	mu sync.Mutex
	// mu guards the fields below and every attempt's file.
	open      map[uint64]*Attempt // by lease id
	abandoned int                 // attempts with a file discarded without a Result
	closed    bool
}

// Spool returns an empty spool for one worker session.
func (p *Publisher) Spool() *Spool {
	return &Spool{p: p, open: make(map[uint64]*Attempt)}
}

// OpenFiles returns how many spill files are open in all spools.
func (p *Publisher) OpenFiles() int { return int(p.open.Load()) }

// Attempt is the spill file of one lease's representatives.
type Attempt struct {
	s     *Spool
	lease uint64
	f     *os.File // nil once closed or discarded
}

// Open creates the spill file of lease (on its first valid batch). It
// fails with an error wrapping ErrOverBudget when the spool has abandoned
// Options.MaxAbandoned attempts, or Options.MaxOpen files are open in all
// spools; with another error when the file cannot be created.
func (s *Spool) Open(lease uint64, task int) (*Attempt, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.closed:
		return nil, errors.New("listing: spool is closed")
	case s.open[lease] != nil:
		return nil, fmt.Errorf("listing: lease %d has an attempt already", lease)
	case s.abandoned >= s.p.opts.MaxAbandoned:
		return nil, fmt.Errorf("%w: %d attempts streamed and abandoned without a result, at most %d a session", ErrOverBudget, s.abandoned, s.p.opts.MaxAbandoned)
	}
	if !s.p.reserve() {
		return nil, fmt.Errorf("%w: %d spill files open in the job, at most %d", ErrOverBudget, s.p.open.Load(), s.p.maxOpen)
	}
	f, err := os.CreateTemp(s.p.opts.Dir, fmt.Sprintf("task-%d-*.sol", task))
	if err != nil {
		s.p.open.Add(-1)
		return nil, fmt.Errorf("listing: spill file: %w", err)
	}
	a := &Attempt{s: s, lease: lease, f: f}
	s.open[lease] = a
	return a, nil
}

// reserve takes one of the MaxOpen spill files, or reports false.
func (p *Publisher) reserve() bool {
	for {
		n := p.open.Load()
		if n >= p.maxOpen {
			return false
		}
		if p.open.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// End discards the attempt of lease, if any: the lease ended without a
// Result (released, expired, rejected, or committed by another worker). It
// counts as abandoned. It may be called from any goroutine, for leases the
// spool never saw too.
func (s *Spool) End(lease uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if a := s.open[lease]; a != nil {
		a.dropLocked(true)
	}
}

// Close discards every attempt: the session ended. Open fails afterwards.
func (s *Spool) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	for _, a := range s.open {
		a.dropLocked(false)
	}
}

// Write appends sols, a whole validated batch of representatives in the
// Bytes layout, to the attempt's file. It returns ErrEnded when the
// attempt was discarded meanwhile.
func (a *Attempt) Write(sols []byte) error {
	s := a.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if a.f == nil {
		return ErrEnded
	}
	if len(sols) == 0 {
		return nil
	}
	if _, err := a.f.Write(sols); err != nil {
		return fmt.Errorf("listing: spill: %w", err)
	}
	return nil
}

// Discard removes the attempt's file (its batch was rejected): it counts
// as abandoned. It may be called more than once.
func (a *Attempt) Discard() {
	a.s.mu.Lock()
	defer a.s.mu.Unlock()
	a.dropLocked(true)
}

// Close closes the attempt's file (its Result arrived) and returns its
// path for Publisher.Add, or for the caller to remove with os.Remove when
// the result is not committed. It returns ErrEnded when the attempt was
// discarded meanwhile.
func (a *Attempt) Close() (string, error) {
	s := a.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if a.f == nil {
		return "", ErrEnded
	}
	f := a.f
	a.f = nil
	delete(s.open, a.lease)
	s.p.open.Add(-1)
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("listing: spill: %w", err)
	}
	return f.Name(), nil
}

// dropLocked closes and removes the attempt's file, if it is still open.
func (a *Attempt) dropLocked(abandoned bool) {
	if a.f == nil {
		return
	}
	a.f.Close()
	os.Remove(a.f.Name())
	a.f = nil
	delete(a.s.open, a.lease)
	a.s.p.open.Add(-1)
	if abandoned {
		a.s.abandoned++
	}
}
