// Package atomicfile writes files so that readers see either the old
// content or the complete new content, never a partial file, even if the
// process or the machine dies midway.
package atomicfile

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// Write replaces the file at path with what fill writes.
//
// fill writes into a buffered writer on a temporary file created in the
// same folder (named ".BASE.tmp*", so it is hidden and on the same file
// system). Write then flushes the buffer, fsyncs and closes the file,
// gives it the permissions of the file it replaces (0644 for a new file),
// renames it over path and fsyncs the folder so that the rename itself is
// durable. If path is a symbolic link, the link is replaced by a regular
// file.
//
// If anything fails, including fill returning an error or panicking, the
// temporary file is removed, the old file at path is left untouched, and
// the returned error names path.
func Write(path string, fill func(w *bufio.Writer) error) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	if base == "" {
		return fmt.Errorf("write %s: not a file name", path)
	}
	perm := fs.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		if fi.IsDir() {
			return fmt.Errorf("write %s: is a directory", path)
		}
		perm = fi.Mode().Perm()
	}

	f, err := os.CreateTemp(dir, "."+base+".tmp*")
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("write %s: folder %s does not exist", path, filepath.Clean(dir))
		}
		return fmt.Errorf("write %s: creating a temporary file: %w", path, unwrapPath(err))
	}
	tmp := f.Name()
	done := false
	defer func() {
		if !done { // error or panic: leave no trace
			f.Close()
			os.Remove(tmp)
		}
	}()

	w := bufio.NewWriterSize(f, 256<<10)
	if err := fill(w); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("write %s: %w", path, unwrapPath(err))
	}
	if err := f.Chmod(perm); err != nil {
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
	if err := syncDir(dir); err != nil {
		return fmt.Errorf("write %s: fsync of folder %s: %w", path, filepath.Clean(dir), unwrapPath(err))
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
