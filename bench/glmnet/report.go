package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/acfcd/acfcd/bench/internal/benchkit"
)

func fmtSec(r *result) string {
	switch {
	case len(r.Seconds) == 0 || strings.HasPrefix(r.Status, "skipped") || strings.HasPrefix(r.Status, "error"):
		return "–"
	case r.Status == "timeout":
		return fmt.Sprintf(">%.0f", r.median())
	}
	return fmt.Sprintf("%.3g", r.median())
}

func fmtExcess(r *result) string {
	if math.IsNaN(r.Excess) {
		return "–"
	}
	if r.Excess <= 0 {
		return "0"
	}
	return fmt.Sprintf("%.1e", r.Excess)
}

// ratio is the other tool's median seconds over acfcd's ("–" unless both
// finished).
func ratio(other, a *result) string {
	if len(other.Seconds) == 0 || len(a.Seconds) == 0 || other.Status == "timeout" && a.Status == "timeout" ||
		strings.HasPrefix(other.Status, "error") || strings.HasPrefix(a.Status, "error") || strings.HasPrefix(other.Status, "skipped") {
		return "–"
	}
	s := fmt.Sprintf("%.2f", other.median()/a.median())
	switch {
	case other.Status == "timeout":
		s = ">" + s
	case a.Status == "timeout":
		s = "<" + s
	}
	return s
}

func writeMarkdown(w io.Writer, o *options, sets []string, all []*result) {
	fmt.Fprintln(w, "| set | rows | features | non-zeros | λ_max | default path |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---|")
	var cut []string
	for _, s := range sets {
		row, notes, _ := strings.Cut(s, "\n")
		fmt.Fprintln(w, row)
		if notes != "" {
			cut = append(cut, strings.Split(notes, "\n")...)
		}
	}
	if len(cut) > 0 {
		fmt.Fprintf(w, "\nThe reference solve was cut short (-ref-timeout) or did not converge, F* is then the best objective any run reached: %s.\n", strings.Join(cut, "; "))
	}
	fmt.Fprintf(w, "\nObjective F = ½‖y − Xw − b‖² + λ‖w‖₁ with an intercept b (glmnet: λ/rows, standardize=FALSE; scikit-learn: alpha = λ/rows), "+
		"evaluated here from each tool's weights; excess = (F − F*)/F*, the largest over a path's λ, F* the lowest F any run reached "+
		"(a reference solve: acfcd with KKT tolerance %g·λ, is one of them). Seconds: median of %d rounds, the fit alone "+
		"(acfcd in process on the loaded data%s; glmnet's glmnet() call; scikit-learn's fit calls). "+
		"Levels: default = each tool's default (glmnet thresh 1e-7, scikit-learn tol 1e-4, acfcd's default rule); "+
		"tight = glmnet thresh %s, scikit-learn tol %s, acfcd KKT tolerance %s·λ. "+
		"\"glmnet's rule, L\": acfcd stopped by glmnet's own rule (Params.Thresh, --thresh) at glmnet's thresh of level L, beside glmnet's run of L; "+
		"\"glmnet's rule ×f, L\": the same at f times that thresh; "+
		"\"glmnet's L\": acfcd stopped by a duality gap at most glmnet's excess at L times F*. "+
		"Where glmnet stopped a path early (not converged, its maxit), these three kinds of rows fit only the λ glmnet fitted.\n\n",
		o.RefRel, o.Rounds, cscNote(o), tightOf(o, "glmnet"), tightOf(o, "sklearn"), tightOf(o, "acfcd"))
	fmt.Fprintln(w, "| set | cell | level | acfcd s | glmnet s | sklearn s | glmnet ÷ acfcd | sklearn ÷ acfcd | excess acfcd | excess glmnet | excess sklearn | λ fitted (a/g/s) | nnz (a/g/s) | notes |")
	fmt.Fprintln(w, "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---|")
	for i := 0; i+2 < len(all); i += 3 {
		a, g, s := all[i], all[i+1], all[i+2]
		var notes []string
		for _, r := range []*result{a, g, s} {
			if r.Status != "ok" && r.Status != "skipped: absent" {
				notes = append(notes, r.Tool+": "+r.Status)
			}
		}
		cnt := func(r *result) string {
			if r.Points == 0 {
				return "–"
			}
			return fmt.Sprint(r.Points)
		}
		nz := func(r *result) string {
			if r.NNZ < 0 {
				return "–"
			}
			return fmt.Sprint(r.NNZ)
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s/%s/%s | %s/%s/%s | %s |\n",
			a.Set, a.Cell, a.Level, fmtSec(a), fmtSec(g), fmtSec(s), ratio(g, a), ratio(s, a),
			fmtExcess(a), fmtExcess(g), fmtExcess(s), cnt(a), cnt(g), cnt(s), nz(a), nz(g), nz(s),
			benchkit.MDEscape(strings.Join(notes, "; ")))
	}
	fmt.Fprintln(w)
}

func tightOf(o *options, tool string) string {
	for _, l := range o.Levels {
		if l.Name == "tight" {
			switch tool {
			case "glmnet":
				return benchkit.FmtArg(l.GlmnetThresh)
			case "sklearn":
				return benchkit.FmtArg(l.SklearnTol)
			default:
				return benchkit.FmtArg(l.ACFCDRel)
			}
		}
	}
	return "–"
}

func writeCSV(w io.Writer, all []*result) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"set", "cell", "level", "tool", "seconds_median", "seconds_rounds", "points", "excess", "nnz", "status"})
	for _, r := range all {
		var secs []string
		for _, s := range r.Seconds {
			secs = append(secs, benchkit.CSVFloat(s))
		}
		med := math.NaN()
		if len(r.Seconds) > 0 {
			med = r.median()
		}
		cw.Write([]string{r.Set, r.Cell, r.Level, r.Tool, benchkit.CSVFloat(med), strings.Join(secs, " "),
			fmt.Sprint(r.Points), benchkit.CSVFloat(r.Excess), benchkit.CSVInt(int64(r.NNZ)), r.Status})
	}
	cw.Flush()
	return cw.Error()
}

// cscNote says whether acfcd's column view was built outside the timing.
func cscNote(o *options) string {
	if o.KeepCSC {
		return ", its column view built once beforehand like the others' column-major matrices"
	}
	return ", each fit building its column view"
}
