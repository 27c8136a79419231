//go:build unix

package main

import (
	"errors"
	"io"
	"os"
	"syscall"
)

// stdoutOpen returns an error when w is the process's standard output and
// that was closed when the process started: the Go runtime then opens
// /dev/null read-write in its place, and what is written there (a model,
// predictions) would vanish with exit status 0. A shell's >/dev/null
// opens it write-only.
func stdoutOpen(w io.Writer) error {
	if w != io.Writer(os.Stdout) {
		return nil
	}
	fl, err := fcntl(1, syscall.F_GETFL)
	if err != nil || fl&syscall.O_ACCMODE != syscall.O_RDWR {
		return nil
	}
	out, err1 := os.Stdout.Stat()
	null, err2 := os.Stat(os.DevNull)
	if err1 == nil && err2 == nil && os.SameFile(out, null) {
		return errors.New("standard output is closed")
	}
	return nil
}

func fcntl(fd, cmd int) (int, error) {
	r, _, e := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), uintptr(cmd), 0)
	if e != 0 {
		return 0, e
	}
	return int(r), nil
}
