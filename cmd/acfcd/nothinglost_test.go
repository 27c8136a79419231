package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// Negative reader options are usage errors (exit status 2), named as
// flags; they used to be accepted.
func TestNegativeReaderOptions(t *testing.T) {
	dir := t.TempDir()
	data := writeProblem(t, dir, "d.svm", 20, 3)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"train", "--threads", "-1", data, filepath.Join(dir, "m")}, "--threads -1: a thread count cannot be negative (0: all cores)"},
		{[]string{"info", "--max-features", "-1", data}, "--max-features -1: a feature cap cannot be negative (0: the int32 limit)"},
	} {
		_, _, err := runCmd(t, c.args...)
		if _, usage := err.(usageError); !usage || err.Error() != c.want {
			t.Errorf("%q: %T %v\nwant usage error %s", c.args, err, err, c.want)
		}
	}
}

// A MODEL name of 241 to 255 bytes is written: the temporary name beside
// it used to exceed the system's 255 and the run failed after training.
func TestLongModelName(t *testing.T) {
	dir := t.TempDir()
	data := writeProblem(t, dir, "d.svm", 20, 3)
	for _, n := range []int{241, 255} {
		mdl := filepath.Join(dir, strings.Repeat("m", n))
		if _, _, err := runCmd(t, "train", "-q", data, mdl); err != nil {
			t.Errorf("%d bytes: %v", n, err)
		}
		if _, _, err := runCmd(t, "predict", "-q", data, mdl, mdl[:len(mdl)-1]+"p"); err != nil {
			t.Errorf("predict to %d bytes: %v", n, err)
		}
	}
}
