//go:build unix

package atomicfile

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// A named pipe (and a link to one) is written in place, not replaced.
func TestWriteFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(fifo, link); err != nil {
		t.Fatal(err)
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
	if err := Write(link, func(w *bufio.Writer) error { _, err := w.WriteString("through the pipe\n"); return err }); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != "through the pipe\n" {
		t.Fatalf("reader got %q", s)
	}
	if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Fatalf("the pipe was replaced: %v %v", st.Mode(), err)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v %v", st.Mode(), err)
	}
	if names := onlyFiles(t, dir); len(names) != 2 {
		t.Fatalf("folder holds %v", names)
	}
}
