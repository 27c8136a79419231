package atomicfile

import (
	"bufio"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// onlyFiles returns the names in dir.
func onlyFiles(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

func TestWriteNew(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "model.txt")
	if err := Write(path, func(w *bufio.Writer) error {
		_, err := w.WriteString("hello\n")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil || string(b) != "hello\n" {
		t.Fatalf("content %q, %v", b, err)
	}
	fi, _ := os.Stat(path)
	if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o644 {
		t.Errorf("new file has mode %v, want 0644", fi.Mode().Perm())
	}
	if names := onlyFiles(t, dir); len(names) != 1 {
		t.Errorf("folder holds %v, want only model.txt", names)
	}
}

func TestWriteReplaceKeepsMode(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m")
	if err := os.WriteFile(path, []byte("old content, longer than the new\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o640); err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("0123456789abcdef", 1<<16) // more than the buffer
	if err := Write(path, func(w *bufio.Writer) error {
		_, err := w.WriteString(big)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if string(b) != big {
		t.Fatalf("content of %d bytes, want %d", len(b), len(big))
	}
	fi, _ := os.Stat(path)
	if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o640 {
		t.Errorf("replaced file has mode %v, want 0640", fi.Mode().Perm())
	}
}

func TestWriteFailureLeavesOldFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m")
	if err := os.WriteFile(path, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := Write(path, func(w *bufio.Writer) error {
		w.WriteString(strings.Repeat("partial ", 100000)) // some of it reaches the disk
		return boom
	})
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), path) {
		t.Fatalf("error %v: want one wrapping boom and naming %s", err, path)
	}
	b, _ := os.ReadFile(path)
	if string(b) != "old\n" {
		t.Fatalf("old file changed to %d bytes", len(b))
	}
	if names := onlyFiles(t, dir); len(names) != 1 || names[0] != "m" {
		t.Fatalf("folder holds %v, want only m", names)
	}

	// A panicking fill leaves no temporary file either.
	func() {
		defer func() { recover() }()
		Write(path, func(w *bufio.Writer) error { panic("fill panics") })
	}()
	if names := onlyFiles(t, dir); len(names) != 1 {
		t.Fatalf("after panic the folder holds %v", names)
	}
}

func TestWriteMissingFolder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "no", "such", "dir", "m")
	called := false
	err := Write(path, func(w *bufio.Writer) error { called = true; return nil })
	if err == nil {
		t.Fatal("no error for a missing folder")
	}
	want := "write " + path + ": folder " + filepath.Dir(path) + " does not exist"
	if err.Error() != want {
		t.Fatalf("error %q, want %q", err, want)
	}
	if called {
		t.Error("fill called although the file could not be created")
	}
}

func TestWriteOverDirectory(t *testing.T) {
	dir := t.TempDir()
	err := Write(dir, func(w *bufio.Writer) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Fatalf("error %v, want 'is a directory'", err)
	}
}

func TestWriteRelative(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := Write("rel.txt", func(w *bufio.Writer) error { return w.WriteByte('x') }); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "rel.txt")); string(b) != "x" {
		t.Fatalf("content %q", b)
	}
}

// failAfter accepts n bytes, then fails as a full disk does.
type failAfter struct {
	w io.Writer
	n int
}

func (f *failAfter) Write(b []byte) (int, error) {
	if len(b) > f.n {
		k, _ := f.w.Write(b[:f.n])
		f.n = 0
		return k, syscall.ENOSPC
	}
	f.n -= len(b)
	return f.w.Write(b)
}

// A disk that fills up while the buffer is flushed: the error names the
// target and the problem, the old file stays, no temporary file is left.
func TestWriteDiskFull(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m")
	if err := os.WriteFile(path, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	defer func(f func(*os.File) io.Writer) { newWriter = f }(newWriter)
	newWriter = func(f *os.File) io.Writer { return &failAfter{w: fileWriter{f}, n: 300 << 10} }
	err := Write(path, func(w *bufio.Writer) error {
		for i := 0; i < 100000; i++ {
			if _, err := w.WriteString("0.123456789\n"); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil || err.Error() != "write "+path+": no space left on device" || !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("error %v, want %q", err, "write "+path+": no space left on device")
	}
	if b, _ := os.ReadFile(path); string(b) != "old\n" {
		t.Fatalf("old file changed to %d bytes", len(b))
	}
	if names := onlyFiles(t, dir); len(names) != 1 {
		t.Fatalf("folder holds %v, want only m", names)
	}
}

// /dev/full is a character device that fails every write with ENOSPC:
// Write must write to it (not rename a file over the device node, which
// for root would replace /dev/full) and report the error. The test goes
// through a link, so that a regression replaces the link, not /dev/full.
func TestWriteDevFull(t *testing.T) {
	st, err := os.Stat("/dev/full")
	if err != nil || st.Mode()&os.ModeCharDevice == 0 {
		t.Skip("no /dev/full")
	}
	dir := t.TempDir()
	full := filepath.Join(dir, "full")
	if err := os.Symlink("/dev/full", full); err != nil {
		t.Skip(err)
	}
	err = Write(full, func(w *bufio.Writer) error {
		_, err := w.WriteString("solver_type L2R_L2LOSS_SVC_DUAL\n")
		return err
	})
	if err == nil || err.Error() != "write "+full+": no space left on device" {
		t.Fatalf("error %v, want write %s: no space left on device", err, full)
	}
	if st, err := os.Lstat(full); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link to /dev/full was replaced: %v %v", st.Mode(), err)
	}
	// WriteFile fills a temporary file and copies it to the device.
	err = WriteFile(full, func(f *os.File) error {
		_, err := f.WriteString("cache")
		return err
	})
	if err == nil || err.Error() != "write "+full+": no space left on device" {
		t.Fatalf("WriteFile: %v, want write %s: no space left on device", err, full)
	}
	if err := CheckFile(full); err != nil {
		t.Fatalf("CheckFile(/dev/full): %v", err)
	}
	if err := Check(full); err != nil {
		t.Fatalf("Check(/dev/full): %v", err)
	}
	if names := onlyFiles(t, dir); len(names) != 1 {
		t.Fatalf("folder holds %v", names)
	}
	// /dev/null takes anything.
	null := filepath.Join(dir, "null")
	if os.Symlink("/dev/null", null) == nil {
		if err := Write(null, func(w *bufio.Writer) error { _, err := w.WriteString("x\n"); return err }); err != nil {
			t.Fatalf("/dev/null: %v", err)
		}
	}
}

func TestWriteFileSeeks(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "c")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	err := WriteFile(path, func(f *os.File) error {
		if _, err := f.Write([]byte("....world")); err != nil {
			return err
		}
		_, err := f.WriteAt([]byte("hell"), 0)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "hellworld" {
		t.Fatalf("content %q", b)
	}
	if fi, _ := os.Stat(path); runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}
	if names := onlyFiles(t, dir); len(names) != 1 {
		t.Fatalf("folder holds %v", names)
	}
}

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	if err := Check(filepath.Join(dir, "new")); err != nil {
		t.Fatal(err)
	}
	if names := onlyFiles(t, dir); len(names) != 0 {
		t.Fatalf("Check left %v", names)
	}
	missing := filepath.Join(dir, "no", "m")
	if err := Check(missing); err == nil || err.Error() != "write "+missing+": folder "+filepath.Join(dir, "no")+" does not exist" {
		t.Errorf("missing folder: %v", err)
	}
	if err := Check(dir); err == nil || err.Error() != "write "+dir+": is a directory" {
		t.Errorf("directory: %v", err)
	}
	file := filepath.Join(dir, "f")
	os.WriteFile(file, nil, 0o644)
	under := filepath.Join(file, "m")
	if err := Check(under); err == nil || err.Error() != "write "+under+": "+file+" is not a folder" {
		t.Errorf("file as folder: %v", err)
	}
	if err := Write(under, func(w *bufio.Writer) error { return nil }); err == nil || err.Error() != "write "+under+": "+file+" is not a folder" {
		t.Errorf("Write, file as folder: %v", err)
	}
}

func TestCheckReadOnlyFolder(t *testing.T) {
	if runtime.GOOS == "windows" || os.Geteuid() == 0 {
		t.Skip("needs a system where folder permissions bind (not root)")
	}
	dir := filepath.Join(t.TempDir(), "ro")
	os.Mkdir(dir, 0o555)
	defer os.Chmod(dir, 0o755)
	path := filepath.Join(dir, "m")
	want := "write " + path + ": cannot create a file in folder " + dir + ": permission denied"
	if err := Check(path); err == nil || err.Error() != want {
		t.Errorf("Check: %v, want %q", err, want)
	}
	if err := Write(path, func(w *bufio.Writer) error { return nil }); err == nil || err.Error() != want {
		t.Errorf("Write: %v, want %q", err, want)
	}
}

func TestIsTemp(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.model")
	var seen string
	Write(path, func(w *bufio.Writer) error {
		names := onlyFiles(t, dir)
		if len(names) == 1 {
			seen = names[0]
		}
		return errors.New("stop")
	})
	if target, ok := IsTemp(seen); !ok || target != "a.model" {
		t.Errorf("IsTemp(%q) = %q, %v", seen, target, ok)
	}
	for _, name := range []string{"a.model", ".hidden", "x.tmp1", ".tmp1"} {
		if _, ok := IsTemp(name); ok {
			t.Errorf("IsTemp(%q) is true", name)
		}
	}
	if target, ok := IsTemp(".c.acf.tmp-index-123"); !ok || target != "c.acf" {
		t.Errorf("cache spill name: %q %v", target, ok)
	}
}
