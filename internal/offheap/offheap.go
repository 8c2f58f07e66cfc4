// Package offheap keeps large arrays of pointer-free records outside the
// Go heap, in a memory map reserved once for the most records they may
// hold. The garbage collector sizes its next cycle at twice the live
// heap, so 10^7 records on the heap (80 MB it never needs to scan, having
// no pointer) would let another 80 MB of garbage pile up before it ran.
// Mapped, the records cost only the pages written so far, appending
// within the reservation never copies them, and the collector paces
// itself on the rest of the heap (flat memory).
package offheap

import (
	"runtime"
	"unsafe"
)

// Make returns n zero records of type T with room to append up to limit
// in all, mapped outside the heap where the system allows it (Linux) and
// unmapped once owner is unreachable; elsewhere, or when the system
// refuses, an ordinary slice. T must hold no pointer (nor string, slice,
// map, channel, function or interface): the collector does not look
// inside the map. The slice must not outlive owner.
func Make[T, O any](owner *O, n, limit int) []T {
	var zero T
	if t, release, ok := mapRecords(max(n, limit), int(unsafe.Sizeof(zero))); ok {
		runtime.AddCleanup(owner, func(release func()) { release() }, release)
		return unsafe.Slice((*T)(t), max(n, limit))[:n]
	}
	return make([]T, n)
}
