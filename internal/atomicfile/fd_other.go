//go:build !unix

package atomicfile

import (
	"context"
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

// openPipe opens a named pipe for writing (unix has them; elsewhere this
// is a plain open).
func openPipe(_ context.Context, path, name string) (*os.File, error) {
	f, err := os.OpenFile(name, os.O_WRONLY, 0)
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", path, unwrapPath(err))
	}
	return f, nil
}

// keepOwner does nothing where files have no unix owner.
func keepOwner(*os.File, target) {}
