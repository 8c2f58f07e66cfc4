package offheap

import (
	"syscall"
	"unsafe"
)

// mapRecords maps room for limit records of size bytes, untouched pages
// reserving no memory, and reports false when the system refuses.
func mapRecords(limit, size int) (unsafe.Pointer, func(), bool) {
	bytes := limit * size
	if limit <= 0 || size <= 0 || bytes/limit != size {
		return nil, nil, false
	}
	b, err := syscall.Mmap(-1, 0, bytes, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE|syscall.MAP_NORESERVE)
	if err != nil {
		return nil, nil, false
	}
	return unsafe.Pointer(unsafe.SliceData(b)), func() { syscall.Munmap(b) }, true
}
