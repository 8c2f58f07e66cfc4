//go:build !race

package solver

// raceOn: the race detector is off (see race_on_test.go).
const raceOn = false
