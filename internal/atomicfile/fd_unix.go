//go:build unix

package atomicfile

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
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

// openPipe opens the named pipe at name for writing. A blocking open
// waits in the kernel, deaf to ctx, until a process opens it for
// reading; a non-blocking one fails with ENXIO until then, so it is
// retried until a reader comes or ctx is done. The descriptor stays
// non-blocking: the runtime's poller then waits on full pipes, and a
// deadline can end that wait.
func openPipe(ctx context.Context, path, name string) (*os.File, error) {
	wait := time.Millisecond
	for {
		fd, err := syscall.Open(name, syscall.O_WRONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
		if err == nil {
			return os.NewFile(uintptr(fd), name), nil
		}
		if !errors.Is(err, syscall.ENXIO) && !errors.Is(err, syscall.EINTR) {
			return nil, fmt.Errorf("write %s: %w", path, err)
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("write %s: no process opened the named pipe for reading before the interruption: %w", path, context.Cause(ctx))
		case <-time.After(wait):
		}
		wait = min(2*wait, 50*time.Millisecond)
	}
}

// keepOwner gives f the owner and group of the file it replaces, as
// writing that file in place would have kept them. Only root may give a
// file away, and anyone may keep their own: a failure is no error.
func keepOwner(f *os.File, t target) {
	if t.owner == nil {
		return
	}
	st, ok := t.owner.Sys().(*syscall.Stat_t)
	if !ok || (int(st.Uid) == os.Geteuid() && int(st.Gid) == os.Getegid()) {
		return
	}
	f.Chown(int(st.Uid), int(st.Gid))
}
