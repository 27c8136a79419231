package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/acfcd/acfcd"
	"github.com/acfcd/acfcd/internal/atomicfile"
	dataio "github.com/acfcd/acfcd/io"
	"github.com/acfcd/acfcd/model"
)

func runPredict(stdout, stderr io.Writer, args []string) error {
	fs := newFlagSet("predict", stdout)
	prob := fs.Int("b", 0, "probability_estimates: whether to output probability estimates, 0 or 1 (default 0);\ncurrently for logistic regression only")
	quiet := fs.Bool("q", false, "quiet mode (no outputs)")
	report := fs.String("report", "", "json: print the accuracy (or MSE and r²) as one JSON object after liblinear's lines")
	var df dataFlags
	df.register(fs)
	fs.help = func(w io.Writer) {
		fmt.Fprint(w, `usage: acfcd predict [options] DATA MODEL OUT

Predicts every example of DATA (- for standard input) with MODEL (a liblinear
model file, or acfcd's; - for standard input) and writes one prediction per
line to OUT (- for standard output), as liblinear-predict: labels and values
with all 17 significant digits, so that they read back exactly. Every line of
DATA must hold an example (blank and comment-only lines are refused, as
liblinear-predict refuses them), so that line k of OUT is the prediction of
line k of DATA. Prints the accuracy, or for regression models the mean squared
error and squared correlation coefficient, after the predictions (on stderr
when OUT is -, which then holds the predictions alone). DATA is read in
blocks: memory does not grow with its size.

options:
`)
		printFlags(w, fs.FlagSet, nil)
	}
	if err := fs.parse(args); err != nil {
		return err
	}
	if fs.NArg() != 3 {
		return fs.args("predict takes DATA, MODEL and OUT")
	}
	if *prob != 0 && *prob != 1 {
		return usagef("-b %d: must be 0 or 1", *prob)
	}
	dataPath, modelPath, outPath := fs.Arg(0), fs.Arg(1), fs.Arg(2)
	if dataPath == "-" && modelPath == "-" {
		return fs.args("predict: DATA and MODEL cannot both come from standard input")
	}
	if *report != "" && *report != "json" {
		return usagef("--report %q: the only report format is json", *report)
	}
	info := stdout
	if outPath == "-" {
		// Standard output holds the predictions alone; OUT = /dev/stdout,
		// liblinear's idiom, gets liblinear's lines after them.
		info = stderr
	}
	if outPath != "-" {
		if err := atomicfile.Check(outPath, dataPath, modelPath); err != nil { // before the reading
			return err
		}
	} else if err := stdoutOpen(stdout); err != nil {
		return fmt.Errorf("write predictions to standard output: %w", err)
	}
	var m *acfcd.Model
	var err error
	if modelPath == "-" {
		m, err = acfcd.ReadModel(bufio.NewReader(os.Stdin), "stdin")
	} else {
		m, err = acfcd.LoadModel(modelPath)
	}
	if err != nil {
		return err
	}
	if *prob == 1 && m.SolverType != "L2R_LR" && m.SolverType != "L2R_LR_DUAL" && m.SolverType != "L1R_LR" {
		return fmt.Errorf("%s: probability output (-b 1) is only for logistic regression models, not %s", modelPath, m.SolverType)
	}
	opt := df.options()
	opt.Float32 = false     // prediction reads float64 rows
	opt.NoBlankLines = true // one prediction per line of DATA
	// DATA is read in blocks as the predictions are written, so that
	// memory does not grow with it; its errors are not write errors.
	ev := acfcd.NewEvaluator(m)
	var dataErr error
	fill := func(w *bufio.Writer) error {
		if *prob == 1 {
			writeLabels(w, m)
		}
		var pred []float64
		var werr error
		err := acfcd.Scan(dataPath, opt, func(_ int, d *acfcd.Dataset) error {
			var err error
			if pred, err = ev.Add(d, pred[:0]); err != nil {
				return err
			}
			werr = writePredictions(w, m, d, pred, *prob == 1)
			return werr
		})
		if err != nil && err != werr {
			dataErr = err
		}
		return err
	}
	if outPath == "-" {
		bw := bufio.NewWriterSize(stdout, 256<<10)
		err = fill(bw)
		if err == nil {
			err = bw.Flush()
		}
		if err != nil && dataErr == nil {
			return fmt.Errorf("write predictions to standard output: %w", err)
		}
	} else if err := atomicfile.Write(outPath, fill); err != nil && dataErr == nil {
		return err
	}
	if dataErr != nil {
		var pe *dataio.ParseError
		if errors.As(dataErr, &pe) && isBlankLineError(pe) {
			return fmt.Errorf("%w (acfcd predict writes one line for each line of DATA)", dataErr)
		}
		return dataErr
	}
	e := ev.Evaluation()
	if *quiet || e.Rows == 0 {
		return nil
	}
	rep := predictReport{Rows: e.Rows}
	if kindOf(m) == model.Regression {
		fmt.Fprintf(info, "Mean squared error = %s (regression)\n", cG(e.MSE))
		fmt.Fprintf(info, "Squared correlation coefficient = %s (regression)\n", cG(e.R2))
		rep.MSE, rep.R2 = ptrNum(e.MSE), ptrNum(e.R2)
	} else {
		fmt.Fprintf(info, "Accuracy = %s%% (%d/%d)\n", cG(e.Accuracy), e.Correct, e.Rows)
		rep.Accuracy, rep.Correct = ptrNum(e.Accuracy), &e.Correct
	}
	if *report == "json" {
		return writeJSON(info, rep)
	}
	return nil
}

// predictReport is predict's --report json object.
type predictReport struct {
	Rows     int      `json:"rows"`
	Accuracy *jsonNum `json:"accuracy,omitempty"`
	Correct  *int     `json:"correct,omitempty"`
	MSE      *jsonNum `json:"mse,omitempty"`
	R2       *jsonNum `json:"r2,omitempty"`
}

// writeLabels writes the first line of a -b 1 output file: "labels" and
// the labels as integers.
func writeLabels(w *bufio.Writer, m *acfcd.Model) {
	buf := append(make([]byte, 0, 64), "labels"...)
	for _, l := range m.Labels {
		buf = append(buf, ' ')
		buf = strconv.AppendFloat(buf, l, 'f', -1, 64) // integers: C's "%d"
	}
	buf = append(buf, '\n')
	w.Write(buf)
}

// writePredictions writes the lines of liblinear-predict's output file for
// the examples of d, whose predictions are predicted: the prediction as
// C's "%.17g" (a label or regression value that reads back exactly); with
// probabilities (-b 1, after writeLabels), each probability as "%g".
//
// liblinear-predict writes the label of a -b 1 line with "%g", six digits,
// which turns label 1234567 into 1.23457e+06; acfcd writes all its digits
// there too (the same text for labels below 10^6).
func writePredictions(w *bufio.Writer, m *acfcd.Model, d *acfcd.Dataset, predicted []float64, probability bool) error {
	var probs []float64
	buf := make([]byte, 0, 64)
	if probability {
		probs = make([]float64, max(1, len(m.Labels)))
	}
	for i, y := range predicted {
		buf = appendG17(buf[:0], y)
		if probability {
			idx, val := d.Row(i)
			if err := m.Probability(idx, val, probs); err != nil {
				return err
			}
			for _, p := range probs {
				buf = append(buf, ' ')
				buf = append(buf, cG(p)...)
			}
		}
		buf = append(buf, '\n')
		if _, err := w.Write(buf); err != nil {
			return err
		}
	}
	return nil
}

// appendG17 appends x as C's "%.17g" writes a double: the shortest text
// of 17 significant digits, which reads back as the same double.
func appendG17(b []byte, x float64) []byte {
	if s, ok := cSpecial(x); ok {
		return append(b, s...)
	}
	return strconv.AppendFloat(b, x, 'g', 17, 64)
}
