//go:build !unix

package cache

import "os"

// mapCacheFile reads the whole file: this platform has no mmap here, so the
// dataset's slices point into (or are decoded from) a heap copy.
func mapCacheFile(path string) (mem []byte, unmap func() error, err error) {
	mem, err = os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	return mem, func() error { return nil }, nil
}
