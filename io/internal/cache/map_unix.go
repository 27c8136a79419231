//go:build unix

package cache

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// mapCacheFile maps the whole file read-only. Small files (shorter than a
// header, including empty ones, which cannot be mapped) are read instead.
func mapCacheFile(path string) (mem []byte, unmap func() error, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("%s: a binary cache must be a regular file", path)
	}
	size := st.Size()
	if size < cacheHeaderSize {
		mem, err := os.ReadFile(path)
		return mem, func() error { return nil }, err
	}
	if int64(int(size)) != size {
		return nil, nil, fmt.Errorf("%s: cache of %d bytes is too large to map on this platform", path, size)
	}
	// The whole file is checksummed right away, so ask the kernel to
	// populate the page tables up front (Linux) instead of faulting per page.
	mem, err = unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_SHARED|mapPopulate)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: mmap: %w", path, err)
	}
	return mem, func() error { return unix.Munmap(mem) }, nil
}
