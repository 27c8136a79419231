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

// Formatting helpers: "–" stands for "not known / not applicable".
const dash = "–"

func fmtInt(v int64) string {
	if v < 0 {
		return dash
	}
	return strconv.FormatInt(v, 10)
}

func fmtG(v float64, digits int) string {
	if math.IsNaN(v) {
		return dash
	}
	return strconv.FormatFloat(v, 'g', digits, 64)
}

func fmtSec(v float64) string {
	if math.IsNaN(v) {
		return dash
	}
	switch {
	case v < 0.01:
		return fmt.Sprintf("%.4f", v)
	case v < 10:
		return fmt.Sprintf("%.3f", v)
	}
	return fmt.Sprintf("%.1f", v)
}

func fmtExcess(v float64) string {
	switch {
	case math.IsNaN(v):
		return dash
	case v == 0:
		return "0"
	}
	return fmt.Sprintf("%.1e", v)
}

func fmtRatio(v float64) string {
	if math.IsNaN(v) {
		return dash
	}
	return fmt.Sprintf("%.2f", v)
}

// mdHeader explains the columns of the benchmark table.
const mdHeader = `Columns: **steps** = acfcd coordinate-descent steps (Result.Iterations); **epochs** = acfcd
Result.Epochs, for liblinear-type tools Σ "#iter" (outer sweeps) over subproblems; **ops** = non-zeros
touched by acfcd; **total s** = acfcd: read the text file + train + write the model, in process;
liblinear-type tools: wall time of the whole train process (parse + train + write; liblinear reports
no training-only time); **cpu s** = user+sys CPU seconds of the same span (acfcd: whole
process, GC and parse goroutines included; less disturbed than wall time on a loaded machine);
**train s** = acfcd training only (wall); **dual** = minimised dual objective in
liblinear's printed convention ("Objective value", six decimals for liblinear); **primal** =
½‖w‖² + C·Σloss evaluated by this harness from each tool's model (bias weight regularised);
**excess** = (primal − best primal of the configuration)/|best|; **status** = ok / cap (epoch or
iteration cap) / timeout / error; **×2.3.0** = total s ÷ liblinear 2.3.0's total s, and
**cpu ×2.3.0** likewise for cpu s. liblinear 2.3.0 links OpenBLAS (unused by these solvers),
whose start-up threads can put its cpu s above its wall time.
`

// writeMarkdown writes the benchmark table of rows.
func writeMarkdown(w io.Writer, rows []*row, o *options) {
	fmt.Fprintf(w, "## acfcd vs liblinear-train\n\n")
	fmt.Fprintf(w, "-e %g, -B %g, timeout %s, rounds %d (median times), acfcd parse threads %s.\n\n",
		o.Eps, o.Bias, o.Timeout, o.Rounds, threadsText(o.Threads))
	fmt.Fprint(w, mdHeader, "\n")
	fmt.Fprintln(w, "| set | -s | C | tool | steps | epochs | ops | total s | cpu s | train s | dual | primal | excess | status | ×2.3.0 | cpu ×2.3.0 |")
	fmt.Fprintln(w, "|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|")
	for _, r := range rows {
		total := fmtSec(r.Total)
		if r.Status == "timeout" {
			total = ">" + o.Timeout.String()
		}
		status := r.Status
		if r.Note != "" && r.Status == "error" {
			status = "error: " + firstLine(r.Note)
		}
		fmt.Fprintf(w, "| %s | %d | %g | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
			r.Config.Set, r.Config.S, r.Config.C, r.Tool,
			fmtInt(r.Steps), fmtInt(r.Epochs), fmtInt(r.Ops),
			total, fmtSec(r.CPU), fmtSec(r.Train), fmtG(r.Dual, 10), fmtG(r.Primal, 10),
			fmtExcess(r.Excess), benchkit.MDEscape(status), fmtRatio(r.Ratio), fmtRatio(r.CPURatio))
	}
	fmt.Fprintln(w)
}

func threadsText(n int) string {
	if n == 0 {
		return "GOMAXPROCS"
	}
	return strconv.Itoa(n)
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 120 {
		s = s[:120] + "…"
	}
	return s
}

// writeCSV writes rows with every number in full precision.
func writeCSV(w io.Writer, rows []*row) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"set", "s", "C", "eps", "tool", "steps", "epochs", "operations",
		"total_s", "train_s", "cpu_s", "times_s", "dual", "primal", "primal_excess",
		"grad_inf", "gap", "violation", "status", "ratio_vs_2.3.0", "cpu_ratio_vs_2.3.0", "note"})
	for _, r := range rows {
		times := make([]string, len(r.Times))
		for i, t := range r.Times {
			times[i] = benchkit.CSVFloat(t)
		}
		cw.Write([]string{r.Config.Set, strconv.Itoa(r.Config.S), benchkit.CSVFloat(r.Config.C),
			benchkit.CSVFloat(r.Config.Eps), r.Tool, benchkit.CSVInt(r.Steps), benchkit.CSVInt(r.Epochs), benchkit.CSVInt(r.Ops),
			benchkit.CSVFloat(r.Total), benchkit.CSVFloat(r.Train), benchkit.CSVFloat(r.CPU), strings.Join(times, " "),
			benchkit.CSVFloat(r.Dual), benchkit.CSVFloat(r.Primal), benchkit.CSVFloat(r.Excess), benchkit.CSVFloat(r.GradInf),
			benchkit.CSVFloat(r.Gap), benchkit.CSVFloat(r.Violation), r.Status, benchkit.CSVFloat(r.Ratio), benchkit.CSVFloat(r.CPURatio), r.Note})
	}
	cw.Flush()
	return cw.Error()
}
