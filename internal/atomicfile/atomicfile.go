// Package atomicfile writes files so that readers see either the old
// content or the complete new content, never a partial file, even if the
// process or the machine dies midway.
//
// # Temporary files
//
// The new content goes to a temporary file in the target's folder, named
// ".BASE.tmp" followed by random digits (hidden, and on the same file
// system, so that the final rename is atomic). Every error path removes
// it. A process that is killed outright (SIGKILL, the OOM killer, a power
// cut) between creating it and the rename cannot: the target is then intact
// (old or new content) and the stray file is garbage that may be deleted;
// IsTemp recognises its name. Nothing deletes such files automatically,
// since another process may be writing the same target at that moment.
//
// # Targets that are not regular files
//
// A character device or a named pipe at the path (/dev/null, /dev/full,
// /dev/stdout, a FIFO; also behind a symbolic link) is not replaced:
// renaming a regular file over it would, for root, destroy the device node.
// Write writes to it directly instead, without a temporary file, as to any
// stream; WriteFile, whose fill may seek, refuses it. Block devices,
// sockets and other special files are refused by both.
package atomicfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Write replaces the file at path with what fill writes.
//
// fill writes into a buffered writer on a temporary file created in the
// same folder (see the package comment). Write then flushes the buffer,
// fsyncs and closes the file, gives it the permissions of the file it
// replaces (0644 for a new file), renames it over path and fsyncs the
// folder so that the rename itself is durable. If path is a symbolic link
// to a regular file, the link is replaced by a regular file. A character
// device or named pipe at path is written directly.
//
// If anything fails, including fill returning an error or panicking, the
// temporary file is removed, the old file at path is left untouched, and
// the returned error names path (never the temporary file).
func Write(path string, fill func(w *bufio.Writer) error) error {
	return write(path, true, func(f *os.File) error {
		w := bufio.NewWriterSize(newWriter(f), 256<<10)
		if err := fill(w); err != nil {
			return err
		}
		return w.Flush()
	})
}

// WriteFile is Write for writers that need the file itself, to seek or
// to write at offsets (WriteAt); the file starts empty at offset 0. The
// target must be a regular file or not exist yet.
func WriteFile(path string, fill func(f *os.File) error) error {
	return write(path, false, fill)
}

// Check returns the error Write would give for path before fill is
// called: a missing folder, a path that names a folder, a folder where
// files cannot be created. It creates and removes a temporary file to
// find out. Commands call it before long work whose result goes to path.
func Check(path string) error { return check(path, true) }

// CheckFile is Check for WriteFile.
func CheckFile(path string) error { return check(path, false) }

// IsTemp reports whether name (a base name, as os.ReadDir lists it) is a
// temporary file of this package (or of a writer that follows its naming,
// such as the cache writers), and for which target base name.
func IsTemp(name string) (target string, ok bool) {
	if !strings.HasPrefix(name, ".") {
		return "", false
	}
	i := strings.LastIndex(name, ".tmp")
	if i <= 1 {
		return "", false
	}
	return name[1:i], true
}

// newWriter is what the buffered writer of Write writes to; tests
// replace it to inject write errors (a full disk).
var newWriter = func(f *os.File) io.Writer { return fileWriter{f} }

// fileWriter drops the *PathError wrapper of write errors, which names
// the temporary file: messages name the target only.
type fileWriter struct{ f *os.File }

func (w fileWriter) Write(b []byte) (int, error) {
	n, err := w.f.Write(b)
	return n, unwrapPath(err)
}

// target is what a path refers to.
type target struct {
	dir, base string
	perm      fs.FileMode
	direct    bool // a stream (character device, named pipe): write in place
}

// inspect checks path and returns what Write needs to know about it.
func inspect(path string, streams bool) (t target, err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	if base == "" || base == "." || base == ".." {
		return t, fmt.Errorf("write %s: not a file name", path)
	}
	t = target{dir: dir, base: base, perm: 0o644}
	fi, err := os.Stat(path) // follows links: what the data would go to
	if err != nil {
		// Nothing there, a dangling link (replaced like a file), or a
		// folder that cannot be searched or is not one: creating the
		// temporary file finds out and says which.
		return t, nil
	}
	m := fi.Mode()
	switch {
	case m.IsDir():
		return t, fmt.Errorf("write %s: is a directory", path)
	case m.IsRegular():
		t.perm = m.Perm()
	case m&fs.ModeCharDevice != 0 || m&fs.ModeNamedPipe != 0:
		if !streams {
			return t, fmt.Errorf("write %s: is a %s, not a regular file", path, kindOf(m))
		}
		t.direct = true
	default:
		return t, fmt.Errorf("write %s: is a %s, not a regular file", path, kindOf(m))
	}
	return t, nil
}

func kindOf(m fs.FileMode) string {
	switch {
	case m&fs.ModeCharDevice != 0:
		return "character device"
	case m&fs.ModeDevice != 0:
		return "block device"
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeSocket != 0:
		return "socket"
	}
	return "special file"
}

// createTemp creates the temporary file for path in t.dir.
func createTemp(path string, t target) (*os.File, error) {
	f, err := os.CreateTemp(t.dir, "."+t.base+".tmp*")
	if err == nil {
		return f, nil
	}
	dir := filepath.Clean(t.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("write %s: folder %s does not exist", path, dir)
	}
	if st, serr := os.Stat(dir); serr == nil && !st.IsDir() {
		return nil, fmt.Errorf("write %s: %s is not a folder", path, dir)
	}
	return nil, fmt.Errorf("write %s: cannot create a file in folder %s: %w", path, dir, unwrapPath(err))
}

func check(path string, streams bool) error {
	t, err := inspect(path, streams)
	if err != nil || t.direct {
		return err
	}
	f, err := createTemp(path, t)
	if err != nil {
		return err
	}
	f.Close()
	os.Remove(f.Name())
	return nil
}

func write(path string, streams bool, fill func(f *os.File) error) (err error) {
	t, err := inspect(path, streams)
	if err != nil {
		return err
	}
	if t.direct {
		return writeDirect(path, fill)
	}
	f, err := createTemp(path, t)
	if err != nil {
		return err
	}
	tmp := f.Name()
	done := false
	defer func() {
		if !done { // error or panic: leave no trace
			f.Close()
			os.Remove(tmp)
		}
	}()

	if err := fill(f); err != nil {
		return fmt.Errorf("write %s: %w", path, dropName(err, tmp))
	}
	if err := f.Chmod(t.perm); err != nil {
		return fmt.Errorf("write %s: %w", path, unwrapPath(err))
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("write %s: fsync: %w", path, unwrapPath(err))
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, unwrapPath(err))
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write %s: %w", path, unwrapPath(err))
	}
	done = true
	if err := syncDir(t.dir); err != nil {
		return fmt.Errorf("write %s: fsync of folder %s: %w", path, filepath.Clean(t.dir), unwrapPath(err))
	}
	return nil
}

// writeDirect writes to a character device or named pipe in place.
func writeDirect(path string, fill func(f *os.File) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, unwrapPath(err))
	}
	if err := fill(f); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, dropName(err, path))
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, unwrapPath(err))
	}
	return nil
}

// syncDir makes a rename in dir durable. File systems (and systems) that
// cannot fsync a folder are not an error: there is nothing more to do.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return nil // e.g. Windows, where folders cannot be opened like this
	}
	defer d.Close()
	err = d.Sync()
	if err == nil || errors.Is(err, syscall.EINVAL) || errors.Is(err, errors.ErrUnsupported) {
		return nil
	}
	return err
}

// dropName removes a *PathError wrapper at the top of err when it names
// name (the temporary file, or a stream written in place): the message
// names the target once. Errors of fill about other files keep theirs.
func dropName(err error, name string) error {
	if pe, ok := err.(*fs.PathError); ok && pe.Path == name {
		return pe.Err
	}
	return err
}

// unwrapPath drops the *PathError wrapper (which names the temporary
// file) so that messages name the target only.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}
