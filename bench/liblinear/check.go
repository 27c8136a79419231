package main

import (
	"context"
	"encoding/csv"
	"fmt"
	"github.com/acfcd/acfcd"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/acfcd/acfcd/bench/internal/benchkit"
)

// Tolerances of -check.
const (
	// relTol is the agreement asked of the dual objectives.
	relTol = 1e-6
	// printTol is half a unit in the last place of liblinear's "%lf"
	// (six decimals): a printed objective is only known to ±5e-7 per
	// subproblem, so |Δ| ≤ 5e-7·subproblems also counts as agreement
	// (it matters when |objective| < 0.5).
	printTol = 5e-7
)

// checkRow is the outcome of -check for one configuration.
type checkRow struct {
	Config      config
	ACFCD, LL   *row    // full-data runs (acfcd with acf selection, liblinear 2.3.0)
	DualDiff    float64 // (acfcd dual − liblinear dual)/|liblinear dual|
	PrimalDiff  float64 // (acfcd primal − liblinear primal)/|liblinear primal|
	ResPrimal   float64 // (Result.Primal − harness primal)/|harness primal|
	GapHarness  float64 // harness primal + Result.Objective (acfcd)
	GapLL       float64 // harness primal + printed objective (liblinear)
	HeldOut     string  // what the predictions were made on
	N           int     // held-out rows
	Agree       float64 // % of held-out rows where both tools predict the same label
	AccACFCD    float64 // held-out accuracy, %
	AccLL       float64
	OK          bool
	Reasons     []string // why the configuration does not agree
	Notes       []string // remarks that do not make it disagree
	CompareMode string   // "dual", "primal, liblinear capped" or "primal, both capped"
}

// checkConfig runs the correctness comparison of one configuration.
func (b *runner) checkConfig(cfg config, ds *benchkit.Dataset, eval *acfcd.Dataset) *checkRow {
	nan := math.NaN()
	c := &checkRow{Config: cfg, DualDiff: nan, PrimalDiff: nan, ResPrimal: nan,
		GapHarness: nan, GapLL: nan, Agree: nan, AccACFCD: nan, AccLL: nan, CompareMode: "dual"}
	rows := b.runConfig(cfg, ds.Path, eval)
	for _, r := range rows {
		switch {
		case r.Tool == "acfcd/"+b.o.Selects[0]:
			c.ACFCD = r
		case r.Ref:
			c.LL = r
		}
	}
	a, l := c.ACFCD, c.LL
	if a.failed() {
		c.Reasons = append(c.Reasons, "acfcd "+a.Status+" "+firstLine(a.Note))
	}
	if l.failed() {
		c.Reasons = append(c.Reasons, "liblinear "+l.Status+" "+firstLine(l.Note))
	}
	if len(c.Reasons) > 0 {
		return c
	}

	// 1. Objectives.
	c.DualDiff = relDiff(a.Dual, l.Dual)
	c.PrimalDiff = relDiff(a.Primal, l.Primal)
	switch {
	case l.Status != "ok":
		// liblinear stopped at max_iter, away from the optimum, so its
		// dual is no reference: acfcd must be at least as good in the
		// primal or, since the hinge primal of a dual iterate is much less
		// accurate than its dual, at least in the dual.
		c.CompareMode = "primal, liblinear capped"
		if a.Status != "ok" {
			c.CompareMode = "primal, both capped"
		}
		dualOK := a.Dual-l.Dual <= math.Max(relTol*math.Abs(l.Dual), printTol*float64(subprobs(a.model)))
		switch {
		case c.PrimalDiff <= relTol:
		case dualOK:
			c.CompareMode += "; primal worse, dual as good"
		default:
			c.Reasons = append(c.Reasons, fmt.Sprintf("%s, and acfcd's primal is %.1e and its dual %.1e above liblinear's", c.CompareMode, c.PrimalDiff, c.DualDiff))
		}
	case a.Status != "ok":
		c.Reasons = append(c.Reasons, "acfcd hit its epoch cap where liblinear converged")
	default:
		if diff := math.Abs(a.Dual - l.Dual); diff > math.Max(relTol*math.Abs(l.Dual), printTol*float64(subprobs(a.model))) {
			who := "acfcd's dual is lower (better): liblinear stopped farther from the optimum"
			if a.Dual > l.Dual {
				who = fmt.Sprintf("acfcd's dual is higher (worse): acfcd stopped farther from the optimum (its max KKT violation %.2g ≤ eps %g)", a.Violation, cfg.Eps)
			}
			c.Reasons = append(c.Reasons, fmt.Sprintf("dual differs by %.1e relative; %s", c.DualDiff, who))
		}
	}

	// 2. acfcd's own numbers against the harness's recomputation. Weak
	// duality (primal + printed dual ≥ 0) holds for any w = Σ α_i y_i x_i;
	// both tools update w incrementally, so it may fail by rounding drift
	// (≪ 1e-6 relative) and by liblinear's print rounding, never by more
	// unless the dual convention differs (a sign or a factor ½ gives an
	// error of the order of the objective itself).
	c.ResPrimal = relDiff(a.ResPrimal, a.Primal)
	c.GapHarness = a.Primal + a.Dual
	c.GapLL = l.Primal + l.Dual
	if math.Abs(c.ResPrimal) > 1e-9 {
		c.Reasons = append(c.Reasons, fmt.Sprintf("Result.Primal differs from the harness's primal by %.1e", c.ResPrimal))
	}
	if c.GapHarness < -relTol*math.Abs(a.Primal) {
		c.Reasons = append(c.Reasons, fmt.Sprintf("acfcd primal + dual = %.3g < 0: weak duality violated, dual convention mismatch?", c.GapHarness))
	}
	if !math.IsNaN(c.GapLL) && c.GapLL < -relTol*math.Abs(l.Primal)-printTol*float64(subprobs(l.model)) {
		c.Reasons = append(c.Reasons, fmt.Sprintf("liblinear primal + printed dual = %.3g < 0", c.GapLL))
	}
	if a.Violation > cfg.Eps*(1+1e-9) && a.Status == "ok" {
		c.Reasons = append(c.Reasons, fmt.Sprintf("acfcd Result.Violation %.3g > eps with Converged set", a.Violation))
	}

	// 3. Held-out predictions (informational: two models that agree to
	// 1e-6 can still put a borderline row on different sides).
	if err := b.heldOut(c, cfg, ds); err != nil {
		c.Reasons = append(c.Reasons, "held-out: "+firstLine(err.Error()))
	}
	c.OK = len(c.Reasons) == 0
	return c
}

// subprobs is the number of one-vs-rest subproblems of a model.
func subprobs(m *acfcd.Model) int {
	if m == nil || m.NrW < 1 {
		return 1
	}
	return m.NrW
}

// relDiff is (a − b)/|b|.
func relDiff(a, b float64) float64 {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.NaN()
	}
	if b == 0 {
		if a == 0 {
			return 0
		}
		return math.Inf(1)
	}
	return (a - b) / math.Abs(b)
}

// heldOut trains both tools on a training part and predicts the held-out
// part with liblinear-predict and with Model.Predict: on NAME_test when
// the set has one (the full-data models are reused), else on a
// deterministic split of the training file.
func (b *runner) heldOut(c *checkRow, cfg config, ds *benchkit.Dataset) error {
	am, lm := c.ACFCD.model, b.modelPath(refName)
	test := ds.Test
	if test == "" {
		train, tst, err := b.ws.Split(ds, b.o.SplitSeed, b.o.TestPercent)
		if err != nil {
			return err
		}
		test = tst
		c.HeldOut = fmt.Sprintf("%d/%d split", 100-b.o.TestPercent, b.o.TestPercent)
		p, err := b.params(cfg, b.o.Selects[0])
		if err != nil {
			return err
		}
		ctx, cancel := context.WithTimeout(context.Background(), b.o.Timeout)
		ar, err := runACFCD(ctx, train, p, b.o.Threads, "")
		cancel()
		if err != nil {
			return err
		}
		if ar.TimedOut {
			return fmt.Errorf("acfcd timed out on the training part")
		}
		am = ar.Model
		lm = filepath.Join(b.ws.Dir(), "models", "split.liblinear.model")
		ctx, cancel = context.WithTimeout(context.Background(), b.o.Timeout)
		pr, err := benchkit.RunProcess(ctx, b.o.Liblinear, benchkit.TrainArgs(cfg.S, cfg.C, cfg.Eps, b.o.Bias, train, lm)...)
		cancel()
		if err != nil {
			return err
		}
		if pr.TimedOut {
			return fmt.Errorf("liblinear timed out on the training part")
		}
	} else {
		c.HeldOut = filepath.Base(strings.TrimSuffix(test, ".svm"))
	}
	td, err := acfcd.Load(test, acfcd.Options{})
	if err != nil {
		return err
	}
	defer td.Close()
	ctx, cancel := context.WithTimeout(context.Background(), b.o.Timeout)
	defer cancel()
	ll, err := benchkit.PredictLabels(ctx, b.o.LLPredict, test, lm, filepath.Join(b.ws.Dir(), "models", "predict.out"))
	if err != nil {
		return err
	}
	if len(ll) != td.Rows {
		return fmt.Errorf("liblinear-predict gave %d labels for %d rows", len(ll), td.Rows)
	}
	same, okA, okL := 0, 0, 0
	for i := 0; i < td.Rows; i++ {
		idx, val := td.Row(i)
		p := am.Predict(idx, val)
		if p == ll[i] {
			same++
		}
		if p == td.Label[i] {
			okA++
		}
		if ll[i] == td.Label[i] {
			okL++
		}
	}
	n := float64(td.Rows)
	c.N = td.Rows
	c.Agree, c.AccACFCD, c.AccLL = 100*float64(same)/n, 100*float64(okA)/n, 100*float64(okL)/n
	if same != td.Rows {
		c.Notes = append(c.Notes, fmt.Sprintf("held-out predictions differ on %d of %d rows", td.Rows-same, td.Rows))
	}
	return nil
}

// writeCheck writes the -check table and its summary.
func writeCheck(w io.Writer, cs []*checkRow, o *options) {
	fmt.Fprintf(w, "## Correctness: acfcd (acf) vs liblinear 2.3.0, -e %g, -B %g\n\n", o.Eps, o.Bias)
	fmt.Fprint(w, `Columns: **dual** = minimised dual, liblinear convention (liblinear prints 6 decimals);
**Δdual** = (acfcd − liblinear)/|liblinear|; **Δprimal** likewise for the primal evaluated by the
harness from each model; **viol** = acfcd Result.Violation; **ResP** = (Result.Primal − harness
primal)/|harness primal|; **gap** = harness primal + printed dual (acfcd / liblinear; ≥ 0 by weak
duality); **‖∇P‖∞** = primal gradient recomputed from w alone (acfcd / liblinear; -s 1, 7);
**held-out** = % of held-out rows on which Model.Predict and liblinear-predict agree, and the
accuracies (acfcd / liblinear).

`)
	fmt.Fprintln(w, "| set | -s | C | acfcd dual | liblinear dual | Δdual | Δprimal | viol | ResP | gap | ‖∇P‖∞ | held-out | agree % | acc % | verdict |")
	fmt.Fprintln(w, "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---|---|")
	agree := 0
	for _, c := range cs {
		verdict := "agree"
		if c.OK {
			agree++
			if c.CompareMode != "dual" {
				verdict = "agree (" + c.CompareMode + ")"
			}
		} else {
			verdict = "**differs**: " + strings.Join(c.Reasons, "; ")
		}
		if len(c.Notes) > 0 {
			verdict += "; note: " + strings.Join(c.Notes, "; ")
		}
		var aDual, lDual, viol, grad string = dash, dash, dash, dash
		if c.ACFCD != nil {
			aDual, viol = fmtG(c.ACFCD.Dual, 10), fmtG(c.ACFCD.Violation, 3)
		}
		if c.LL != nil {
			lDual = fmtG(c.LL.Dual, 10)
			if c.LL.Status != "ok" {
				lDual += " (" + c.LL.Status + ")"
			}
		}
		if c.ACFCD != nil && c.LL != nil {
			grad = fmtG(c.ACFCD.GradInf, 2) + " / " + fmtG(c.LL.GradInf, 2)
		}
		fmt.Fprintf(w, "| %s | %d | %g | %s | %s | %s | %s | %s | %s | %s / %s | %s | %s | %s | %s / %s | %s |\n",
			c.Config.Set, c.Config.S, c.Config.C, aDual, lDual,
			fmtSci(c.DualDiff), fmtSci(c.PrimalDiff), viol, fmtSci(c.ResPrimal),
			fmtG(c.GapHarness, 3), fmtG(c.GapLL, 3), grad, c.HeldOut, fmtG(c.Agree, 5),
			fmtG(c.AccACFCD, 4), fmtG(c.AccLL, 4), benchkit.MDEscape(verdict))
	}
	fmt.Fprintf(w, "\n**Summary:** %d of %d configurations agree: dual objectives to %g relative (or to liblinear's\n"+
		"print precision, ±5e-7); where liblinear hit its iteration cap, acfcd's primal no more than %g above\n"+
		"liblinear's, or else its dual no higher within that tolerance; acfcd not capped where liblinear converged; Result.Primal = the harness's primal; weak\n"+
		"duality (primal + dual ≥ 0) for both tools. Held-out disagreements are listed as notes.\n", agree, len(cs), relTol, relTol)
	if agree < len(cs) {
		fmt.Fprintf(w, "\nConfigurations that do not agree:\n\n")
		for _, c := range cs {
			if !c.OK {
				fmt.Fprintf(w, "- %s -s %d -c %g: %s\n", c.Config.Set, c.Config.S, c.Config.C, strings.Join(c.Reasons, "; "))
			}
		}
	}
	var notes []string
	for _, c := range cs {
		if len(c.Notes) > 0 {
			notes = append(notes, fmt.Sprintf("- %s -s %d -c %g: %s", c.Config.Set, c.Config.S, c.Config.C, strings.Join(c.Notes, "; ")))
		}
	}
	if len(notes) > 0 {
		fmt.Fprintf(w, "\nNotes:\n\n%s\n", strings.Join(notes, "\n"))
	}
	fmt.Fprintln(w)
}

// writeCheckCSV writes the -check results, one line per configuration.
func writeCheckCSV(w io.Writer, cs []*checkRow) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"set", "s", "C", "eps", "acfcd_dual", "liblinear_dual", "dual_rel_diff",
		"acfcd_primal", "liblinear_primal", "primal_rel_diff", "acfcd_status", "liblinear_status",
		"acfcd_violation", "result_primal_rel_diff", "gap_acfcd", "gap_liblinear",
		"grad_inf_acfcd", "grad_inf_liblinear", "held_out", "held_out_rows", "agree_pct",
		"acc_acfcd_pct", "acc_liblinear_pct", "compare", "ok", "reasons", "notes"})
	for _, c := range cs {
		f := func(r *row, get func(*row) float64) string {
			if r == nil {
				return ""
			}
			return benchkit.CSVFloat(get(r))
		}
		st := func(r *row) string {
			if r == nil {
				return ""
			}
			return r.Status
		}
		cw.Write([]string{c.Config.Set, strconv.Itoa(c.Config.S), benchkit.CSVFloat(c.Config.C), benchkit.CSVFloat(c.Config.Eps),
			f(c.ACFCD, func(r *row) float64 { return r.Dual }), f(c.LL, func(r *row) float64 { return r.Dual }),
			benchkit.CSVFloat(c.DualDiff),
			f(c.ACFCD, func(r *row) float64 { return r.Primal }), f(c.LL, func(r *row) float64 { return r.Primal }),
			benchkit.CSVFloat(c.PrimalDiff), st(c.ACFCD), st(c.LL),
			f(c.ACFCD, func(r *row) float64 { return r.Violation }), benchkit.CSVFloat(c.ResPrimal),
			benchkit.CSVFloat(c.GapHarness), benchkit.CSVFloat(c.GapLL),
			f(c.ACFCD, func(r *row) float64 { return r.GradInf }), f(c.LL, func(r *row) float64 { return r.GradInf }),
			c.HeldOut, strconv.Itoa(c.N), benchkit.CSVFloat(c.Agree), benchkit.CSVFloat(c.AccACFCD), benchkit.CSVFloat(c.AccLL),
			c.CompareMode, strconv.FormatBool(c.OK), strings.Join(c.Reasons, "; "), strings.Join(c.Notes, "; ")})
	}
	cw.Flush()
	return cw.Error()
}

func fmtSci(v float64) string {
	if math.IsNaN(v) {
		return dash
	}
	if v == 0 {
		return "0"
	}
	return fmt.Sprintf("%.1e", v)
}
