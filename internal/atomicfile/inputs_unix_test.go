//go:build unix

package atomicfile

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// An output that is one of the command's inputs, by any name, is refused
// before anything is written, and the input keeps its content.
func TestCheckRefusesAnInput(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "s.svm")
	if err := os.WriteFile(data, []byte("+1 1:1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.svm")
	hard := filepath.Join(dir, "hard.svm")
	if err := os.Symlink("s.svm", link); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(data, hard); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ out, want string }{
		{data, "write " + data + ": it is also an input of this command: writing would replace it; name another output"},
		{link, "write " + link + ": it is the same file as the input " + data + ": writing would replace it; name another output"},
		{hard, "write " + hard + ": it is the same file as the input " + data + ": writing would replace it; name another output"},
	} {
		err := Check(c.out, "-", data)
		if err == nil || err.Error() != c.want {
			t.Errorf("Check(%s): %v\nwant %s", c.out, err, c.want)
		}
	}
	if err := Check(filepath.Join(dir, "s.model"), data); err != nil {
		t.Errorf("a new output: %v", err)
	}
	if err := Check(data, filepath.Join(dir, "other")); err != nil {
		t.Errorf("an input that does not exist: %v", err)
	}
	if b, _ := os.ReadFile(data); string(b) != "+1 1:1\n" {
		t.Errorf("the input changed: %q", b)
	}
}

// A name near the system's limit gets a shorter temporary name: an
// output name of 241–255 bytes was refused with "file name too long".
func TestLongNames(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []int{240, 241, 250, 255} {
		base := strings.Repeat("m", n-len(".model")) + ".model"
		path := filepath.Join(dir, base)
		if err := Check(path); err != nil {
			t.Fatalf("Check of a %d-byte name: %v", n, err)
		}
		if err := Write(path, func(w *bufio.Writer) error { _, err := w.WriteString("x\n"); return err }); err != nil {
			t.Fatalf("Write of a %d-byte name: %v", n, err)
		}
		if b, err := os.ReadFile(path); err != nil || string(b) != "x\n" {
			t.Fatalf("%d bytes: %q %v", n, b, err)
		}
	}
	// Multi-byte names are cut at a character boundary.
	base := strings.Repeat("é", 127) // 254 bytes
	p := TempPattern(base, ".tmp")
	if len(p)-1+10 > 255 || !strings.HasPrefix(p, ".é") || strings.ContainsRune(p, '\uFFFD') {
		t.Errorf("TempPattern: %d bytes, %q", len(p), p)
	}
	for _, r := range strings.TrimSuffix(strings.TrimPrefix(p, "."), ".tmp*") {
		if r != 'é' {
			t.Fatalf("TempPattern cut a character: %q", p)
		}
	}
	if target, ok := IsTemp(strings.TrimSuffix(p, "*") + "123"); !ok || !strings.HasPrefix(base, target) {
		t.Errorf("IsTemp of a shortened name: %q %v", target, ok)
	}
}

// A named pipe nobody reads: the write waits for a reader, and gives up
// as soon as its context is done, with a message that says why. A
// blocking open used to ignore the first Ctrl-C for ever.
func TestPipeWithoutReader(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "out")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	if err := Check(fifo); err != nil {
		t.Fatalf("Check: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- WriteContext(ctx, fifo, func(w *bufio.Writer) error { _, err := w.WriteString("x\n"); return err })
	}()
	time.Sleep(50 * time.Millisecond)
	start := time.Now()
	cancel()
	select {
	case err := <-done:
		want := "write " + fifo + ": no process opened the named pipe for reading before the interruption: context canceled"
		if err == nil || err.Error() != want {
			t.Errorf("got %v\nwant %s", err, want)
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("stopped %v after the cancellation", d)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the write did not stop after its context was cancelled")
	}
}

// A reader that comes late gets everything; a reader that stops reading
// does not hold the write once the context is done.
func TestPipeReaders(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "out")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	payload := strings.Repeat("0123456789abcdef", 1<<16) // 1 MiB, more than a pipe holds
	got := make(chan string, 1)
	go func() {
		time.Sleep(30 * time.Millisecond)
		f, err := os.Open(fifo)
		if err != nil {
			got <- err.Error()
			return
		}
		b, _ := io.ReadAll(f)
		f.Close()
		got <- string(b)
	}()
	if err := Write(fifo, func(w *bufio.Writer) error { _, err := w.WriteString(payload); return err }); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != payload {
		t.Fatalf("the reader got %d bytes of %d", len(s), len(payload))
	}

	// The reader opens the pipe and then reads nothing.
	r := make(chan *os.File, 1)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			t.Error(err)
		}
		r <- f
	}()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- WriteContext(ctx, fifo, func(w *bufio.Writer) error { _, err := w.WriteString(payload); return err })
	}()
	f := <-r
	defer f.Close()
	time.Sleep(50 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		if err == nil || !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "the named pipe's reader took nothing more") {
			t.Errorf("got %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the write did not stop after its context was cancelled")
	}
}

// Root replacing another user's file keeps its owner and group, as
// writing it in place would.
func TestReplaceKeepsOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to give a file away")
	}
	path := filepath.Join(t.TempDir(), "a.model")
	if err := os.WriteFile(path, []byte("old\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(path, 1234, 5678); err != nil {
		t.Skip(err)
	}
	if err := Write(path, func(w *bufio.Writer) error { _, err := w.WriteString("new\n"); return err }); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	if st.Uid != 1234 || st.Gid != 5678 || fi.Mode().Perm() != 0o640 {
		t.Errorf("owner %d:%d mode %v, want 1234:5678 -rw-r-----", st.Uid, st.Gid, fi.Mode().Perm())
	}
}
