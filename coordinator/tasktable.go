package coordinator

import "runtime"

// The task records live outside the Go heap where the system allows it
// (tasktable_linux.go): the garbage collector sizes its next cycle at
// twice the live heap, so 10^7 records on the heap (80 MB that it never
// needs to scan, having no pointer) would let another 80 MB of garbage
// pile up before it ran. In a memory map of their own, reserved once for
// the most records the job may make (maxTasks), the records cost only the
// pages that tasks reached so far, appending never copies them, and the
// collector paces itself on the small heap of sessions and messages.

// newTaskTable returns n zero task records with room to append up to
// limit in all, and unmaps them once owner is unreachable.
func newTaskTable(owner *scheduler, n, limit int) []taskState {
	if t, release, ok := mapTaskTable(max(n, limit)); ok {
		runtime.AddCleanup(owner, func(release func()) { release() }, release)
		return t[:n]
	}
	return make([]taskState, n)
}
