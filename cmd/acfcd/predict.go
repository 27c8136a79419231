package main

import (
	"bufio"
	"fmt"
	"io"
	"strconv"

	"github.com/acfcd/acfcd"
	"github.com/acfcd/acfcd/internal/atomicfile"
	"github.com/acfcd/acfcd/model"
)

func runPredict(stdout, stderr io.Writer, args []string) error {
	fs := newFlagSet("predict", stderr)
	prob := fs.Int("b", 0, "1: write probability estimates (logistic regression models only)")
	quiet := fs.Bool("q", false, "quiet: do not print the accuracy")
	var df dataFlags
	df.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 3 {
		fs.Usage()
		return usagef("predict takes DATA, MODEL and OUT")
	}
	if *prob != 0 && *prob != 1 {
		return usagef("-b %d: must be 0 or 1", *prob)
	}
	if err := atomicfile.Check(fs.Arg(2)); err != nil { // before the reading
		return err
	}
	m, err := acfcd.LoadModel(fs.Arg(1))
	if err != nil {
		return err
	}
	if *prob == 1 && m.SolverType != "L2R_LR" && m.SolverType != "L2R_LR_DUAL" && m.SolverType != "L1R_LR" {
		return fmt.Errorf("%s: probability output (-b 1) is only for logistic regression models, not %s", fs.Arg(1), m.SolverType)
	}
	opt := df.options()
	opt.Float32 = false // prediction reads float64 rows
	d, err := acfcd.Load(fs.Arg(0), opt)
	if err != nil {
		return err
	}
	defer d.Close()

	ev, err := acfcd.Evaluate(m, d)
	if err != nil {
		return err
	}
	probs := make([]float64, max(1, len(m.Labels)))
	err = atomicfile.Write(fs.Arg(2), func(w *bufio.Writer) error {
		if *prob == 1 {
			w.WriteString("labels")
			for _, l := range m.Labels {
				fmt.Fprintf(w, " %.6g", l)
			}
			w.WriteByte('\n')
		}
		buf := make([]byte, 0, 64)
		digits := 17 // liblinear-predict prints "%.17g" (regression values exactly) ...
		if *prob == 1 {
			digits = 6 // ... and with -b 1 "%g"
		}
		for i, y := range ev.Predicted {
			buf = strconv.AppendFloat(buf[:0], y, 'g', digits, 64)
			w.Write(buf)
			if *prob == 1 {
				idx, val := d.Row(i)
				if err := m.Probability(idx, val, probs); err != nil {
					return err
				}
				for _, p := range probs {
					fmt.Fprintf(w, " %.6g", p)
				}
			}
			w.WriteByte('\n')
		}
		return nil
	})
	if err != nil {
		return err
	}
	if *quiet || d.Rows == 0 {
		return nil
	}
	if st, _ := model.LookupSolverType(m.SolverType); m.IsClassifier() || st.Kind == model.OneClass {
		fmt.Fprintf(stdout, "Accuracy = %.6g%% (%d/%d)\n", ev.Accuracy, ev.Correct, ev.Rows)
		return nil
	}
	fmt.Fprintf(stdout, "Mean squared error = %.6g (regression)\n", ev.MSE)
	fmt.Fprintf(stdout, "Squared correlation coefficient = %.6g (regression)\n", ev.R2)
	return nil
}
