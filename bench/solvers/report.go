package main

import (
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"strings"

	"github.com/acfcd/acfcd/bench/internal/benchkit"
)

// excess is acfcd's primal objective above the best liblinear's,
// relative to it (≤ 0: acfcd's model is at least as good), and that best.
func (r *result) excess() (float64, string) {
	a := r.tools[0]
	if a.status != "ok" {
		return math.NaN(), ""
	}
	best, who := math.Inf(1), ""
	for _, t := range r.tools[1:] {
		if t != nil && t.status == "ok" && t.primal < best {
			best, who = t.primal, t.name
		}
	}
	if who == "" {
		return math.NaN(), ""
	}
	return (a.primal - best) / math.Abs(best), who
}

// dualExcess is acfcd's dual objective (minimised) above liblinear
// 2.50's printed one, relative, allowing for its six printed decimals per
// subproblem; NaN when either has none.
func (r *result) dualExcess() float64 {
	a, l := r.tools[0], r.tools[1]
	if a.status != "ok" || l.status != "ok" || math.IsNaN(a.dual) || math.IsNaN(l.dual) {
		return math.NaN()
	}
	return (a.dual - l.dual - 5e-7*float64(max(1, a.model.NrW))) / math.Abs(l.dual)
}

// ratio is the median seconds of tool k divided by acfcd's.
func (r *result) ratio(k int) float64 {
	t, a := r.tools[k], r.tools[0]
	if t == nil || t.status != "ok" || a.status != "ok" {
		return math.NaN()
	}
	return benchkit.Median(t.seconds) / benchkit.Median(a.seconds)
}

func (r *result) status() string {
	var bad []string
	for _, t := range r.tools {
		if t != nil && t.status != "ok" {
			bad = append(bad, t.name+": "+t.status)
		}
	}
	ex, _ := r.excess()
	if ex > 1e-6 {
		if d := r.dualExcess(); d <= 1e-6 {
			bad = append(bad, fmt.Sprintf("primal %.1e above, dual as good (%+.1e)", ex, d))
		} else {
			bad = append(bad, fmt.Sprintf("acfcd's primal %.1e above", ex))
		}
	}
	if !math.IsNaN(r.resPrim) && r.tools[0].status == "ok" && math.Abs(r.resPrim-r.tools[0].primal) > 1e-9*math.Abs(r.tools[0].primal) {
		bad = append(bad, fmt.Sprintf("Result.Primal %.10g ≠ %.10g", r.resPrim, r.tools[0].primal))
	}
	if r.interop != "" && strings.Count(r.interop, ": same") != 2 {
		bad = append(bad, "interop")
	}
	if len(bad) == 0 {
		return "ok"
	}
	if len(bad) == 1 && strings.Contains(bad[0], "dual as good") {
		return "ok (" + bad[0] + ")"
	}
	return strings.Join(bad, "; ")
}

func f(v float64, format string) string {
	if math.IsNaN(v) {
		return "–"
	}
	return fmt.Sprintf(format, v)
}

func writeMD(w *strings.Builder, o *options, rows []*result) {
	fmt.Fprintf(w, "# acfcd and liblinear, every solver\n\n")
	fmt.Fprintf(w, "liblinear 2.50 `%s`, 2.3.0 `%s`; -p %g, -n %g; %d rounds, times are medians of whole runs (acfcd: Load + Train + Save).\n\n", o.Train250, o.Train23, o.P, o.Nu, o.Rounds)
	fmt.Fprintln(w, "| -s | set | C | -e | primal acfcd | 2.50 | 2.3.0 | excess | dual acfcd / 2.50 | held-out acfcd / 2.50 | agree % | s acfcd | ×2.50 | ×2.3.0 | status |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
	ok := 0
	for _, r := range rows {
		pr := [3]string{"–", "–", "–"}
		for k, t := range r.tools {
			if t != nil && t.status == "ok" {
				pr[k] = fmt.Sprintf("%.10g", t.primal)
			}
		}
		ex, who := r.excess()
		exs := f(ex, "%+.1e")
		if who != "" {
			exs += " vs " + who
		}
		st := r.status()
		if strings.HasPrefix(st, "ok") {
			ok++
		}
		secs := math.NaN()
		if r.tools[0].status == "ok" {
			secs = benchkit.Median(r.tools[0].seconds)
		}
		fmt.Fprintf(w, "| %d | %s | %g | %g | %s | %s | %s | %s | %s / %s | %s / %s | %s | %s | %s | %s | %s |\n",
			r.s, r.set, r.c, r.eps, pr[0], pr[1], pr[2], exs, f(r.tools[0].dual, "%.6f"), f(r.tools[1].dual, "%.6f"), f(r.metric[0], "%.4g"), f(r.metric[1], "%.4g"),
			f(r.agree, "%.2f"), f(secs, "%.3f"), f(r.ratio(1), "%.2f"), f(r.ratio(2), "%.2f"), benchkit.MDEscape(st))
	}
	fmt.Fprintf(w, "\n%d of %d configurations ok (acfcd's primal at most 1e-6 relative above the best liblinear's, or for the duals its dual objective as good as 2.50's printed one; Result.Primal equal to this command's, model files read both ways with the same predictions).\n", ok, len(rows))
	fmt.Fprintln(w, "\nheld-out: accuracy % (classifiers), share predicted +1 % (one-class), mean squared error (regression). agree: % of held-out rows predicted alike by acfcd and 2.50 (regression: largest |Δ| over the predictions' range, %).")
	if o.Spread > 0 {
		writeSpread(w, o, rows)
	}
	fmt.Fprintln(w, "\ninteroperability per configuration:")
	fmt.Fprintln(w)
	for _, r := range rows {
		if r.interop != "" {
			fmt.Fprintf(w, "- -s %d %s C=%g: %s\n", r.s, r.set, r.c, r.interop)
		}
	}
}

func writeCSV(path string, rows []*result) error {
	var b strings.Builder
	cw := csv.NewWriter(&b)
	cw.Write([]string{"s", "set", "C", "eps", "primal_acfcd", "primal_250", "primal_230", "excess", "metric_acfcd", "metric_250", "metric_230", "agree", "s_acfcd", "s_250", "s_230", "status"})
	for _, r := range rows {
		rec := []string{fmt.Sprint(r.s), r.set, benchkit.FmtArg(r.c), benchkit.FmtArg(r.eps)}
		for _, t := range r.tools {
			if t != nil && t.status == "ok" {
				rec = append(rec, benchkit.CSVFloat(t.primal))
			} else {
				rec = append(rec, "")
			}
		}
		ex, _ := r.excess()
		rec = append(rec, benchkit.CSVFloat(ex))
		for _, m := range r.metric {
			rec = append(rec, benchkit.CSVFloat(m))
		}
		rec = append(rec, benchkit.CSVFloat(r.agree))
		for _, t := range r.tools {
			if t != nil && t.status == "ok" {
				rec = append(rec, benchkit.CSVFloat(benchkit.Median(t.seconds)))
			} else {
				rec = append(rec, "")
			}
		}
		rec = append(rec, r.status())
		cw.Write(rec)
	}
	cw.Flush()
	return os.WriteFile(path, []byte(b.String()), 0o644)
}
