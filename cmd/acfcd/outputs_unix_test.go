//go:build unix

package main

import (
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestHelpExitStatus: as a program, help and --version exit 0 with the
// text on stdout; a flag mistake exits 2 with one line on stderr.
func TestHelpExitStatus(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		status int
	}{
		{[]string{"help", "train"}, 0},
		{[]string{"--version"}, 0},
		{[]string{"train", "-h"}, 0},
		{[]string{"train", "-e", "0", "x.svm"}, 2},
		{[]string{"train", "-nosuchflag", "x.svm"}, 2},
	} {
		c := acfcdCmd(t, tc.args...)
		var stdout, stderr strings.Builder
		c.Stdout, c.Stderr = &stdout, &stderr
		err := c.Run()
		status := 0
		if ee, ok := err.(interface{ ExitCode() int }); ok {
			status = ee.ExitCode()
		}
		if status != tc.status {
			t.Errorf("%q: exit status %d, want %d", tc.args, status, tc.status)
		}
		if tc.status == 0 && (stdout.Len() == 0 || stderr.Len() != 0) {
			t.Errorf("%q: %d bytes on stdout, stderr %q", tc.args, stdout.Len(), stderr.String())
		}
		if tc.status == 2 && (stdout.Len() != 0 || strings.Count(stderr.String(), "\n") != 1 || !strings.HasPrefix(stderr.String(), "acfcd: ")) {
			t.Errorf("%q: stdout %q, stderr %q: want one line on stderr", tc.args, stdout.String(), stderr.String())
		}
	}
}

// trainedModel writes a binary problem and its -s 1 model and returns
// their paths and the predictions file acfcd predict writes for them.
func trainedModel(t *testing.T, dir string) (data, mdl, preds string) {
	t.Helper()
	data = writeProblem(t, dir, "d.svm", 50, 21)
	mdl = filepath.Join(dir, "d.model")
	if _, _, err := runCmd(t, "train", "-q", data, mdl); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "ref.out")
	if _, _, err := runCmd(t, "predict", "-q", data, mdl, out); err != nil {
		t.Fatal(err)
	}
	return data, mdl, string(mustRead(t, out))
}

// TestOutputDash: - as MODEL or OUT is standard output, which then holds
// the model or the predictions alone (the summary, report and accuracy go
// to stderr); - as DATA is standard input.
func TestOutputDash(t *testing.T) {
	dir := t.TempDir()
	data, mdl, preds := trainedModel(t, dir)
	stdout, stderr, err := runCmd(t, "predict", data, mdl, "-")
	if err != nil || stdout != preds || !strings.HasPrefix(stderr, "Accuracy = ") {
		t.Errorf("predict to -: error %v, stdout %q, stderr %q", err, stdout, stderr)
	}
	stdout, stderr, err = runCmd(t, "train", "--report", "json", data, "-")
	if err != nil || stdout != string(mustRead(t, mdl)) || !strings.Contains(stderr, "optimization finished") || !strings.Contains(stderr, `"solver":`) {
		t.Errorf("train to -: error %v, stdout %q, stderr %q", err, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "-")); err == nil {
		t.Errorf("a file named - was written")
	}
	cache := filepath.Join(dir, "d.acf")
	if _, _, err := runCmd(t, "convert", data, cache); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, err = runCmd(t, "convert", data, "-")
	if err != nil || stdout != string(mustRead(t, cache)) || !strings.HasPrefix(stderr, "wrote -: ") {
		t.Errorf("convert to -: error %v, %d bytes on stdout, stderr %q", err, len(stdout), stderr)
	}

	// Standard input as DATA (with a MODEL), as a program.
	in, _ := os.Open(data)
	defer in.Close()
	c := acfcdCmd(t, "train", "-q", "-", filepath.Join(dir, "stdin.model"))
	c.Stdin = in
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("train - MODEL: %v: %s", err, out)
	}
	if string(mustRead(t, filepath.Join(dir, "stdin.model"))) != string(mustRead(t, mdl)) {
		t.Errorf("the model trained from standard input differs")
	}
	gaps := writeText(t, dir, "gaps.svm", "1 1:1\n\n-1 2:1\n")
	g, _ := os.Open(gaps)
	defer g.Close()
	c = acfcdCmd(t, "predict", "-", mdl, filepath.Join(dir, "o"))
	c.Stdin = g
	if out, err := c.CombinedOutput(); err == nil || !strings.HasPrefix(string(out), "acfcd: stdin:2:1: blank line") {
		t.Errorf("predict - with a blank line: %v: %s", err, out)
	}
}

// TestOutputThroughLinks: an output path that is a link to a regular file
// keeps being that link, and the file it points to gets the content.
func TestOutputThroughLinks(t *testing.T) {
	dir := t.TempDir()
	data, mdl, preds := trainedModel(t, dir)
	os.Mkdir(filepath.Join(dir, "real"), 0o755)
	target := filepath.Join(dir, "real", "preds")
	os.WriteFile(target, []byte("old\n"), 0o644)
	link := filepath.Join(dir, "link")
	os.Symlink("real/preds", link)
	if _, _, err := runCmd(t, "predict", "-q", data, mdl, link); err != nil {
		t.Fatal(err)
	}
	if got, err := os.Readlink(link); err != nil || got != "real/preds" {
		t.Fatalf("the link became %q, %v", got, err)
	}
	if string(mustRead(t, target)) != preds {
		t.Errorf("the link's target holds %q", mustRead(t, target))
	}
	mlink := filepath.Join(dir, "mlink")
	os.Symlink("real/model", mlink)
	if _, _, err := runCmd(t, "train", "-q", data, mlink); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(mlink); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the model link was replaced")
	}
	if string(mustRead(t, filepath.Join(dir, "real", "model"))) != string(mustRead(t, mdl)) {
		t.Errorf("the model link's target differs from the model")
	}
	checkNoTemp(t, dir)
	checkNoTemp(t, filepath.Join(dir, "real"))
}

// TestOutputDescriptors: /dev/fd/N and a FIFO are written through, not
// replaced; a descriptor keeps its offset.
func TestOutputDescriptors(t *testing.T) {
	dir := t.TempDir()
	data, mdl, preds := trainedModel(t, dir)
	f, err := os.Create(filepath.Join(dir, "held"))
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("first\n")
	fdPath := "/dev/fd/" + strconv.Itoa(int(f.Fd()))
	if _, _, err := runCmd(t, "predict", "-q", data, mdl, fdPath); err != nil {
		t.Fatalf("predict to %s: %v", fdPath, err)
	}
	f.Close()
	if got := string(mustRead(t, filepath.Join(dir, "held"))); got != "first\n"+preds {
		t.Errorf("%s: the file holds %q", fdPath, got)
	}

	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	got := make(chan string)
	go func() {
		r, err := os.Open(fifo)
		if err != nil {
			got <- err.Error()
			return
		}
		b, _ := io.ReadAll(r)
		r.Close()
		got <- string(b)
	}()
	if _, _, err := runCmd(t, "predict", "-q", data, mdl, fifo); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != preds {
		t.Errorf("through the FIFO: %q", s)
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced")
	}
}

// TestOutputDevStdout: acfcd predict D M /dev/stdout > f (and a link to
// /dev/stdout, and /dev/fd/1) writes the predictions into f, the accuracy
// to stderr, and leaves /dev/stdout the link it is; with >> f they are
// appended. The test binary runs as acfcd with its stdout on f. The link
// of the test's own folder goes first: should it be replaced, the system's
// /dev/stdout is not tried.
func TestOutputDevStdout(t *testing.T) {
	if fi, err := os.Lstat("/dev/stdout"); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Skip("/dev/stdout is not a link here")
	}
	dir := t.TempDir()
	data, mdl, preds := trainedModel(t, dir)
	link := filepath.Join(dir, "stdout-link")
	os.Symlink("/dev/stdout", link)
	for _, out := range []string{link, "/dev/fd/1", "/dev/stdout"} {
		for _, appendTo := range []bool{false, true} {
			f := filepath.Join(dir, "f")
			os.WriteFile(f, []byte("before\n"), 0o644)
			flags := os.O_WRONLY | os.O_TRUNC
			want := preds
			if appendTo {
				flags = os.O_WRONLY | os.O_APPEND
				want = "before\n" + preds
			}
			w, err := os.OpenFile(f, flags, 0)
			if err != nil {
				t.Fatal(err)
			}
			var stderr strings.Builder
			c := acfcdCmd(t, "predict", data, mdl, out)
			c.Stdout, c.Stderr = w, &stderr
			err = c.Run()
			w.Close()
			if err != nil {
				t.Fatalf("%s: %v: %s", out, err, stderr.String())
			}
			// liblinear's idiom: its accuracy line follows the predictions.
			got := string(mustRead(t, f))
			if rest, ok := strings.CutPrefix(got, want); !ok || !strings.HasPrefix(rest, "Accuracy = ") || strings.Count(rest, "\n") != 1 {
				t.Errorf("%s (append %v): f holds %q, want %q and the accuracy line", out, appendTo, got, want)
			}
			if stderr.Len() != 0 {
				t.Errorf("%s: stderr %q", out, stderr.String())
			}
			if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
				t.Fatalf("%s: the link to /dev/stdout was replaced", out)
			}
			if fi, err := os.Lstat("/dev/stdout"); err != nil || fi.Mode()&os.ModeSymlink == 0 {
				t.Fatalf("%s: /dev/stdout is no longer a link", out)
			}
		}
	}
	// A model, too.
	f := filepath.Join(dir, "m")
	w, _ := os.Create(f)
	c := acfcdCmd(t, "train", "-q", data, "/dev/stdout")
	var stderr strings.Builder
	c.Stdout, c.Stderr = w, &stderr
	if err := c.Run(); err != nil {
		t.Fatalf("%v: %s", err, stderr.String())
	}
	w.Close()
	if string(mustRead(t, f)) != string(mustRead(t, mdl)) {
		t.Errorf("train to /dev/stdout: f differs from the model")
	}
	checkNoTemp(t, dir)
}
