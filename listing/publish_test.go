package listing

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"
	"testing"

	"github.com/nqueens/nqueens/internal/leaktest"
	"github.com/nqueens/nqueens/internal/packed"
	"github.com/nqueens/nqueens/solver"
)

// memSink is a Sink that keeps what it is given, one line a solution, and
// takes keys or packed solutions when told to.
type memSink struct {
	buf    bytes.Buffer
	closed bool
}

func (m *memSink) Write(cols []int) error {
	fmt.Fprintln(&m.buf, cols)
	return nil
}

func (m *memSink) Close(uint64) error { m.closed = true; return nil }

type keySink struct{ memSink }

func (k *keySink) WriteNibbles(keys []uint64) error {
	for _, key := range keys {
		cols := make([]int, 16)
		packed.KeyCols(key, cols)
		// The sink knows n from its first line; tests use n=10.
		k.Write(cols[:10])
	}
	return nil
}

type packedSink struct {
	memSink
	n int
}

func (p *packedSink) WritePacked(sols []byte) error {
	cols := make([]int, p.n)
	for i := 0; i < len(sols); i += p.n {
		packed.Unpack(cols, sols[i:i+p.n])
		p.Write(cols)
	}
	return nil
}

// wantListing is the sequential backtracker's listing in memSink's form.
// newTestSink returns a sink of kind plain (Write), keys (WriteNibbles)
// or packed (WritePacked) for n-boards, and the buffer it writes the
// cols text into.
func newTestSink(kind string, n int) (Sink, *bytes.Buffer) {
	switch kind {
	case "keys":
		s := &keySink{}
		return s, &s.buf
	case "packed":
		s := &packedSink{n: n}
		return s, &s.buf
	}
	s := &memSink{}
	return s, &s.buf
}

func wantListing(n int, unique bool) string {
	var buf bytes.Buffer
	seq := solver.Solutions(n, nil)
	if unique {
		seq = solver.UniqueSolutions(n, nil)
	}
	for cols := range seq {
		fmt.Fprintln(&buf, cols)
	}
	return buf.String()
}

// publish runs a Publisher over the plan of n at depth 3 as the
// coordinator does: each task's representatives stream into an attempt of
// one of two spools, in batches, and the tasks are added in reverse order.
func publish(t *testing.T, n int, opts Options) {
	t.Helper()
	plan, err := solver.NewPlan(n, 3, solver.KindCount)
	if err != nil {
		t.Fatal(err)
	}
	opts.Dir, opts.N, opts.Tasks = t.TempDir(), n, len(plan.Tasks)
	p, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	spools := []*Spool{p.Spool(), p.Spool()}
	for i := len(plan.Tasks) - 1; i >= 0; i-- {
		var reps []byte
		if _, err := solver.ListTask(n, plan.Tasks[i], func(cols []int) bool {
			reps = packed.Append(reps, cols)
			return true
		}); err != nil {
			t.Fatal(err)
		}
		path := ""
		if len(reps) > 0 {
			a, err := spools[i%2].Open(uint64(i), i)
			if err != nil {
				t.Fatal(err)
			}
			for len(reps) > 0 { // batches of up to 5 representatives
				k := min(len(reps), 5*n)
				if err := a.Write(reps[:k]); err != nil {
					t.Fatal(err)
				}
				reps = reps[k:]
			}
			if path, err = a.Close(); err != nil {
				t.Fatal(err)
			}
		}
		p.Add(i, path)
	}
	if got := p.OpenFiles(); got != 0 {
		t.Errorf("OpenFiles() = %d after every attempt closed, want 0", got)
	}
	if err := p.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if pr := p.Progress(); !pr.Writing || pr.Written != pr.Total {
		t.Errorf("Progress() = %+v after Run, want everything written", pr)
	}
}

// TestPublisher: the listing of N=10 from the tasks' representatives, in
// the sequential order, through every kind of sink and both sort paths,
// all solutions and the canonical ones.
func TestPublisher(t *testing.T) {
	leaktest.Check(t)
	for _, unique := range []bool{false, true} {
		want := wantListing(10, unique)
		for _, records := range []bool{false, true} {
			for _, kind := range []string{"plain", "keys", "packed"} {
				t.Run(fmt.Sprintf("unique=%v/records=%v/%s", unique, records, kind), func(t *testing.T) {
					sink, buf := newTestSink(kind, 10)
					publish(t, 10, Options{Sink: sink, Unique: unique, Records: records})
					if got := buf.String(); got != want {
						t.Errorf("listing of %d bytes differs from the sequential one (%d bytes)", len(got), len(want))
					}
				})
			}
		}
	}
}

// TestPublisherRevoke: with Final set nothing is sorted in before it
// closes; a revoked task's file is removed and a new commit replaces it.
func TestPublisherRevoke(t *testing.T) {
	leaktest.Check(t)
	dir := t.TempDir()
	final := make(chan struct{})
	sink := &memSink{}
	p, err := New(Options{Dir: dir, N: 8, Tasks: 1, Sink: sink, Final: final})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	var reps []byte
	solver.ListTask(8, solver.Task{}, func(cols []int) bool { reps = packed.Append(reps, cols); return true })
	spool := p.Spool()
	commit := func(lease uint64, sols []byte) string {
		a, err := spool.Open(lease, 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := a.Write(sols); err != nil {
			t.Fatal(err)
		}
		path, err := a.Close()
		if err != nil {
			t.Fatal(err)
		}
		return path
	}
	lie := commit(1, reps[:8]) // one class only
	p.Add(0, lie)
	p.Revoke(0)
	if _, err := os.Stat(lie); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("revoked spill file: Stat = %v, want it removed", err)
	}
	p.Add(0, commit(2, reps))
	done := make(chan error, 1)
	go func() { done <- p.Run(context.Background()) }()
	close(final)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got, want := sink.buf.String(), wantListing(8, false); got != want {
		t.Errorf("listing after a revoke:\n%s\nwant\n%s", got, want)
	}
}

// TestPublisherDuplicate: the same task's solutions added twice (a lying
// or buggy path) stop the listing with an error rather than listing them
// twice.
func TestPublisherDuplicate(t *testing.T) {
	var reps []byte
	solver.ListTask(6, solver.Task{}, func(cols []int) bool { reps = packed.Append(reps, cols); return true })
	p, err := New(Options{Dir: t.TempDir(), N: 6, Tasks: 1, Sink: &memSink{}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	a, _ := p.Spool().Open(1, 0)
	a.Write(reps)
	a.Write(reps)
	path, _ := a.Close()
	p.Add(0, path)
	if err := p.Run(context.Background()); !errors.Is(err, errDuplicateSolution) {
		t.Errorf("Run with a class added twice = %v, want %v", err, errDuplicateSolution)
	}
}

// TestSpoolBudget: Open refuses beyond MaxOpen files in all spools and
// beyond MaxAbandoned abandoned attempts in one, with ErrOverBudget; a
// closed or discarded attempt frees its file and descriptor at once, and
// End from another goroutine stops a writer with ErrEnded.
func TestSpoolBudget(t *testing.T) {
	dir := t.TempDir()
	p, err := New(Options{Dir: dir, N: 4, Tasks: 1, Sink: &memSink{}, MaxOpen: 3, MaxAbandoned: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	files := func() int {
		entries, _ := os.ReadDir(dir)
		return len(entries) - 1 // the bucket sort's file
	}
	s1, s2 := p.Spool(), p.Spool()
	a1, _ := s1.Open(1, 0)
	a2, _ := s1.Open(2, 0)
	a3, err := s2.Open(3, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s2.Open(4, 0); !errors.Is(err, ErrOverBudget) {
		t.Fatalf("a fourth Open with MaxOpen 3 = %v, want ErrOverBudget", err)
	}
	if p.OpenFiles() != 3 || files() != 3 {
		t.Fatalf("OpenFiles() = %d, %d files; want 3, 3", p.OpenFiles(), files())
	}
	a1.Discard()
	s1.End(2)
	s1.End(99) // a lease it never saw
	if err := a2.Write([]byte{1, 3, 0, 2}); !errors.Is(err, ErrEnded) {
		t.Errorf("Write after End = %v, want ErrEnded", err)
	}
	if _, err := a2.Close(); !errors.Is(err, ErrEnded) {
		t.Errorf("Close after End = %v, want ErrEnded", err)
	}
	if p.OpenFiles() != 1 || files() != 1 {
		t.Fatalf("after Discard and End: OpenFiles() = %d, %d files; want 1, 1", p.OpenFiles(), files())
	}
	if _, err := s1.Open(5, 0); !errors.Is(err, ErrOverBudget) {
		t.Errorf("Open after 2 abandoned with MaxAbandoned 2 = %v, want ErrOverBudget", err)
	}
	a6, err := s2.Open(6, 0) // the other session is within its budget
	if err != nil {
		t.Fatal(err)
	}
	path, err := a3.Close()
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(path)
	// A writer and End racing: the writer sees either success or ErrEnded.
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			if err := a6.Write([]byte{1, 3, 0, 2}); err != nil {
				if !errors.Is(err, ErrEnded) {
					t.Errorf("Write racing End = %v", err)
				}
				return
			}
		}
	})
	s2.End(6)
	wg.Wait()
	s1.Close()
	s2.Close()
	if p.OpenFiles() != 0 || files() != 0 {
		t.Errorf("after Close: OpenFiles() = %d, %d files; want 0, 0", p.OpenFiles(), files())
	}
	if _, err := s2.Open(7, 0); err == nil {
		t.Error("Open on a closed spool succeeded")
	}
}

// TestClassesOfRepresentatives checks the images the publisher makes from
// the streamed representatives against the solver: the classes of every
// representative ListTask yields for N=1..10 are the board's solutions,
// each once, and with unique the canonical ones; keys make the same.
func TestClassesOfRepresentatives(t *testing.T) {
	for _, n := range []int{1, 4, 5, 6, 8, 10} {
		var reps []byte
		c, _ := solver.ListTask(n, solver.Task{}, func(cols []int) bool { reps = packed.Append(reps, cols); return true })
		var all, canon []byte
		var keys, canonKeys []uint64
		for i := 0; i < len(reps); i += n {
			all = solver.AppendClass(all, reps[i:i+n], false)
			canon = solver.AppendClass(canon, reps[i:i+n], true)
			keys = packed.AppendClassKeys(keys, reps[i:i+n], false)
			canonKeys = packed.AppendClassKeys(canonKeys, reps[i:i+n], true)
		}
		for k, key := range keys {
			if want := packed.Key(all[k*n : (k+1)*n]); key != want {
				t.Fatalf("n=%d: key %d = %#x, want %#x", n, k, key, want)
			}
		}
		for k, key := range canonKeys {
			if want := packed.Key(canon[k*n : (k+1)*n]); key != want {
				t.Fatalf("n=%d: unique key %d = %#x, want %#x", n, k, key, want)
			}
		}
		var want, wantCanon [][]byte
		for cols := range solver.Solutions(n, nil) {
			want = append(want, packed.Append(nil, cols))
		}
		for cols := range solver.UniqueSolutions(n, nil) {
			wantCanon = append(wantCanon, packed.Append(nil, cols))
		}
		if got := sortedRecords(all, n); !slices.EqualFunc(got, want, bytes.Equal) || uint64(len(got)) != c.Total {
			t.Errorf("n=%d: the classes hold %d solutions, want the board's %d", n, len(got), len(want))
		}
		if got := sortedRecords(canon, n); !slices.EqualFunc(got, wantCanon, bytes.Equal) || uint64(len(got)) != c.Unique {
			t.Errorf("n=%d: unique made %d solutions, want the %d canonical ones", n, len(got), len(wantCanon))
		}
	}
}

func sortedRecords(sols []byte, n int) [][]byte {
	var out [][]byte
	for i := 0; i < len(sols); i += n {
		out = append(out, sols[i:i+n])
	}
	slices.SortFunc(out, bytes.Compare)
	return out
}
