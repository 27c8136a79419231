//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// An output that is one of the command's inputs, by its name or through a
// link, is refused before any work, and the input is intact: train,
// predict and convert used to exit 0 and replace the data with the model.
func TestOutputIsAnInput(t *testing.T) {
	dir := t.TempDir()
	data, mdl, _ := trainedModel(t, dir)
	link := filepath.Join(dir, "link.svm")
	if err := os.Symlink(filepath.Base(data), link); err != nil {
		t.Fatal(err)
	}
	before, model := string(mustRead(t, data)), string(mustRead(t, mdl))
	same := func(p string) string {
		return "write " + p + ": it is also an input of this command: writing would replace it; name another output"
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"train", "-q", data, data}, same(data)},
		{[]string{"train", "-q", data, link}, "write " + link + ": it is the same file as the input " + data + ": writing would replace it; name another output"},
		{[]string{"train", "-q", "-C", data, data}, ""}, // -C writes no model
		{[]string{"predict", "-q", data, mdl, data}, same(data)},
		{[]string{"predict", "-q", data, mdl, mdl}, same(mdl)},
		{[]string{"convert", data, data}, same(data)},
	} {
		_, _, err := runCmd(t, c.args...)
		if c.want == "" {
			if err != nil {
				t.Errorf("%q: %v", c.args, err)
			}
			continue
		}
		if err == nil || err.Error() != c.want {
			t.Errorf("%q: error %v\nwant %s", c.args, err, c.want)
		}
	}
	if string(mustRead(t, data)) != before || string(mustRead(t, mdl)) != model {
		t.Errorf("an input was replaced")
	}
}

// A named pipe as MODEL that no process reads: the first SIGINT ends the
// wait with a message and exit status 1 (it used to be ignored, in a
// blocking open, for ever).
func TestModelPipeWithoutReader(t *testing.T) {
	dir := t.TempDir()
	data := writeProblem(t, dir, "d.svm", 50, 21)
	fifo := filepath.Join(dir, "model.fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	// The signal must come once training is done and the write waits for
	// a reader; under emulation (arm64 on qemu-user) that can take longer
	// than the first wait, which the message then shows: wait longer.
	for wait := 500 * time.Millisecond; ; wait *= 4 {
		got := interruptPipeWait(t, data, fifo, wait)
		if strings.Contains(got, "training interrupted") && wait < 8*time.Second {
			t.Logf("interrupted while training after %v: again", wait)
			continue
		}
		want := "acfcd: write " + fifo + ": no process opened the named pipe for reading before the interruption: interrupt signal received\n"
		if got != want {
			t.Errorf("stderr %q\nwant %q", got, want)
		}
		break
	}

	// With a reader, the model arrives whole.
	go func() {
		time.Sleep(100 * time.Millisecond)
		b, _ := os.ReadFile(fifo)
		os.WriteFile(filepath.Join(dir, "got.model"), b, 0o644)
	}()
	if _, _, err := runCmd(t, "train", "-q", data, fifo); err != nil {
		t.Fatal(err)
	}
	ref := filepath.Join(dir, "ref.model")
	if _, _, err := runCmd(t, "train", "-q", data, ref); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	if got := mustRead(t, filepath.Join(dir, "got.model")); string(got) != string(mustRead(t, ref)) {
		t.Errorf("the model read from the pipe differs: %d bytes", len(got))
	}
}

// interruptPipeWait starts train on data with MODEL fifo, sends SIGINT
// after wait, checks that it exits with status 1 soon after, and returns
// its stderr.
func interruptPipeWait(t *testing.T, data, fifo string, wait time.Duration) string {
	t.Helper()
	c := acfcdCmd(t, "train", "-q", data, fifo)
	var stderr strings.Builder
	c.Stderr = &stderr
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(wait)
	start := time.Now()
	c.Process.Signal(os.Interrupt)
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	select {
	case err := <-done:
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.ExitCode() != 1 {
			t.Errorf("exit: %v", err)
		}
		t.Logf("stopped %v after SIGINT", time.Since(start))
	case <-time.After(10 * time.Second):
		c.Process.Kill()
		t.Fatal("train did not stop on SIGINT while waiting for the pipe's reader")
	}
	return stderr.String()
}

// With standard output closed, a model or predictions written to - would
// vanish (the runtime opens /dev/null in its place): an error, exit 1.
func TestClosedStdout(t *testing.T) {
	dir := t.TempDir()
	data, mdl, _ := trainedModel(t, dir)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"train", "-q", data, "-"}, "acfcd: write model to standard output: standard output is closed\n"},
		{[]string{"predict", "-q", data, mdl, "-"}, "acfcd: write predictions to standard output: standard output is closed\n"},
		{[]string{"convert", data, "-"}, "acfcd: write cache to standard output: standard output is closed\n"},
	} {
		cmd := acfcdCmd(t, c.args...)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		// exec gives a child /dev/null for a nil Stdout; close fd 1 in
		// the child through a shell instead.
		sh := exec.Command("/bin/sh", "-c", `exec "$@" >&-`, "sh")
		sh.Args = append(sh.Args, cmd.Args...)
		sh.Env, sh.Stderr = cmd.Env, &stderr
		err := sh.Run()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || stderr.String() != c.want {
			t.Errorf("%q: %v, stderr %q\nwant %q", c.args, err, stderr.String(), c.want)
		}
		// >/dev/null is the user's choice: no error.
		sh = exec.Command("/bin/sh", "-c", `exec "$@" >/dev/null`, "sh")
		sh.Args = append(sh.Args, cmd.Args...)
		sh.Env = cmd.Env
		if out, err := sh.CombinedOutput(); err != nil {
			t.Errorf("%q >/dev/null: %v %s", c.args, err, out)
		}
	}
}
