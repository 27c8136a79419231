//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package dataio

import (
	"fmt"
	"io"
	"math"
	"os"
)

// mapFile reads the file into memory on systems without the mmap path.
func mapFile(f *os.File, size int64) (data []byte, release func(), err error) {
	if size <= 0 || size > math.MaxInt {
		return nil, nil, fmt.Errorf("cannot read %d bytes into memory", size)
	}
	data = make([]byte, size)
	if _, err := io.ReadFull(io.NewSectionReader(f, 0, size), data); err != nil {
		return nil, nil, err
	}
	return data, func() {}, nil
}

func allocBlock(n int) []byte { return make([]byte, n) }

func freeBlock(b []byte) {}
