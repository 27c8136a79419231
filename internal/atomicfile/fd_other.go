//go:build !unix

package atomicfile

import (
	"fmt"
	"os"
)

// openDescriptor opens path, which names descriptor fd: without dup, the
// system's own device for it.
func openDescriptor(fd int, path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return nil, fmt.Errorf("write %s: descriptor %d: %w", path, fd, unwrapPath(err))
	}
	return f, nil
}
