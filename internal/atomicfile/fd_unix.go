//go:build unix

package atomicfile

import (
	"fmt"
	"os"
	"syscall"
)

// openDescriptor returns a duplicate of this process's descriptor fd, so
// that writes share its offset and flags (a shell's >> appends) and
// closing it leaves fd open.
func openDescriptor(fd int, path string) (*os.File, error) {
	d, err := syscall.Dup(fd)
	if err != nil {
		return nil, fmt.Errorf("write %s: descriptor %d: %w", path, fd, err)
	}
	syscall.CloseOnExec(d)
	return os.NewFile(uintptr(d), path), nil
}
