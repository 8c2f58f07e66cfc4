package leaktest

import (
	"fmt"
	"strings"
	"testing"
)

// recorder is a test whose cleanups and errors are kept, not run.
type recorder struct {
	testing.TB
	cleanups []func()
	errors   []string
}

func (r *recorder) Helper()                   {}
func (r *recorder) Cleanup(f func())          { r.cleanups = append(r.cleanups, f) }
func (r *recorder) Errorf(f string, a ...any) { r.errors = append(r.errors, fmt.Sprintf(f, a...)) }

func (r *recorder) end() {
	for i := len(r.cleanups) - 1; i >= 0; i-- {
		r.cleanups[i]()
	}
}

// leaky blocks until stop is closed: a goroutine that outlives its test.
func leaky(stop chan struct{}) { <-stop }

// TestCheck: a goroutine that outlives the test is reported with its
// stack; one that ends in time, and the goroutines that were there
// before, are not.
func TestCheck(t *testing.T) {
	wait = 0
	t.Cleanup(func() { wait = Timeout })
	before := make(chan struct{})
	defer close(before)
	go leaky(before) // running before Check: ignored

	r := &recorder{TB: t}
	Check(r)
	stop := make(chan struct{})
	go leaky(stop)
	r.end()
	close(stop)
	if len(r.errors) != 1 || !strings.Contains(r.errors[0], "leaktest.leaky") {
		t.Errorf("a leaked goroutine: errors %q, want one naming leaktest.leaky", r.errors)
	}

	r = &recorder{TB: t}
	Check(r)
	done := make(chan struct{})
	go func() { close(done) }()
	<-done
	r.end()
	if len(r.errors) != 0 {
		t.Errorf("no leak: errors %q, want none", r.errors)
	}
}
