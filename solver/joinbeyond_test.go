//go:build linux

package solver

import (
	"errors"
	"flag"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The lean join beyond joinMaxN, measured by hand (docs/engine.md): no
// count there is known, so this reports time and memory, not totals.
var (
	beyondN       = flag.Int("beyond-n", 0, "TestJoinBeyond: a board 22..24 to plan with lean tables (0: skip)")
	beyondRowSets = flag.Int("beyond-rowsets", 30, "TestJoinBeyond: questions (tables and row sets) of each unit before it stops (0: the whole unit)")
	beyondUnits   = flag.String("beyond-units", "1,100", "TestJoinBeyond: the units to count, comma-separated")
)

// TestJoinBeyond plans -beyond-n with lean tables and counts -beyond-units
// on one goroutine, each until its -beyond-rowsets-th question to stop
// (every table built and row set counted asks one), logging the plan's and
// each unit's CPU time and the process's peak RSS.
//
//	go test ./solver -run TestJoinBeyond -beyond-n 24 -beyond-rowsets 3 -v -timeout 0
func TestJoinBeyond(t *testing.T) {
	if *beyondN == 0 {
		t.Skip("a measurement: -beyond-n N")
	}
	cpu0 := cpuTime()
	p, err := newJoinPlan(*beyondN, DefaultJoinTasks, joinLeanEntries)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("n=%d: plan of %d units, %.1f s of CPU, peak RSS %s", *beyondN, p.NumTasks(), (cpuTime() - cpu0).Seconds(), peakRSS())
	jc := p.NewCounter()
	for f := range strings.SplitSeq(*beyondUnits, ",") {
		unit, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("-beyond-units: %v", err)
		}
		cpu0 = cpuTime()
		stop, asked := stopAfter(*beyondRowSets)
		count, err := jc.CountStop(unit, stop)
		if err != nil && !errors.Is(err, ErrStopped) {
			t.Fatal(err)
		}
		t.Logf("unit %d: %d questions, count %d (%v), %.1f s of CPU, peak RSS %s", unit, *asked, count, err, (cpuTime() - cpu0).Seconds(), peakRSS())
	}
}

// cpuTime is the process's user and system time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// peakRSS is the process's VmHWM line from /proc (Linux), or "unknown".
func peakRSS() string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "unknown"
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}
