package kernel

import (
	"syscall"
	"unsafe"
)

// threadCPU returns the CPU time of the calling OS thread in seconds, for
// the benchmarks' cpu-nnz/s metric, which unlike ns/op does not count time
// the thread spent descheduled on a shared machine. The caller must hold
// runtime.LockOSThread.
func threadCPU() (float64, bool) {
	var ts syscall.Timespec
	const clockThreadCPUTimeID = 3
	_, _, e := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTimeID, uintptr(unsafe.Pointer(&ts)), 0)
	return float64(ts.Sec) + 1e-9*float64(ts.Nsec), e == 0
}
