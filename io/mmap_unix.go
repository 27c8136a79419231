//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package dataio

import (
	"fmt"
	"math"
	"os"

	"golang.org/x/sys/unix"
)

// mapFile maps size bytes of f read-only. The caller must call release
// once it no longer uses data; until then the pages count as the process's
// resident memory, after it they do not.
func mapFile(f *os.File, size int64) (data []byte, release func(), err error) {
	if size <= 0 || size > math.MaxInt {
		return nil, nil, fmt.Errorf("cannot map %d bytes", size)
	}
	data, err = unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, nil, err
	}
	// Hints only: each chunk is read front to back, and the whole file will
	// be needed soon. Errors are harmless.
	_ = unix.Madvise(data, unix.MADV_SEQUENTIAL)
	_ = unix.Madvise(data, unix.MADV_WILLNEED)
	return data, func() { _ = unix.Munmap(data) }, nil
}

// allocBlock returns n bytes of zeroed memory outside the Go heap, so that
// freeBlock hands it back to the OS at once instead of at the next GC.
func allocBlock(n int) []byte {
	b, err := unix.Mmap(-1, 0, n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		return make([]byte, n)
	}
	return b
}

// freeBlock releases memory from allocBlock. Munmap refuses slices it did
// not map (the make fallback above); those are left to the GC.
func freeBlock(b []byte) {
	if cap(b) > 0 {
		_ = unix.Munmap(b[:cap(b)])
	}
}
