package worker

// SetSolverVersion makes workers announce solver version v when they join,
// until the returned function restores the real one. Tests that use it
// must not run in parallel with other worker tests.
func SetSolverVersion(v uint32) (restore func()) {
	old := solverVersion
	solverVersion = v
	return func() { solverVersion = old }
}
