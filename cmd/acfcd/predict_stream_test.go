package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acfcd/acfcd"
	dataio "github.com/acfcd/acfcd/io"
	"github.com/acfcd/acfcd/model"
)

// wholePredict is acfcd predict as it was before it streamed DATA: Load
// the whole file, Evaluate, write every line, then print. It returns the
// output file's bytes and the printed lines.
func wholePredict(t *testing.T, data, mdl string, probability bool) ([]byte, string) {
	t.Helper()
	m, err := acfcd.LoadModel(mdl)
	if err != nil {
		t.Fatal(err)
	}
	d, err := acfcd.Load(data, acfcd.Options{NoBlankLines: true})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	ev, err := acfcd.Evaluate(m, d)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	w := bufio.NewWriter(&out)
	if probability {
		writeLabels(w, m)
	}
	if err := writePredictions(w, m, d, ev.Predicted, probability); err != nil {
		t.Fatal(err)
	}
	w.Flush()
	printed := fmt.Sprintf("Accuracy = %s%% (%d/%d)\n", cG(ev.Accuracy), ev.Correct, ev.Rows)
	if kindOf(m) == model.Regression {
		printed = fmt.Sprintf("Mean squared error = %s (regression)\nSquared correlation coefficient = %s (regression)\n", cG(ev.MSE), cG(ev.R2))
	}
	return out.Bytes(), printed
}

// bigPredictData writes about 12 MB of libsvm text, three of the blocks
// acfcd predict reads at a time (4 MiB), with labels -1, 1 and 2 and
// values that round differently, so that the sums depend on their order.
func bigPredictData(t *testing.T, dir string) string {
	t.Helper()
	r := rand.New(rand.NewPCG(5, 6))
	var b strings.Builder
	for b.Len() < 12<<20 {
		fmt.Fprintf(&b, "%d", []int{-1, 1, 2}[r.IntN(3)])
		for j := 1; j <= 30; j++ {
			if r.IntN(3) == 0 {
				fmt.Fprintf(&b, " %d:%.6g", j, r.NormFloat64())
			}
		}
		b.WriteByte('\n')
	}
	return writeText(t, dir, "big.svm", b.String())
}

// TestPredictStreamed: acfcd predict, which reads DATA in blocks while it
// writes, writes the file and prints the lines that loading the whole of
// DATA first gives, byte for byte (the regression sums in the same
// order), for a binary and a multi-class classifier, Crammer–Singer, a
// regression (-s 11) and -b 1 with -s 0 (also from gzip DATA), to a file
// and to standard output.
func TestPredictStreamed(t *testing.T) {
	if testing.Short() {
		t.Skip("predicts 12 MB of data")
	}
	dir := t.TempDir()
	big := bigPredictData(t, dir)
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(mustRead(t, big))
	zw.Close()
	bigGz := writeText(t, dir, "big.svm.gz", z.String())
	train := writeProblem(t, dir, "train.svm", 300, 21)
	var mc strings.Builder
	r := rand.New(rand.NewPCG(8, 9))
	for range 300 {
		y := []int{-1, 1, 2}[r.IntN(3)]
		fmt.Fprintf(&mc, "%d 1:%.3g 2:%.3g 5:%.3g 7:1\n", y, float64(y)+r.Float64(), r.Float64(), r.NormFloat64())
	}
	multi := writeText(t, dir, "multi.svm", mc.String())
	for _, c := range []struct {
		name, data string
		train      []string
		prob       bool
	}{
		{"binary -s 1", train, []string{"-s", "1"}, false},
		{"multi-class -s 2", multi, []string{"-s", "2"}, false},
		{"Crammer-Singer -s 4", multi, []string{"-s", "4"}, false},
		{"regression -s 11", multi, []string{"-s", "11"}, false},
		{"-b 1 -s 0", multi, []string{"-s", "0"}, true},
	} {
		mdl := filepath.Join(dir, strings.Fields(c.name)[0]+".model")
		if _, _, err := runCmd(t, append(append([]string{"train", "-q"}, c.train...), c.data, mdl)...); err != nil {
			t.Fatal(err)
		}
		want, wantPrinted := wholePredict(t, big, mdl, c.prob)
		var flags []string
		if c.prob {
			flags = []string{"-b", "1"}
		}
		inputs := []string{big}
		if c.prob {
			inputs = append(inputs, bigGz)
		}
		for _, data := range inputs {
			out := filepath.Join(dir, "out")
			stdout, _, err := runCmd(t, append(append([]string{"predict"}, flags...), data, mdl, out)...)
			if err != nil {
				t.Fatal(err)
			}
			if got := mustRead(t, out); !bytes.Equal(got, want) {
				t.Errorf("%s, %s: the output file differs from the whole dataset's (%d and %d bytes)", c.name, data, len(got), len(want))
			}
			if stdout != wantPrinted {
				t.Errorf("%s, %s: prints %q, want %q", c.name, data, stdout, wantPrinted)
			}
		}
		stdout, stderr, err := runCmd(t, append(append([]string{"predict"}, flags...), big, mdl, "-")...)
		if err != nil {
			t.Fatal(err)
		}
		if stdout != string(want) || stderr != wantPrinted {
			t.Errorf("%s to standard output: %d bytes and %q, want %d bytes and %q", c.name, len(stdout), stderr, len(want), wantPrinted)
		}
	}
}

// TestPredictStreamedErrors: a bad line far into DATA, in a later block
// than the first, is reported as loading the whole file reports it (file,
// line, column, and for a blank line why it is refused), and no output
// file is left.
func TestPredictStreamedErrors(t *testing.T) {
	if testing.Short() {
		t.Skip("predicts 12 MB of data")
	}
	dir := t.TempDir()
	big := bigPredictData(t, dir)
	text := string(mustRead(t, big))
	mdl := filepath.Join(dir, "m")
	if _, _, err := runCmd(t, "train", "-q", writeProblem(t, dir, "train.svm", 100, 3), mdl); err != nil {
		t.Fatal(err)
	}
	cut := strings.IndexByte(text[3*len(text)/4:], '\n') + 3*len(text)/4 + 1
	for name, insert := range map[string]string{"blank": "\n", "comment": "# late\n", "syntax": "1 2:0.5 1:1\n"} {
		data := writeText(t, dir, name+".svm", text[:cut]+insert+text[cut:])
		_, werr := acfcd.Load(data, acfcd.Options{NoBlankLines: true})
		var pe *dataio.ParseError
		if !errors.As(werr, &pe) || pe.Line < 50000 {
			t.Fatalf("%s: Load: %v", name, werr)
		}
		want := werr.Error()
		if name != "syntax" {
			want += " (acfcd predict writes one line for each line of DATA)"
		}
		out := filepath.Join(dir, "out")
		_, _, err := runCmd(t, "predict", data, mdl, out)
		if err == nil || err.Error() != want {
			t.Errorf("%s: error %v, want %q", name, err, want)
		}
		if !errors.As(err, &pe) {
			t.Errorf("%s: %T is no *dataio.ParseError", name, err)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: predictions were written", name)
		}
		if _, _, err := runCmd(t, "predict", data, mdl, "-"); err == nil || err.Error() != want {
			t.Errorf("%s to standard output: error %v, want %q", name, err, want)
		}
	}
}
