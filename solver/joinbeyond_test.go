//go:build linux

package solver

import (
	"errors"
	"flag"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The lean join beyond joinMaxN, measured by hand (docs/engine.md): no
// count there is known, so this reports time and memory, not totals.
var (
	beyondN       = flag.Int("beyond-n", 0, "TestJoinBeyond: a board 22..24 to plan with lean tables (0: skip)")
	beyondRowSets = flag.Int("beyond-rowsets", 30, "TestJoinBeyond: row sets of each unit to count before stopping")
)

// TestJoinBeyond plans -beyond-n with lean tables and counts the first
// -beyond-rowsets row sets of units 1 and 100 on one goroutine, logging
// the plan's and each unit's CPU time and the process's peak RSS.
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
	for _, unit := range []int{1, 100} {
		cpu0 = cpuTime()
		stop, asked := stopAfter(*beyondRowSets)
		_, err := jc.CountStop(unit, stop)
		if err != nil && !errors.Is(err, ErrStopped) {
			t.Fatal(err)
		}
		t.Logf("unit %d: %d row sets asked, %.1f s of CPU, peak RSS %s", unit, *asked, (cpuTime() - cpu0).Seconds(), peakRSS())
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
