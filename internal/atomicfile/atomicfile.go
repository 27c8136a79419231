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
// # What a path refers to
//
// Only a regular file (or nothing) is ever replaced. The path is followed
// through symbolic links first:
//
//   - a link to a regular file (or to nothing yet) gets its target
//     replaced, in the target's folder; the link stays a link;
//   - a descriptor of this process, /dev/stdout, /dev/stderr, /dev/fd/N,
//     /proc/self/fd/N (and links to them), is written through that
//     descriptor itself, whatever it is open on (a terminal, a pipe, a
//     socket, a regular file, which then keeps its offset and append mode
//     as the shell opened it): renaming a file over /dev/stdout would, for
//     root, replace the system's link and leave the real output empty;
//   - a character device or a named pipe (/dev/null, /dev/full, a FIFO) is
//     opened and written in place: renaming over it would, for root,
//     destroy the device node.
//
// Block devices, sockets and other special files at a path are refused.
// WriteFile, whose fill may seek, writes for such streams into an unnamed
// temporary file in os.TempDir and copies it to the stream at the end.
package atomicfile

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Write replaces the file at path with what fill writes.
//
// fill writes into a buffered writer on a temporary file created in the
// target's folder (see the package comment). Write then flushes the
// buffer, fsyncs and closes the file, gives it the permissions of the file
// it replaces (0644 for a new file), renames it over the target and fsyncs
// the folder so that the rename itself is durable. A symbolic link keeps
// pointing to its target, whose content is replaced; a descriptor, a
// character device or a named pipe is written directly (see the package
// comment).
//
// If anything fails, including fill returning an error or panicking, the
// temporary file is removed, the old file is left untouched, and the
// returned error names path (never the temporary file).
func Write(path string, fill func(w *bufio.Writer) error) error {
	return WriteContext(context.Background(), path, fill)
}

// WriteContext is Write that gives up when ctx is done while it waits on
// a named pipe: for a process to open it for reading, or for the reader
// to take what was written. A regular file is written whatever ctx says
// (its writes do not wait on another process).
func WriteContext(ctx context.Context, path string, fill func(w *bufio.Writer) error) error {
	return write(ctx, path, true, func(f *os.File) error {
		w := bufio.NewWriterSize(newWriter(f), 256<<10)
		if err := fill(w); err != nil {
			return err
		}
		return w.Flush()
	})
}

// WriteFile is Write for writers that need the file itself, to seek or
// to write at offsets (WriteAt); the file starts empty at offset 0. A
// target that is not a regular file (a descriptor, a device, a pipe) gets
// the content of an unnamed temporary file in os.TempDir, copied once
// fill has finished.
func WriteFile(path string, fill func(f *os.File) error) error {
	return write(context.Background(), path, false, fill)
}

// WriteFileContext is WriteFile that gives up waiting on a named pipe when
// ctx is done, as WriteContext.
func WriteFileContext(ctx context.Context, path string, fill func(f *os.File) error) error {
	return write(ctx, path, false, fill)
}

// Check returns the error Write would give for path before fill is
// called: a missing folder, a path that names a folder, a folder where
// files cannot be created, a descriptor that is not open. It creates and
// removes a temporary file to find out. Commands call it before long work
// whose result goes to path, naming the files the work reads as inputs:
// a path that is one of them (the same file, through a link or another
// name) is refused, since writing would replace what was read.
func Check(path string, inputs ...string) error {
	t, err := check(path)
	if err != nil {
		return err
	}
	return notInput(path, t, inputs)
}

// CheckFile is Check for WriteFile.
func CheckFile(path string, inputs ...string) error { return Check(path, inputs...) }

// notInput returns an error if the regular file that path resolved to (t)
// is the same file as one of inputs ("-", standard input, is none). A
// stream, a descriptor or a new file replaces nothing.
func notInput(path string, t target, inputs []string) error {
	out := t.owner
	if t.kind != replace || out == nil {
		return nil
	}
	for _, in := range inputs {
		if in == "-" || in == "" {
			continue
		}
		if fi, err := os.Stat(in); err == nil && os.SameFile(fi, out) {
			if filepath.Clean(in) == filepath.Clean(path) {
				return fmt.Errorf("write %s: it is also an input of this command: writing would replace it; name another output", path)
			}
			return fmt.Errorf("write %s: it is the same file as the input %s: writing would replace it; name another output", path, in)
		}
	}
	return nil
}

// IsStdout reports whether path refers to this process's standard output
// (/dev/stdout, /dev/fd/1, /proc/self/fd/1, or a link to one of them), so
// that a command writing a file there can keep its other messages off
// standard output.
func IsStdout(path string) bool {
	t, err := resolve(path)
	return err == nil && t.kind == descriptor && t.fd == 1
}

// IsTemp reports whether name (a base name, as os.ReadDir lists it) is a
// temporary file of this package (or of a writer that follows its naming,
// such as the cache writers), and for which target base name (a prefix of
// it, for a name within 15 bytes of the system's limit: see TempPattern).
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

// What a path refers to, once followed through links.
const (
	replace    = iota // a regular file or nothing: a temporary file renamed over it
	stream            // a character device or named pipe: opened and written
	descriptor        // a descriptor of this process: written through a duplicate
)

// target is what a path refers to.
type target struct {
	kind      int
	path      string // the final target: path with its links followed
	dir, base string // replace: path's folder and name
	perm      fs.FileMode
	fd        int         // descriptor
	pipe      bool        // stream: a named pipe
	owner     fs.FileInfo // replace: the regular file replaced (nil: none yet), whose owner the new one keeps
}

// maxLinks bounds the links followed, as the kernel's ELOOP does.
const maxLinks = 40

// resolve follows path through symbolic links and returns what the data
// would go to.
func resolve(path string) (t target, err error) {
	p := path
	for range maxLinks {
		if fd, ok := descriptorOf(p); ok {
			return target{kind: descriptor, path: p, fd: fd}, nil
		}
		dir, base := filepath.Split(p)
		if dir == "" {
			dir = "."
		}
		if base == "" || base == "." || base == ".." {
			return t, fmt.Errorf("write %s: not a file name", path)
		}
		t = target{kind: replace, path: p, dir: dir, base: base, perm: 0o644}
		fi, err := os.Lstat(p)
		if err != nil {
			// Nothing there (a new file, also at the end of a dangling
			// link), or a folder that cannot be searched or is not one:
			// creating the temporary file finds out and says which.
			return t, nil
		}
		m := fi.Mode()
		switch {
		case m&fs.ModeSymlink != 0:
			link, err := os.Readlink(p)
			if err != nil {
				return t, fmt.Errorf("write %s: %w", path, unwrapPath(err))
			}
			if !filepath.IsAbs(link) {
				link = filepath.Join(dir, link)
			}
			p = link
			continue
		case m.IsDir():
			return t, fmt.Errorf("write %s: is a directory", path)
		case m.IsRegular():
			t.perm = m.Perm()
			t.owner = fi
		case m&fs.ModeCharDevice != 0 || m&fs.ModeNamedPipe != 0:
			t.kind = stream
			t.pipe = m&fs.ModeNamedPipe != 0
		default:
			return t, fmt.Errorf("write %s: is a %s, not a regular file", path, kindOf(m))
		}
		return t, nil
	}
	return t, fmt.Errorf("write %s: too many levels of symbolic links", path)
}

// descriptorOf reports whether p names a descriptor of this process:
// /dev/fd/N (a folder of its own on the BSDs and macOS), or, with the
// links in its folder followed (Linux's /dev/fd and /proc/self are links),
// /proc/PID/fd/N or /proc/PID/task/TID/fd/N of this process.
func descriptorOf(p string) (int, bool) {
	if !filepath.IsAbs(p) {
		abs, err := filepath.Abs(p)
		if err != nil {
			return 0, false
		}
		p = abs
	}
	dir, base := filepath.Split(p)
	fd, err := strconv.Atoi(base)
	if err != nil || fd < 0 || strconv.Itoa(fd) != base {
		return 0, false
	}
	dir = filepath.Clean(dir)
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	if dir == "/dev/fd" {
		return fd, true
	}
	pid := strconv.Itoa(os.Getpid())
	parts := strings.Split(strings.TrimPrefix(dir, "/"), "/")
	switch {
	case len(parts) == 3 && parts[0] == "proc" && parts[1] == pid && parts[2] == "fd",
		len(parts) == 5 && parts[0] == "proc" && parts[1] == pid && parts[2] == "task" && parts[4] == "fd":
		return fd, true
	}
	return 0, false
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

// TempPattern is the os.CreateTemp pattern of a temporary file for the
// target base name: "."+base+suffix+"*", with base cut short (at a UTF-8
// boundary) so that the name with its random digits fits the 255 bytes
// of a file name wherever base itself does. suffix starts with ".tmp".
func TempPattern(base, suffix string) string {
	const nameMax, digits = 255, 10 // os.CreateTemp adds up to 10 digits
	if over := 1 + len(base) + len(suffix) + digits - nameMax; over > 0 {
		n := max(len(base)-over, 1)
		for n > 1 && n < len(base) && base[n]&0xC0 == 0x80 {
			n--
		}
		base = base[:n]
	}
	return "." + base + suffix + "*"
}

// createTemp creates the temporary file for path in t.dir.
func createTemp(path string, t target) (*os.File, error) {
	f, err := os.CreateTemp(t.dir, TempPattern(t.base, ".tmp"))
	if err == nil {
		return f, nil
	}
	name := path
	if filepath.Clean(t.path) != filepath.Clean(path) {
		name = fmt.Sprintf("%s (a link to %s)", path, t.path)
	}
	dir := filepath.Clean(t.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("write %s: folder %s does not exist", name, dir)
	}
	if st, serr := os.Stat(dir); serr == nil && !st.IsDir() {
		return nil, fmt.Errorf("write %s: %s is not a folder", name, dir)
	}
	return nil, fmt.Errorf("write %s: cannot create a file in folder %s: %w", name, dir, unwrapPath(err))
}

// check is Check without the inputs; it returns what path resolved to.
func check(path string) (target, error) {
	t, err := resolve(path)
	if err != nil {
		return t, err
	}
	switch t.kind {
	case descriptor:
		f, err := openDescriptor(t.fd, path)
		if err != nil {
			return t, err
		}
		return t, f.Close()
	case stream:
		return t, nil
	}
	f, err := createTemp(path, t)
	if err != nil {
		return t, err
	}
	f.Close()
	os.Remove(f.Name())
	return t, nil
}

func write(ctx context.Context, path string, buffered bool, fill func(f *os.File) error) (err error) {
	t, err := resolve(path)
	if err != nil {
		return err
	}
	if t.kind != replace {
		return writeDirect(ctx, path, t, buffered, fill)
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
	keepOwner(f, t)
	if err := f.Sync(); err != nil {
		return fmt.Errorf("write %s: fsync: %w", path, unwrapPath(err))
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, unwrapPath(err))
	}
	if err := os.Rename(tmp, filepath.Join(t.dir, t.base)); err != nil {
		return fmt.Errorf("write %s: %w", path, unwrapPath(err))
	}
	done = true
	if err := syncDir(t.dir); err != nil {
		return fmt.Errorf("write %s: fsync of folder %s: %w", path, filepath.Clean(t.dir), unwrapPath(err))
	}
	return nil
}

// writeDirect writes to a descriptor, character device or named pipe in
// place. A fill that may seek (buffered false) writes into an unnamed
// temporary file first, which is then copied.
func writeDirect(ctx context.Context, path string, t target, buffered bool, fill func(f *os.File) error) error {
	var out *os.File
	var err error
	switch {
	case t.kind == descriptor:
		out, err = openDescriptor(t.fd, path)
	case t.pipe:
		out, err = openPipe(ctx, path, t.path)
	default:
		out, err = os.OpenFile(t.path, os.O_WRONLY, 0)
		if err != nil {
			err = fmt.Errorf("write %s: %w", path, unwrapPath(err))
		}
	}
	if err != nil {
		return err
	}
	defer out.Close()
	if t.pipe {
		// A reader that stops reading would block a write for ever: ctx
		// ends the wait (the poller's deadline), and the error says why.
		defer context.AfterFunc(ctx, func() { out.SetWriteDeadline(time.Unix(1, 0)) })()
	}
	if buffered {
		err = fill(out)
		if err != nil {
			err = fmt.Errorf("write %s: %w", path, dropName(err, out.Name()))
		}
	} else {
		err = fillAndCopy(path, out, fill)
	}
	if err != nil {
		if ctx.Err() != nil && errors.Is(err, os.ErrDeadlineExceeded) {
			return fmt.Errorf("write %s: the named pipe's reader took nothing more before the interruption: %w", path, context.Cause(ctx))
		}
		return err
	}
	if err := out.Close(); err != nil && !errors.Is(err, os.ErrClosed) {
		return fmt.Errorf("write %s: %w", path, unwrapPath(err))
	}
	return nil
}

// fillAndCopy runs fill on an unnamed temporary file and copies what it
// wrote to out.
func fillAndCopy(path string, out *os.File, fill func(f *os.File) error) error {
	tmp, err := os.CreateTemp("", ".acfcd-out.tmp*")
	if err != nil {
		return fmt.Errorf("write %s: temporary file: %w", path, unwrapPath(err))
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	if err := fill(tmp); err != nil {
		return fmt.Errorf("write %s: %w", path, dropName(err, tmp.Name()))
	}
	if _, err := tmp.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("write %s: temporary file: %w", path, unwrapPath(err))
	}
	if _, err := io.Copy(onlyWriter{out}, tmp); err != nil {
		return fmt.Errorf("write %s: %w", path, unwrapPath(err))
	}
	return nil
}

// onlyWriter hides the ReadFrom of *os.File, whose copy_file_range and
// splice paths are for files, not for terminals and pipes.
type onlyWriter struct{ w io.Writer }

func (o onlyWriter) Write(b []byte) (int, error) { return o.w.Write(b) }

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
