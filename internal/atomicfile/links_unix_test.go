//go:build unix

package atomicfile

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"testing"
)

func writeString(path, s string) error {
	return Write(path, func(w *bufio.Writer) error { _, err := w.WriteString(s); return err })
}

// isLink fails the test unless path is still a symbolic link to to.
func isLink(t *testing.T, path, to string) {
	t.Helper()
	got, err := os.Readlink(path)
	if err != nil || got != to {
		t.Fatalf("%s: link to %q, %v; want a link to %q", path, got, err, to)
	}
}

// A link to a regular file keeps being a link: the file it points to is
// replaced atomically (its mode kept), in the file's own folder, which
// holds no temporary file afterwards. So do chains of links, relative
// links, and a link to nothing yet, whose target is created.
func TestWriteThroughLinks(t *testing.T) {
	dir := t.TempDir()
	other := filepath.Join(dir, "other")
	os.Mkdir(other, 0o755)
	file := filepath.Join(other, "model")
	os.WriteFile(file, []byte("old\n"), 0o600)
	os.Chmod(file, 0o640)
	abs := filepath.Join(dir, "abs")
	os.Symlink(file, abs)
	rel := filepath.Join(dir, "rel")
	os.Symlink("other/model", rel)
	chain := filepath.Join(dir, "chain")
	os.Symlink("rel", chain)
	for k, link := range []string{abs, rel, chain} {
		want := "new " + strconv.Itoa(k) + "\n"
		if err := writeString(link, want); err != nil {
			t.Fatalf("%s: %v", link, err)
		}
		if b, _ := os.ReadFile(file); string(b) != want {
			t.Fatalf("%s: the file holds %q, want %q", link, b, want)
		}
		if fi, _ := os.Lstat(file); !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o640 {
			t.Fatalf("%s: the file is %v, want a regular file of mode 0640", link, fi.Mode())
		}
	}
	isLink(t, abs, file)
	isLink(t, rel, "other/model")
	isLink(t, chain, "rel")
	if names := onlyFiles(t, other); len(names) != 1 {
		t.Fatalf("%s holds %v", other, names)
	}

	dangling := filepath.Join(dir, "dangling")
	os.Symlink("other/new", dangling)
	if err := Check(dangling); err != nil {
		t.Fatal(err)
	}
	if err := writeString(dangling, "created\n"); err != nil {
		t.Fatal(err)
	}
	isLink(t, dangling, "other/new")
	if b, _ := os.ReadFile(filepath.Join(other, "new")); string(b) != "created\n" {
		t.Fatalf("the link's target holds %q", b)
	}

	// A link into a missing folder: the message names the link and its target.
	lost := filepath.Join(dir, "lost")
	os.Symlink("/no/such/folder/m", lost)
	want := "write " + lost + " (a link to /no/such/folder/m): folder /no/such/folder does not exist"
	if err := writeString(lost, "x"); err == nil || err.Error() != want {
		t.Fatalf("error %v, want %q", err, want)
	}
	loop := filepath.Join(dir, "loop")
	os.Symlink("loop", loop)
	if err := writeString(loop, "x"); err == nil || err.Error() != "write "+loop+": too many levels of symbolic links" {
		t.Fatalf("a link to itself: %v", err)
	}
}

// /dev/fd/N and /proc/self/fd/N (and links to them) are written through
// the descriptor itself: a regular file open there gets the bytes at its
// offset, nothing is renamed over the path, and the file is not replaced.
func TestWriteDescriptor(t *testing.T) {
	dir := t.TempDir()
	paths := []string{"/dev/fd/%d"}
	if runtime.GOOS == "linux" {
		paths = append(paths, "/proc/self/fd/%d", "/proc/"+strconv.Itoa(os.Getpid())+"/fd/%d", "link")
	}
	for _, pat := range paths {
		out := filepath.Join(dir, "out")
		f, err := os.Create(out)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString("before\n")
		fd := int(f.Fd())
		path := pat
		if pat == "link" {
			path = filepath.Join(dir, "fdlink")
			os.Remove(path)
			os.Symlink("/dev/fd/"+strconv.Itoa(fd), path)
		} else {
			path = fmtPath(pat, fd)
		}
		if _, err := os.Stat(path); err != nil {
			f.Close()
			t.Skipf("%s: %v", path, err)
		}
		var before syscall.Stat_t
		syscall.Fstat(fd, &before)
		if err := Check(path); err != nil {
			t.Fatalf("Check(%s): %v", path, err)
		}
		if !IsStdout(path) == (fd == 1) {
			t.Errorf("IsStdout(%s) = %v", path, IsStdout(path))
		}
		if err := writeString(path, "through "+pat+"\n"); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if err := WriteFile(path, func(f *os.File) error {
			f.WriteString(".....file\n")
			_, err := f.WriteAt([]byte("Write"), 0)
			return err
		}); err != nil {
			t.Fatalf("WriteFile(%s): %v", path, err)
		}
		f.WriteString("after\n") // the descriptor's offset moved past both
		f.Close()
		b, _ := os.ReadFile(out)
		if want := "before\nthrough " + pat + "\nWritefile\nafter\n"; string(b) != want {
			t.Fatalf("%s: the file holds %q, want %q", path, b, want)
		}
		var after syscall.Stat_t
		syscall.Stat(out, &after)
		if after.Ino != before.Ino {
			t.Fatalf("%s: the file open on the descriptor was replaced", path)
		}
	}
	if names := onlyFiles(t, dir); len(names) > 2 {
		t.Fatalf("folder holds %v", names)
	}
	closed := "/dev/fd/999"
	if err := writeString(closed, "x"); err == nil {
		t.Fatalf("%s: no error for a descriptor that is not open", closed)
	}
	if IsStdout("/dev/fd/2") || (runtime.GOOS == "linux" && !IsStdout("/dev/stdout")) || !IsStdout("/dev/fd/1") {
		t.Errorf("IsStdout: /dev/fd/2 %v, /dev/stdout %v, /dev/fd/1 %v", IsStdout("/dev/fd/2"), IsStdout("/dev/stdout"), IsStdout("/dev/fd/1"))
	}
}

func fmtPath(pat string, fd int) string {
	for i := 0; i+1 < len(pat); i++ {
		if pat[i:i+2] == "%d" {
			return pat[:i] + strconv.Itoa(fd) + pat[i+2:]
		}
	}
	return pat
}

// A FIFO takes WriteFile's content too, copied from a temporary file.
func TestWriteFileFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	got := make(chan string)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			got <- err.Error()
			return
		}
		b, _ := io.ReadAll(f)
		f.Close()
		got <- string(b)
	}()
	if err := WriteFile(fifo, func(f *os.File) error {
		f.WriteString("....world")
		_, err := f.WriteAt([]byte("hell"), 0)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != "hellworld" {
		t.Fatalf("reader got %q", s)
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Fatalf("the pipe was replaced")
	}
}
