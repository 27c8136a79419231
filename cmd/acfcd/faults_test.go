//go:build unix

package main

// Failure safety of the command: signals during
// training, SIGKILL while an output file is written, and the messages for
// unusable inputs and outputs. The tests that need a real process run the
// test binary itself as acfcd (TestMain below), so that no build is needed.

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/acfcd/acfcd"
	"github.com/acfcd/acfcd/internal/atomicfile"
	"github.com/acfcd/acfcd/internal/testkit"
	dataio "github.com/acfcd/acfcd/io"
)

// TestMain runs main instead of the tests when asked to by acfcdCmd.
func TestMain(m *testing.M) {
	if os.Getenv("ACFCD_TEST_AS_MAIN") == "1" {
		os.Args = append([]string{"acfcd"}, os.Args[1:]...)
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// acfcdCmd is the command acfcd ARGS, run by the test binary.
func acfcdCmd(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" || runtime.GOOS == "js" || runtime.GOOS == "wasip1" {
		t.Skip("needs Unix processes and signals")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	c := testkit.Command(exe, args...)
	c.Env = append(os.Environ(), "ACFCD_TEST_AS_MAIN=1")
	return c
}

// writeNoisy writes a libsvm problem with random labels (classes of them),
// which the solvers cannot fit quickly at a large C: training runs until
// it is stopped. Indices are drawn from [1, features].
func writeNoisy(t *testing.T, path string, rows, nnz, features, classes int, seed uint64) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 6))
	b := make([]byte, 0, rows*nnz*12)
	for i := 0; i < rows; i++ {
		y := 1 + r.IntN(classes)
		if classes == 2 && y == 2 {
			y = -1
		}
		b = strconv.AppendInt(b, int64(y), 10)
		last := 0
		for k := 0; k < nnz; k++ {
			last += 1 + r.IntN(2*features/nnz-1)
			if last > features {
				break
			}
			b = append(b, ' ')
			b = strconv.AppendInt(b, int64(last), 10)
			b = append(b, ':')
			b = strconv.AppendFloat(b, r.Float64(), 'g', 3, 64)
		}
		b = append(b, '\n')
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestInterruptTrain sends SIGINT or SIGTERM to a training run: it must
// end within a second, say that the model is not converged, and write
// MODEL only with --save-partial.
func TestInterruptTrain(t *testing.T) {
	testkit.SkipEmulated(t, "the signal is timed for native speed; emulated, it comes while the data is still being read")
	dir := t.TempDir()
	binary := filepath.Join(dir, "binary.svm")
	multi := filepath.Join(dir, "multi.svm")
	writeNoisy(t, binary, 20000, 30, 3000, 2, 1)
	writeNoisy(t, multi, 20000, 30, 3000, 12, 2)
	wide := filepath.Join(dir, "wide.svm") // p >> n: slow for the LASSO
	writeNoisy(t, wide, 2000, 40, 20000, 2, 3)
	long := []string{"-c", "1000", "-e", "1e-9", "--max-epochs", "10000000"}
	for _, tc := range []struct {
		name  string
		sig   syscall.Signal
		flags []string
		data  string
		save  bool
	}{
		{"s3", syscall.SIGINT, append([]string{"-s", "3"}, long...), binary, false},
		{"s1-save", syscall.SIGTERM, append([]string{"-s", "1", "--save-partial"}, long...), binary, true},
		{"s7-multiclass", syscall.SIGTERM, append([]string{"-s", "7"}, long...), multi, false},
		{"s3-multiclass-save", syscall.SIGINT, append([]string{"-s", "3", "--save-partial"}, long...), multi, true},
		{"ww", syscall.SIGINT, append([]string{"-s", "ww"}, long...), multi, false},
		{"lasso-save", syscall.SIGINT, []string{"-s", "lasso", "--lambda", "1e-6", "-e", "1e-12", "--max-epochs", "10000000", "--save-partial"}, wide, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			model := filepath.Join(dir, tc.name+".model")
			old := []byte("not a model: must survive an interrupted run without --save-partial\n")
			if !tc.save {
				if err := os.WriteFile(model, old, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			var stdout, stderr bytes.Buffer
			c := acfcdCmd(t, append(append([]string{"train"}, tc.flags...), tc.data, model)...)
			c.Stdout, c.Stderr = &stdout, &stderr
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
			// Loading takes a few ms; give the solver time to get going.
			time.Sleep(700 * time.Millisecond)
			start := time.Now()
			if err := c.Process.Signal(tc.sig); err != nil {
				t.Fatalf("signal: %v (the run ended early: %s)", err, stderr.String())
			}
			err := c.Wait()
			took := time.Since(start)
			msg := stderr.String()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 1 {
				t.Fatalf("exit: %v, want status 1; stderr %q", err, msg)
			}
			if took >= time.Second {
				t.Errorf("took %v to stop after the signal, want < 1s", took)
			}
			t.Logf("%v: stopped %v after the signal: %s", tc.sig, took.Round(time.Millisecond), strings.TrimSpace(msg))
			if !strings.HasPrefix(msg, "acfcd: training interrupted after ") || !strings.Contains(msg, "the model is not converged") ||
				strings.Count(msg, "\n") != 1 {
				t.Errorf("stderr %q, want one line saying that the model is not converged", msg)
			}
			b, rerr := os.ReadFile(model)
			if tc.save {
				if !strings.Contains(msg, "saved it to "+model) {
					t.Errorf("stderr %q does not say where the model went", msg)
				}
				m, err := acfcd.LoadModel(model)
				if err != nil {
					t.Fatalf("--save-partial: %v", err)
				}
				if m.NumFeature == 0 || len(m.W) == 0 {
					t.Errorf("saved model: %d features, %d weights", m.NumFeature, len(m.W))
				}
			} else {
				if !strings.Contains(msg, "was not saved (--save-partial saves it)") {
					t.Errorf("stderr %q does not say that nothing was saved", msg)
				}
				if rerr != nil || !bytes.Equal(b, old) {
					t.Errorf("MODEL changed without --save-partial (%d bytes, %v)", len(b), rerr)
				}
			}
			checkNoTemp(t, dir)
		})
	}
}

// TestInterruptCrossValidation: SIGINT during train -v stops at once and
// names the folds that were training.
func TestInterruptCrossValidation(t *testing.T) {
	testkit.SkipEmulated(t, "the signal is timed for native speed; emulated, it can come before the handler is installed")
	dir := t.TempDir()
	data := filepath.Join(dir, "binary.svm")
	writeNoisy(t, data, 20000, 30, 3000, 2, 4)
	var stdout, stderr bytes.Buffer
	c := acfcdCmd(t, "train", "-v", "5", "-s", "3", "-c", "1000", "-e", "1e-9", "--max-epochs", "10000000", data)
	c.Stdout, c.Stderr = &stdout, &stderr
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(700 * time.Millisecond)
	start := time.Now()
	if err := c.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatalf("signal: %v (the run ended early: %s)", err, stderr.String())
	}
	err := c.Wait()
	took := time.Since(start)
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("exit: %v, want status 1; stderr %q", err, stderr.String())
	}
	if took >= time.Second {
		t.Errorf("took %v to stop after the signal, want < 1s", took)
	}
	msg := stderr.String()
	if !regexp.MustCompile(`^acfcd: cross validation interrupted in (fold [1-5]|folds [1-5](, [1-5])* and [1-5]): context canceled\n$`).MatchString(msg) || stdout.Len() != 0 {
		t.Errorf("stdout %q, stderr %q", stdout.String(), msg)
	}
}

// TestInterruptWhileReading interrupts train while it is still reading
// DATA (a pipe that never ends): it must exit at once with a message.
func TestInterruptWhileReading(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "data.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	var stderr bytes.Buffer
	model := filepath.Join(dir, "m")
	c := acfcdCmd(t, "train", fifo, model)
	c.Stderr = &stderr
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	// Opening the write end returns once train has opened the read end,
	// inside Load, after the signal handler is in place.
	w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.Write([]byte("+1 1:1\n-1 2:1\n"))
	time.Sleep(100 * time.Millisecond)
	start := time.Now()
	c.Process.Signal(syscall.SIGINT)
	err = c.Wait()
	took := time.Since(start)
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("exit: %v, want status 1; stderr %q", err, stderr.String())
	}
	want := "acfcd: interrupted while reading " + fifo + ": no model was trained or written\n"
	if stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
	if took >= time.Second {
		t.Errorf("took %v to stop", took)
	}
	if _, err := os.Stat(model); !os.IsNotExist(err) {
		t.Errorf("a model was written: %v", err)
	}
}

// checkNoTemp fails if dir holds a temporary file of atomicfile.
func checkNoTemp(t *testing.T, dir string) {
	t.Helper()
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if _, ok := atomicfile.IsTemp(e.Name()); ok {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}

// TestKillWhileWriting starts train and convert over an existing valid
// output again and again and kills them (SIGKILL) at random moments,
// half of them while the output is being written: the output must then be
// the old file byte for byte or the complete new one (the file a clean
// run writes). A killed process cannot remove its temporary file; those
// are counted and reported, not treated as corruption.
func TestKillWhileWriting(t *testing.T) {
	if testing.Short() {
		t.Skip("140 runs of acfcd, about 12 s (more under -race)")
	}
	const runs = 70 // each for train and convert
	dir := t.TempDir()
	// Few rows and many features: training is quick and the model file,
	// one line per feature, is large, so that kills often land mid-write.
	small := filepath.Join(dir, "wide.svm")
	writeNoisy(t, small, 2000, 100, 150000, 2, 3)
	big := filepath.Join(dir, "tall.svm")
	writeNoisy(t, big, 40000, 30, 3000, 2, 4)
	other := filepath.Join(dir, "other.svm")
	writeNoisy(t, other, 500, 10, 100, 2, 5)

	trainArgs := func(solverNo, out string) []string {
		return []string{"train", "-q", "-s", solverNo, "-B", "1", small, out}
	}
	t.Run("train", func(t *testing.T) {
		killTest(t, runs,
			func(out string) []string { return trainArgs("1", out) }, // old
			func(out string) []string { return trainArgs("3", out) }, // new
			func(path string) error { _, err := acfcd.LoadModel(path); return err })
	})
	t.Run("convert", func(t *testing.T) {
		killTest(t, runs,
			func(out string) []string { return []string{"convert", other, out} },
			func(out string) []string { return []string{"convert", big, out} },
			func(path string) error {
				d, err := dataio.Load(path, dataio.Options{})
				if err == nil {
					d.Close()
				}
				return err
			})
	})
}

func killTest(t *testing.T, runs int, oldArgs, newArgs func(out string) []string, load func(string) error) {
	dir := t.TempDir()
	ref := func(args func(string) []string, name string) []byte {
		out := filepath.Join(dir, name)
		if b, err := acfcdCmd(t, args(out)...).CombinedOutput(); err != nil {
			t.Fatalf("%q: %v\n%s", args(out), err, b)
		}
		if err := load(out); err != nil {
			t.Fatalf("the reference output does not load: %v", err)
		}
		b, _ := os.ReadFile(out)
		os.Remove(out)
		return b
	}
	oldB := ref(oldArgs, "old")
	start := time.Now()
	newB := ref(newArgs, "new")
	clean := time.Since(start)
	if again := ref(newArgs, "again"); !bytes.Equal(again, newB) {
		t.Fatal("two clean runs wrote different files")
	}
	if bytes.Equal(oldB, newB) {
		t.Fatal("old and new outputs are equal: the test would prove nothing")
	}

	out := filepath.Join(dir, "out")
	r := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1))
	var killed, midWrite, finished, sawOld, sawNew, corrupted, temps int
	for i := 0; i < runs; i++ {
		if err := os.WriteFile(out, oldB, 0o644); err != nil {
			t.Fatal(err)
		}
		c := acfcdCmd(t, newArgs(out)...)
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		if i%2 == 0 {
			// Anywhere in the run: start-up, reading, training, writing.
			time.Sleep(time.Duration(r.Int64N(int64(clean))))
		} else {
			// While the output is written: once the temporary file exists.
			deadline := time.Now().Add(5 * clean)
			for !hasTemp(dir) && time.Now().Before(deadline) {
				time.Sleep(200 * time.Microsecond)
			}
			time.Sleep(time.Duration(r.Int64N(int64(clean) / 10)))
		}
		c.Process.Kill()
		c.Wait()
		if ws, ok := c.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			killed++
		} else {
			finished++
		}
		b, err := os.ReadFile(out)
		switch {
		case err == nil && bytes.Equal(b, oldB):
			sawOld++
		case err == nil && bytes.Equal(b, newB):
			sawNew++
		default:
			corrupted++
			t.Errorf("run %d: output is neither the old nor the new file (%d bytes, %v)", i, len(b), err)
		}
		ents, _ := os.ReadDir(dir)
		left := false
		for _, e := range ents {
			if _, ok := atomicfile.IsTemp(e.Name()); ok {
				temps++
				left = true
				os.Remove(filepath.Join(dir, e.Name()))
			}
		}
		if left {
			midWrite++
		}
	}
	if sawNew > 0 {
		if err := load(out); err != nil && bytes.Equal(mustRead(t, out), newB) {
			t.Errorf("the new output does not load: %v", err)
		}
	}
	t.Logf("%d runs (clean run %v): %d killed (%d of them with a temporary file left, i.e. mid-write), %d finished first; "+
		"output old %d, new %d, corrupted %d; stale temporary files %d (removed)",
		runs, clean.Round(time.Millisecond), killed, midWrite, finished, sawOld, sawNew, corrupted, temps)
	if midWrite == 0 {
		t.Errorf("no kill landed while the output was written: the test did not test much")
	}
}

func hasTemp(dir string) bool {
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if _, ok := atomicfile.IsTemp(e.Name()); ok {
			return true
		}
	}
	return false
}

func mustRead(t *testing.T, path string) []byte {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestBadFilesMessages gives train, convert, predict and info files they
// cannot use: each run must exit with status 1 and one line on stderr
// that names the file and the problem, before any training.
func TestBadFilesMessages(t *testing.T) {
	dir := t.TempDir()
	data := writeProblem(t, dir, "data.svm", 50, 7)
	model := filepath.Join(dir, "data.model")
	if _, _, err := runCmd(t, "train", "-q", data, model); err != nil {
		t.Fatal(err)
	}
	folder := filepath.Join(dir, "folder")
	os.Mkdir(folder, 0o755)
	missing := filepath.Join(dir, "no", "such")
	aFile := filepath.Join(dir, "a-file")
	os.WriteFile(aFile, []byte("x"), 0o644)
	// /dev/full fails every write with ENOSPC, as a full disk does. It is
	// reached through a link: should a regression ever rename a file over
	// the target instead of writing to the device, only the link goes.
	full := filepath.Join(dir, "full")
	if st, err := os.Stat("/dev/full"); err != nil || st.Mode()&os.ModeCharDevice == 0 || os.Symlink("/dev/full", full) != nil {
		full = ""
	}
	unreadable := filepath.Join(dir, "unreadable.svm")
	os.WriteFile(unreadable, []byte("+1 1:1\n"), 0o000)

	cases := []struct {
		name string
		args []string
		want string
		skip string
	}{
		{"train: DATA is a directory", []string{"train", folder, filepath.Join(dir, "m1")}, folder + ": is a directory, not a data file", ""},
		{"train: DATA does not exist", []string{"train", missing, filepath.Join(dir, "m2")}, "open " + missing + ": no such file or directory", ""},
		{"train: DATA unreadable", []string{"train", unreadable, filepath.Join(dir, "m3")}, "open " + unreadable + ": permission denied",
			map[bool]string{true: "running as root: chmod 000 does not deny reading"}[os.Geteuid() == 0]},
		{"train: MODEL folder missing", []string{"train", data, filepath.Join(missing, "m")}, "write " + filepath.Join(missing, "m") + ": folder " + missing + " does not exist", ""},
		{"train: MODEL folder is a file", []string{"train", data, filepath.Join(aFile, "m")}, "write " + filepath.Join(aFile, "m") + ": " + aFile + " is not a folder", ""},
		{"train: MODEL is a directory", []string{"train", data, folder}, "write " + folder + ": is a directory", ""},
		{"train: disk full", []string{"train", "-q", data, full}, "write " + full + ": no space left on device", map[bool]string{true: "no /dev/full"}[full == ""]},
		{"convert: DATA is a directory", []string{"convert", folder, filepath.Join(dir, "c1")}, folder + ": is a directory, not a data file", ""},
		{"convert: OUT folder missing", []string{"convert", data, filepath.Join(missing, "c")}, "write " + filepath.Join(missing, "c") + ": folder " + missing + " does not exist", ""},
		{"convert: OUT is a directory", []string{"convert", data, folder}, "write " + folder + ": is a directory", ""},
		{"convert: OUT is a device", []string{"convert", data, full}, "write " + full + ": no space left on device", map[bool]string{true: "no /dev/full"}[full == ""]},
		{"predict: MODEL is a directory", []string{"predict", data, folder, filepath.Join(dir, "o1")}, folder + ": is a directory, not a model file", ""},
		{"predict: DATA is a directory", []string{"predict", folder, model, filepath.Join(dir, "o2")}, folder + ": is a directory, not a data file", ""},
		{"predict: OUT folder missing", []string{"predict", data, model, filepath.Join(missing, "o")}, "write " + filepath.Join(missing, "o") + ": folder " + missing + " does not exist", ""},
		{"predict: disk full", []string{"predict", "-q", data, model, full}, "write " + full + ": no space left on device", map[bool]string{true: "no /dev/full"}[full == ""]},
		{"info: DATA is a directory", []string{"info", folder}, folder + ": is a directory, not a data file", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.skip != "" {
				t.Skip(tc.skip)
			}
			// In process: the error itself.
			_, _, err := runCmd(t, tc.args...)
			var ue usageError
			if err == nil || errors.As(err, &ue) || err.Error() != tc.want {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
			// As a program: status 1 and that one line.
			var stderr bytes.Buffer
			c := acfcdCmd(t, tc.args...)
			c.Stderr = &stderr
			err = c.Run()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 1 {
				t.Errorf("exit %v, want status 1", err)
			}
			if got := stderr.String(); got != "acfcd: "+tc.want+"\n" {
				t.Errorf("stderr %q, want %q", got, "acfcd: "+tc.want+"\n")
			}
		})
	}
	if st, err := os.Stat("/dev/full"); err == nil && st.Mode()&os.ModeCharDevice == 0 {
		t.Fatal("/dev/full is no longer a device")
	}
	// Nothing was written next to the outputs that failed.
	checkNoTemp(t, dir)
	for _, name := range []string{"m1", "m2", "m3", "c1", "o1", "o2"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			t.Errorf("%s was written", name)
		}
	}
}
