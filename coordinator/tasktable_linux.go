package coordinator

import (
	"syscall"
	"unsafe"
)

// mapTaskTable maps room for limit task records, and reports false when
// the system refuses (the records then go on the heap).
func mapTaskTable(limit int) ([]taskState, func(), bool) {
	size := limit * int(unsafe.Sizeof(taskState{}))
	if limit <= 0 || size/limit != int(unsafe.Sizeof(taskState{})) {
		return nil, nil, false
	}
	b, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE|syscall.MAP_NORESERVE)
	if err != nil {
		return nil, nil, false
	}
	t := unsafe.Slice((*taskState)(unsafe.Pointer(unsafe.SliceData(b))), limit)
	return t, func() { syscall.Munmap(b) }, true
}
