//go:build race

package solver

// raceOn: the race detector is on; its instrumentation allocates, so the
// tests that count allocations skip.
const raceOn = true
