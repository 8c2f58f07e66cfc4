package offheap

import (
	"runtime"
	"testing"
	"unsafe"
)

type record struct {
	a uint32
	b uint8
}

// TestMake: the records start zero, hold what is written, append within
// the reservation without moving, and live outside the Go heap (Linux).
func TestMake(t *testing.T) {
	owner := new(int)
	const n, limit = 1000, 1 << 20
	rs := Make[record](owner, n, limit)
	if len(rs) != n || cap(rs) < limit {
		t.Fatalf("len %d cap %d, want %d and at least %d", len(rs), cap(rs), n, limit)
	}
	for i := range rs {
		if rs[i] != (record{}) {
			t.Fatalf("record %d = %v, want zero", i, rs[i])
		}
		rs[i] = record{a: uint32(i), b: uint8(i)}
	}
	first := unsafe.Pointer(&rs[0])
	for i := n; i < limit; i++ {
		rs = append(rs, record{a: uint32(i)})
	}
	if unsafe.Pointer(&rs[0]) != first || rs[n-1].a != n-1 || rs[limit-1].a != limit-1 {
		t.Errorf("append moved the records or lost them")
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	big := Make[record](owner, 1<<22, 1<<22) // 32 MB
	big[len(big)-1].a = 7
	runtime.ReadMemStats(&after)
	if runtime.GOOS == "linux" && after.HeapAlloc > before.HeapAlloc+(8<<20) {
		t.Errorf("32 MB of records grew the heap by %d MB", (after.HeapAlloc-before.HeapAlloc)>>20)
	}
	runtime.KeepAlive(owner)
}
