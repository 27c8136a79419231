package atomicfile

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
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
