package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/acfcd/acfcd/bench/internal/benchkit"
)

// csvHeader are the CSV columns, one row per run.
var csvHeader = []string{"problem", "variant", "s", "set", "file", "param", "value", "lambda", "eps",
	"eps_abs", "tool", "round", "status", "seconds", "cpu_s", "process_s", "baseline_s",
	"steps", "epochs", "operations", "objective", "primal", "gap", "violation",
	"lasso_F", "F_rel_sklearn", "nnz_w", "test_acc", "time_limit_s", "note"}

// csvFloat is benchkit.CSVFloat with ±Inf, unknown here too, empty.
func csvFloat(v float64) string {
	if math.IsInf(v, 0) {
		return ""
	}
	return benchkit.CSVFloat(v)
}

// writeCSV writes every run, numbers in full precision, unknown = empty.
// scikit-learn's runs have an empty eps (their tolerance is eps_abs); the
// liblinear baselines have tool liblinear-baseline and eps 1e+30.
func writeCSV(w io.Writer, runs []*runRec) error {
	cw := csv.NewWriter(w)
	cw.Write(csvHeader)
	for _, r := range runs {
		c := r.Cfg
		s := ""
		if c.Problem == probSVM || c.Problem == probLR {
			s = strconv.Itoa(c.S)
		}
		eps := csvFloat(c.Eps)
		if r.Tool == toolSklearn {
			eps = ""
		}
		nnz := ""
		if r.NNZ >= 0 {
			nnz = strconv.Itoa(r.NNZ)
		}
		cw.Write([]string{c.Problem, c.Variant(), s, c.Set, c.File, c.valueKey(), csvFloat(c.Value),
			csvFloat(r.Lambda), eps, csvFloat(r.EpsAbs), r.Tool, strconv.Itoa(r.Round), r.Status,
			csvFloat(r.Sec), csvFloat(r.CPU), csvFloat(r.Wall), csvFloat(r.Baseline),
			benchkit.CSVInt(r.Steps), benchkit.CSVInt(r.Epochs), benchkit.CSVInt(r.Ops), csvFloat(r.Objective), csvFloat(r.Primal),
			csvFloat(r.Gap), csvFloat(r.Violation), csvFloat(r.Eval), csvFloat(r.ObjRel), nnz,
			csvFloat(r.TestAcc), csvFloat(r.Timeout), r.Note})
	}
	cw.Flush()
	return cw.Error()
}

// benchName is a run's name in Go benchmark format: key=value parts, so
// that benchstat can pick rows and columns by key, e.g.
// Paper/problem=svm/s=3/set=a9a/C=1/select=acf/eps=0.01.
func benchName(r *runRec, skTol float64) string {
	c := r.Cfg
	var b strings.Builder
	b.WriteString("Paper/problem=" + c.Problem)
	if c.Problem == probSVM {
		b.WriteString("/s=" + strconv.Itoa(c.S))
	}
	b.WriteString("/set=" + benchSafe(c.Set))
	b.WriteString("/" + c.valueKey() + "=" + c.valueText())
	b.WriteString("/select=" + r.Tool)
	if r.Tool == toolSklearn {
		b.WriteString("/eps=tol" + fmtNum(skTol))
	} else {
		b.WriteString("/eps=" + fmtNum(c.Eps))
	}
	return b.String()
}

// benchSafe replaces what a benchmark name cannot hold (white space, '/').
func benchSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == ' ' || r == '\t' || r == '\n' {
			return '_'
		}
		return r
	}, s)
}

// writeBenchfmt writes the runs in Go benchmark format: a header with the
// cpu line (cpuid's brand string, as `go test -bench` prints it), then one
// line per run with ns/op (the training time of the tables), and where
// known iters (CD steps), ops (non-zeros touched) and epochs. A run
// stopped at the time limit carries "1 timeouts" (its ns/op is the limit,
// a lower bound) and one stopped at its epoch cap "1 caps". Failed runs
// (errors) and liblinear's baselines are not benchmarks and are left out.
func writeBenchfmt(w io.Writer, runs []*runRec, m machine, skTol float64) error {
	fmt.Fprintf(w, "goos: %s\ngoarch: %s\npkg: github.com/acfcd/acfcd/bench/paper\ncpu: %s\n", m.OS, m.Arch, m.CPU)
	for _, r := range runs {
		if r.Tool == toolBaseline || r.Status == stError || math.IsNaN(r.Sec) {
			continue
		}
		line := fmt.Sprintf("Benchmark%s 1 %d ns/op", benchName(r, skTol), int64(math.Round(r.Sec*1e9)))
		if r.Steps >= 0 {
			line += fmt.Sprintf(" %d iters", r.Steps)
		}
		if r.Ops >= 0 {
			line += fmt.Sprintf(" %d ops", r.Ops)
		}
		if r.Epochs >= 0 {
			line += fmt.Sprintf(" %d epochs", r.Epochs)
		}
		switch r.Status {
		case stTimeout:
			line += " 1 timeouts"
		case stCap:
			line += " 1 caps"
		}
		if _, err := fmt.Fprintln(w, line); err != nil {
			return err
		}
	}
	return nil
}
