package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/acfcd/acfcd/bench/internal/benchkit"
)

const dash = "–"

// report is everything the Markdown file shows.
type report struct {
	Machine   machine
	Command   string
	Started   time.Time
	Elapsed   time.Duration
	Opts      *options
	Liblinear string // version text, or why it was not run
	Sklearn   string
	Sets      []*setData
	SetUse    map[string][]string // file → variants
	Cfgs      []config
	Runs      []*runRec
	Plots     []plotFile
	ToolsOf   func(config) []string
}

func fmtSec(v float64) string {
	switch {
	case math.IsNaN(v):
		return dash
	case v < 0.001:
		return strconv.FormatFloat(v, 'f', 5, 64)
	case v < 0.01:
		return strconv.FormatFloat(v, 'f', 4, 64)
	case v < 10:
		return strconv.FormatFloat(v, 'f', 3, 64)
	case v < 1000:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'f', 0, 64)
}

// fmtCount writes counts below a million in full, larger ones as 1.23e7.
func fmtCount(v int64) string {
	if v < 0 {
		return dash
	}
	if v < 1000000 {
		return strconv.FormatInt(v, 10)
	}
	e := int(math.Floor(math.Log10(float64(v))))
	m := float64(v) / math.Pow(10, float64(e))
	return strconv.FormatFloat(m, 'f', 2, 64) + "e" + strconv.Itoa(e)
}

func fmtRatio(r ratio) string {
	if r.Kind == "none" || math.IsNaN(r.V) {
		return dash
	}
	s := strconv.FormatFloat(r.V, 'f', 2, 64)
	if r.V >= 100 {
		s = strconv.FormatFloat(r.V, 'f', 0, 64)
	}
	switch r.Kind {
	case "lower":
		return "≥" + s
	case "upper":
		return "≤" + s
	}
	return s
}

// statusText decorates a value with its run's status: † for the epoch
// cap, "timeout ≥" for the time limit, "error" for a failure.
func statusText(c *cell, v string) string {
	if c == nil {
		return dash
	}
	switch c.Status {
	case stError:
		return "error"
	case stTimeout:
		return "timeout ≥" + v
	case stCap:
		return v + "†"
	}
	return v
}

// baselinesOf are the tools the ACF variants are compared with: uniform,
// then shrink or cyclic, then the external anchor.
func baselinesOf(tools []string) []string {
	var b []string
	for _, t := range tools {
		switch t {
		case "uniform", "shrink", "cyclic", toolLiblinear, toolSklearn:
			b = append(b, t)
		}
	}
	return b
}

func acfsOf(tools []string) []string {
	var a []string
	for _, t := range tools {
		if t == "acf" || t == "acf+shrink" {
			a = append(a, t)
		}
	}
	return a
}

func isExternal(t string) bool { return t == toolLiblinear || t == toolSklearn }

// short names a tool in speed-up column headers.
func short(t string) string {
	switch t {
	case "uniform":
		return "uni"
	case "shrink":
		return "shr"
	case "cyclic":
		return "cyc"
	case toolLiblinear:
		return "ll"
	case toolSklearn:
		return "sk"
	case "acf+shrink":
		return "acf+s"
	}
	return t
}

// writeMarkdown writes the report.
func writeMarkdown(w io.Writer, rp *report) {
	o := rp.Opts
	m := cells(rp.Runs)
	fmt.Fprintf(w, "# ACF coordinate descent: the paper's evaluation grid\n\n")
	fmt.Fprintf(w, "Machine: %s.\n\n", rp.Machine.Line())
	fmt.Fprintf(w, "Command: `%s` — started %s, took %s.\n\n", rp.Command, rp.Started.Format("2006-01-02 15:04 MST"), rp.Elapsed.Round(time.Second))
	fmt.Fprintf(w, "Settings: eps %s; time limit %s per run; %d round(s) per run (median times); seed %d; no bias (-B -1).\n",
		joinNums(o.Eps), o.Timeout, o.Rounds, o.Seed)
	fmt.Fprintf(w, "Anchors: liblinear-train: %s. scikit-learn: %s.\n\n", rp.Liblinear, rp.Sklearn)
	fmt.Fprint(w, legend)

	writeSummary(w, rp, m)
	writeSets(w, rp)

	for _, v := range variantsOf(rp.Cfgs) {
		fmt.Fprintf(w, "## %s\n\n", variantTitle(v))
		var vc []config
		for _, c := range rp.Cfgs {
			if c.Variant() == v {
				vc = append(vc, c)
			}
		}
		for _, e := range epsOf(vc) {
			var ec []config
			for _, c := range vc {
				if c.Eps == e {
					ec = append(ec, c)
				}
			}
			writeVariant(w, rp, m, ec)
		}
		for _, p := range rp.Plots {
			if p.Variant == v {
				fmt.Fprintf(w, "![%s %s %s](%s) ", p.Metric, v, p.Set, p.Path)
			}
		}
		fmt.Fprint(w, "\n\n")
	}
	writeFailures(w, rp)
}

const legend = `How to read the tables: **seconds** are training time only, the median over the
rounds — acfcd: the wall time of acfcd.Train in a fresh worker process (data loaded from a
binary cache before the clock starts); liblinear-train: its process wall time minus the
median of a baseline run of the same set and -s with -e 1e30 (which parses, does one sweep
and writes the model), an estimate of its training time; scikit-learn: the wall time of
Lasso.fit (its input checks and CSR→CSC conversion included, like acfcd's column copy).
**iterations** are coordinate-descent steps (Result.Iterations); liblinear's and
scikit-learn's columns there are their sweep counts (#iter, n_iter_), not steps.
**operations** are the non-zeros acfcd touched. A **b÷a** column is the speed-up factor of
a over b (> 1: a is faster). † = stopped at the epoch cap, not converged (a count or time at
the cap); "timeout ≥x" = stopped at the time limit (x is a lower bound, and so is a speed-up
"≥"; "≤" when the faster side is the one that timed out). LASSO tolerance: the largest KKT
violation ≤ eps·λ; scikit-learn runs once per (set, λ) at its own tolerance, shown with
every eps. The classifiers stop as liblinear does at -e eps (acfcd certifies it with a full
KKT pass). A liblinear time of "–" means its process was no slower than its baseline (the
training took less than the timing noise). acfcd trains on one core (binary problems, the
LASSO and the Weston–Watkins SVM are sequential), as pure coordinate descent (the fallbacks
that take over from a stalling dual, primal Newton for -s 1 and -s 7 and interior point for
-s 3, are off); no bias term (-B -1) anywhere.

`

func joinNums(v []float64) string {
	var s []string
	for _, x := range v {
		s = append(s, fmtNum(x))
	}
	return strings.Join(s, ", ")
}

func epsOf(cs []config) []float64 {
	var out []float64
	for _, c := range cs {
		if !slices.Contains(out, c.Eps) {
			out = append(out, c.Eps)
		}
	}
	return out
}

// writeSummary writes the geometric-mean speed-ups per variant and eps.
func writeSummary(w io.Writer, rp *report, m map[cellKey]*cell) {
	fmt.Fprintf(w, "## Summary\n\n")
	fmt.Fprintf(w, "Geometric mean of the time speed-up factors b÷a over the configurations where both runs finished (n), how often a was faster, and the runs that hit the time limit.\n\n")
	fmt.Fprintln(w, "| problem | eps | a | b | geo-mean b÷a | n | a faster | timeouts of a | timeouts of b |")
	fmt.Fprintln(w, "|---|---|---|---|---:|---:|---:|---:|---:|")
	for _, v := range variantsOf(rp.Cfgs) {
		var vc []config
		for _, c := range rp.Cfgs {
			if c.Variant() == v {
				vc = append(vc, c)
			}
		}
		tools := rp.ToolsOf(vc[0])
		for _, e := range epsOf(vc) {
			for _, a := range acfsOf(tools) {
				for _, b := range baselinesOf(tools) {
					var rs []ratio
					faster, ta, tb := 0, 0, 0
					for _, c := range vc {
						if c.Eps != e {
							continue
						}
						ca, cb := lookup(m, c, a), lookup(m, c, b)
						if ca == nil || cb == nil {
							continue
						}
						r := speedup(cb.Sec, ca.Sec, cb.Status, ca.Status)
						rs = append(rs, r)
						if r.Kind != "none" && r.V > 1 && r.Kind != "upper" {
							faster++
						}
						if ca.Status == stTimeout {
							ta++
						}
						if cb.Status == stTimeout {
							tb++
						}
					}
					g, n := geomean(rs)
					fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %d | %d/%d | %d | %d |\n", v, fmtNum(e), a, b,
						fmtRatio(ratio{g, "exact"}), n, faster, len(rs), ta, tb)
				}
			}
		}
	}
	fmt.Fprintln(w)
}

// writeSets writes the data set table.
func writeSets(w io.Writer, rp *report) {
	fmt.Fprintf(w, "## Data sets\n\n")
	fmt.Fprintln(w, "| set | file | problems | rows (training) | features | nnz | classes | held-out | λ_max = ‖Xᵀy‖∞ |")
	fmt.Fprintln(w, "|---|---|---|---:|---:|---:|---:|---|---:|")
	for _, s := range rp.Sets {
		held, lm, cl := dash, dash, dash
		if s.Held != "" {
			held = s.Held
		}
		uses := rp.SetUse[s.File+"|"+strconv.FormatBool(s.TestCache != "")]
		if slices.Contains(uses, probLasso) {
			lm = strconv.FormatFloat(s.LambdaMax, 'g', 6, 64)
		}
		if s.Classes > 0 {
			cl = strconv.Itoa(s.Classes)
		}
		fmt.Fprintf(w, "| %s | %s | %s | %d | %d | %d | %s | %s | %s |\n", s.Name, s.File, strings.Join(uses, ", "),
			s.Rows, s.Features, s.NNZ, cl, benchkit.MDEscape(held), lm)
	}
	fmt.Fprintln(w)
}

// writeVariant writes the tables of one variant and eps.
func writeVariant(w io.Writer, rp *report, m map[cellKey]*cell, cs []config) {
	c0 := cs[0]
	tools := rp.ToolsOf(c0)
	ours := slices.DeleteFunc(slices.Clone(tools), isExternal)
	acfs, bases := acfsOf(tools), baselinesOf(tools)
	oursBases := slices.DeleteFunc(slices.Clone(bases), isExternal)
	lasso := c0.Problem == probLasso
	pk := "C"
	if lasso {
		pk = "λ/λ_max"
	}
	epsNote := ""
	if lasso {
		epsNote = " (KKT violation ≤ eps·λ)"
	}
	fmt.Fprintf(w, "### eps = %s%s\n\n", fmtNum(c0.Eps), epsNote)

	head := func(title string, cols []string, ratios []string) {
		fmt.Fprintf(w, "%s\n\n| set | %s |", title, pk)
		if lasso {
			fmt.Fprint(w, " nnz(w) |")
		}
		for _, t := range cols {
			fmt.Fprintf(w, " %s |", t)
		}
		for _, r := range ratios {
			fmt.Fprintf(w, " %s |", r)
		}
		fmt.Fprint(w, "\n|---|---:|")
		if lasso {
			fmt.Fprint(w, "---:|")
		}
		fmt.Fprint(w, strings.Repeat("---:|", len(cols)+len(ratios)))
		fmt.Fprintln(w)
	}
	pairs := func(bs []string) (names []string, ps [][2]string) {
		for _, a := range acfs {
			for _, b := range bs {
				names = append(names, short(b)+"÷"+short(a))
				ps = append(ps, [2]string{b, a})
			}
		}
		return
	}
	rowStart := func(c config) {
		fmt.Fprintf(w, "| %s | %s |", c.Set, fmtNum(c.Value))
		if lasso {
			fmt.Fprintf(w, " %s |", nnzText(m, c, tools))
		}
	}

	// table writes a column per tool of cols (headed by heads), the cell
	// of a run being text(t, x), then the speed-up columns names of the
	// pairs ps in metric f.
	table := func(title string, heads, cols, names []string, ps [][2]string, text func(string, *cell) string, f func(*cell) float64) {
		head(title, heads, names)
		for _, c := range cs {
			rowStart(c)
			for _, t := range cols {
				x := lookup(m, c, t)
				v := dash
				if x != nil {
					v = text(t, x)
				}
				fmt.Fprintf(w, " %s |", v)
			}
			for _, p := range ps {
				fmt.Fprintf(w, " %s |", fmtRatio(cellRatio(m, c, p, f)))
			}
			fmt.Fprintln(w)
		}
		fmt.Fprintln(w)
	}

	// Seconds.
	names, ps := pairs(bases)
	var cols []string
	for _, t := range tools {
		cols = append(cols, toolHeader(t, rp.Opts))
	}
	table("Seconds (training only)", cols, tools, names, ps,
		func(_ string, x *cell) string { return statusText(x, fmtSec(x.Sec)) },
		func(x *cell) float64 { return x.Sec })

	// Iterations.
	names, ps = pairs(oursBases)
	cols = nil
	for _, t := range tools {
		h := t
		if isExternal(t) {
			h = t + " sweeps"
		}
		cols = append(cols, h)
	}
	table("Iterations (CD steps)", cols, tools, names, ps,
		func(t string, x *cell) string {
			n := x.First.Steps
			if isExternal(t) {
				n = x.First.Epochs
			}
			return statusText(x, fmtCount(n))
		},
		func(x *cell) float64 {
			if x.First.Steps < 0 {
				return math.NaN()
			}
			return float64(x.First.Steps)
		})

	// Operations.
	table("Operations (non-zeros touched)", ours, ours, names, ps,
		func(_ string, x *cell) string { return statusText(x, fmtCount(x.First.Ops)) },
		func(x *cell) float64 {
			if x.First.Ops < 0 {
				return math.NaN()
			}
			return float64(x.First.Ops)
		})

	if lasso {
		writeLassoQuality(w, m, cs, tools, rp.Opts)
	}
	if c0.Problem == probWW {
		writeAccuracy(w, m, cs, ours)
	}
}

// toolHeader names a tool's column in the seconds table.
func toolHeader(t string, o *options) string {
	switch t {
	case toolLiblinear:
		return "liblinear (est.)"
	case toolSklearn:
		return "sklearn tol=" + fmtNum(o.SkTol)
	}
	return t
}

// cellRatio is the speed-up p[0]÷p[1] of configuration c in metric f.
func cellRatio(m map[cellKey]*cell, c config, p [2]string, f func(*cell) float64) ratio {
	b, a := lookup(m, c, p[0]), lookup(m, c, p[1])
	if a == nil || b == nil {
		return ratio{math.NaN(), "none"}
	}
	return speedup(f(b), f(a), b.Status, a.Status)
}

// nnzText is the number of non-zero weights of the LASSO solution: from
// acf (or the first tool that finished).
func nnzText(m map[cellKey]*cell, c config, tools []string) string {
	order := append([]string{"acf"}, tools...)
	for _, t := range order {
		if x := lookup(m, c, t); x != nil && x.First.NNZ >= 0 && x.Status != stError && x.Status != stTimeout {
			return strconv.Itoa(x.First.NNZ)
		}
	}
	return dash
}

// writeLassoQuality compares the objectives with scikit-learn's.
func writeLassoQuality(w io.Writer, m map[cellKey]*cell, cs []config, tools []string, o *options) {
	fmt.Fprintf(w, "Objective F = ½‖y − Xw‖² + λ‖w‖₁ (evaluated by the harness from each model) relative to scikit-learn's (tol=%s): (F − F_sklearn)/F_sklearn; ✓ = within 1e-6. gap/F = acfcd's duality gap relative to F.\n\n", fmtNum(o.SkTol))
	ours := slices.DeleteFunc(slices.Clone(tools), isExternal)
	fmt.Fprint(w, "| set | λ/λ_max | λ | F (sklearn) | sklearn gap/F |")
	for _, t := range ours {
		fmt.Fprintf(w, " %s ΔF/F | %s gap/F |", t, t)
	}
	fmt.Fprint(w, "\n|---|---:|---:|---:|---:|")
	fmt.Fprint(w, strings.Repeat("---:|---:|", len(ours)))
	fmt.Fprintln(w)
	for _, c := range cs {
		sk := lookup(m, c, toolSklearn)
		lam, fsk, skgap := math.NaN(), dash, dash
		if sk != nil {
			lam = sk.First.Lambda
			if !math.IsNaN(sk.First.Eval) {
				fsk = strconv.FormatFloat(sk.First.Eval, 'g', 10, 64)
				skgap = fmtSci(sk.First.Gap / sk.First.Eval)
			}
			switch sk.Status {
			case stTimeout:
				fsk = "timeout"
			case stError:
				fsk = "error"
			case stCap:
				fsk += "†"
			}
		}
		var parts []string
		for _, t := range ours {
			x := lookup(m, c, t)
			if x == nil {
				parts = append(parts, dash, dash)
				continue
			}
			lam = x.First.Lambda
			rel := dash
			if !math.IsNaN(x.First.ObjRel) {
				rel = fmtSci(x.First.ObjRel)
				if math.Abs(x.First.ObjRel) <= 1e-6 {
					rel += " ✓"
				}
			}
			switch x.Status {
			case stTimeout:
				rel = "timeout: " + rel
			case stError:
				rel = "error"
			case stCap:
				rel += "†"
			}
			parts = append(parts, rel, fmtSci(x.First.Gap/x.First.Eval))
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s |\n", c.Set, fmtNum(c.Value), fmtSig(lam), fsk, skgap, strings.Join(parts, " | "))
	}
	fmt.Fprintln(w)
}

// writeAccuracy writes the held-out accuracy of the Weston–Watkins models.
func writeAccuracy(w io.Writer, m map[cellKey]*cell, cs []config, ours []string) {
	fmt.Fprint(w, "Test accuracy (held-out file, or the fixed 80/20 split)\n\n| set | C |")
	for _, t := range ours {
		fmt.Fprintf(w, " %s |", t)
	}
	fmt.Fprint(w, "\n|---|---:|"+strings.Repeat("---:|", len(ours))+"\n")
	for _, c := range cs {
		fmt.Fprintf(w, "| %s | %s |", c.Set, fmtNum(c.Value))
		for _, t := range ours {
			x := lookup(m, c, t)
			v := dash
			if x != nil && !math.IsNaN(x.First.TestAcc) {
				v = statusText(x, strconv.FormatFloat(100*x.First.TestAcc, 'f', 2, 64)+"%")
			} else if x != nil {
				v = statusText(x, dash)
			}
			fmt.Fprintf(w, " %s |", v)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w)
}

func fmtSci(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return dash
	}
	if v == 0 {
		return "0"
	}
	return strconv.FormatFloat(v, 'e', 1, 64)
}

func fmtSig(v float64) string {
	if math.IsNaN(v) {
		return dash
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// writeFailures lists every run that hit the time limit or failed.
func writeFailures(w io.Writer, rp *report) {
	fmt.Fprintf(w, "## Time limits and errors\n\nEvery run stopped at the time limit (%s) or failed, round by round.\n\n", rp.Opts.Timeout)
	n := 0
	for _, r := range rp.Runs {
		if !r.failed() {
			continue
		}
		if n == 0 {
			fmt.Fprintln(w, "| problem | set | value | eps | tool | round | status | seconds | steps at stop | note |")
			fmt.Fprintln(w, "|---|---|---:|---:|---|---:|---|---:|---:|---|")
		}
		n++
		eps := fmtNum(r.Cfg.Eps)
		if r.Tool == toolSklearn {
			eps = "tol " + fmtNum(rp.Opts.SkTol)
		}
		fmt.Fprintf(w, "| %s | %s | %s=%s | %s | %s | %d | %s | %s | %s | %s |\n", r.Cfg.Variant(), r.Cfg.Set,
			r.Cfg.valueKey(), fmtNum(r.Cfg.Value), eps, r.Tool, r.Round, r.Status, fmtSec(r.Sec), fmtCount(r.Steps), benchkit.MDEscape(firstLine(r.Note)))
	}
	if n == 0 {
		fmt.Fprintln(w, "None.")
	}
	fmt.Fprintln(w)
}
