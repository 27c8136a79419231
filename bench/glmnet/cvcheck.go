package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"time"

	"github.com/acfcd/acfcd"
	"github.com/acfcd/acfcd/bench/internal/benchkit"
)

// cvThresh is cv.glmnet's thresh: glmnet's default.
const cvThresh = 1e-7

// cvRow is λ by cross-validation on one set: acfcd.CrossValidatePath and
// cv.glmnet on the same folds, each with its own default λ sequence.
type cvRow struct {
	Set                string
	Folds              int
	ACFCDSec, GlmnetS  float64
	ACFCDN, GlmnetN    int     // λ in each sequence
	Step               float64 // log(λ_k/λ_{k+1}) of acfcd's sequence
	AMin, A1SE         float64 // acfcd's λ.min, λ.1se (acfcd's units)
	GMin, G1SE         float64 // cv.glmnet's, times rows
	MinSteps, SE1Steps float64 // |log(a/g)| / step
	MaxCVMDiff         float64 // largest |cvm_a − cvm_g| / cvm_g over the common λ
	// acfcd under glmnet's rule at cv.glmnet's thresh (-same-rule; NaN
	// when not run): its seconds and λ.min's steps from cv.glmnet's.
	RuleSec, RuleMin, RuleMinSteps float64
	Status                         string
	acfcd                          *acfcd.CVPathResult
	glmnet                         *cvCurve
}

// cvCurve is cv.glmnet's answer as glmnet.R writes it.
type cvCurve struct {
	Lambda, CVM, CVSD []float64
	NZero             []int32
}

func readCVCurve(b []byte) (*cvCurve, error) {
	r := bytes.NewReader(b)
	var n int32
	if err := readLE(r, &n); err != nil || n < 1 || int64(n)*28 != int64(r.Len()) {
		return nil, fmt.Errorf("cv file of %d bytes: bad count", len(b))
	}
	c := &cvCurve{Lambda: make([]float64, n), CVM: make([]float64, n), CVSD: make([]float64, n), NZero: make([]int32, n)}
	for _, v := range []any{c.Lambda, c.CVM, c.CVSD, c.NZero} {
		if err := readLE(r, v); err != nil {
			return nil, fmt.Errorf("cv file of %d bytes: %w", len(b), err)
		}
	}
	return c, nil
}

func runCV(ctx context.Context, o *options, ws *benchkit.Workspace, scripts, avail map[string]string, name string) (*cvRow, error) {
	path, err := dataPath(o, ws, name)
	if err != nil {
		return nil, err
	}
	d, err := acfcd.Load(path, acfcd.Options{})
	if err != nil {
		return nil, err
	}
	defer d.Close()
	row := &cvRow{Set: name, Folds: o.Folds, Status: "ok", GlmnetS: math.NaN(), GMin: math.NaN(), G1SE: math.NaN(),
		MinSteps: math.NaN(), SE1Steps: math.NaN(), MaxCVMDiff: math.NaN(), RuleSec: math.NaN(), RuleMin: math.NaN(), RuleMinSteps: math.NaN()}
	ids, err := acfcd.FoldIDs(d.Rows, o.Folds, o.Seed)
	if err != nil {
		return nil, err
	}
	o.logf("%s: cross-validation, acfcd", name)
	p := acfcd.Params{Problem: acfcd.Lasso, Intercept: true, Seed: o.Seed}
	start := time.Now()
	cctx, cancel := context.WithTimeout(ctx, o.CVTimeout)
	defer cancel()
	cv, err := acfcd.CrossValidatePath(cctx, d, p, acfcd.CVPathOptions{FoldID: ids})
	if cctx.Err() != nil {
		row.Status = fmt.Sprintf("acfcd over -cv-timeout %v", o.CVTimeout)
		row.ACFCDSec, row.AMin, row.A1SE = time.Since(start).Seconds(), math.NaN(), math.NaN()
		return row, nil
	}
	if err != nil {
		return nil, err
	}
	row.ACFCDSec = time.Since(start).Seconds()
	row.acfcd = cv
	row.ACFCDN = len(cv.Lambda)
	row.AMin, row.A1SE = cv.LambdaMin, cv.Lambda1SE
	if len(cv.Lambda) > 1 {
		row.Step = math.Log(cv.Lambda[0] / cv.Lambda[1])
	}
	if o.SameRule {
		o.logf("%s: cross-validation, acfcd under glmnet's rule", name)
		rp := p
		rp.Thresh = cvThresh
		start := time.Now()
		rctx, cancel := context.WithTimeout(ctx, o.CVTimeout)
		defer cancel()
		rcv, err := acfcd.CrossValidatePath(rctx, d, rp, acfcd.CVPathOptions{FoldID: ids})
		switch {
		case rctx.Err() != nil:
			row.Status = fmt.Sprintf("acfcd under glmnet's rule over -cv-timeout %v", o.CVTimeout)
		case err != nil:
			return nil, err
		default:
			row.RuleSec, row.RuleMin = time.Since(start).Seconds(), rcv.LambdaMin
		}
	}
	if avail["glmnet"] == "" {
		row.Status = "glmnet absent"
		return row, nil
	}
	srv := newServers(o, scripts, map[string]string{"glmnet": avail["glmnet"]}, path, d.Features)["glmnet"]
	defer srv.close()
	idFile, outFile := ws.Path(scratch("foldid.txt")), ws.Path(scratch("cv.bin"))
	var b strings.Builder
	for _, f := range ids {
		fmt.Fprintln(&b, f)
	}
	if err := os.WriteFile(idFile, []byte(b.String()), 0o644); err != nil {
		return nil, err
	}
	o.logf("%s: cross-validation, cv.glmnet", name)
	kv, timedOut, err := srv.call(ctx, fmt.Sprintf("cmd=cv lambda=default nlambda=100 thresh=%s alpha=1 intercept=1 standardize=0 foldid=%s out=%s",
		benchkit.FmtArg(cvThresh), idFile, outFile), o.CVTimeout)
	switch {
	case timedOut:
		row.Status = "cv.glmnet timed out"
		return row, nil
	case err != nil:
		row.Status = "cv.glmnet: " + err.Error()
		return row, nil
	}
	raw, err := os.ReadFile(outFile)
	if err != nil {
		return nil, err
	}
	g, err := readCVCurve(raw)
	if err != nil {
		return nil, err
	}
	rows := float64(d.Rows)
	for k := range g.Lambda {
		g.Lambda[k] *= rows
	}
	row.glmnet = g
	row.GlmnetS, _ = num(kv, "seconds")
	gmin, _ := num(kv, "lambda_min")
	g1se, _ := num(kv, "lambda_1se")
	row.GMin, row.G1SE, row.GlmnetN = gmin*rows, g1se*rows, len(g.Lambda)
	if row.Step > 0 {
		row.MinSteps = math.Abs(math.Log(row.AMin/row.GMin)) / row.Step
		row.SE1Steps = math.Abs(math.Log(row.A1SE/row.G1SE)) / row.Step
		row.RuleMinSteps = math.Abs(math.Log(row.RuleMin/row.GMin)) / row.Step
	}
	row.MaxCVMDiff = 0
	for k, lg := range g.Lambda {
		if j := matchLambda(cv.Lambda, lg); j >= 0 {
			row.MaxCVMDiff = max(row.MaxCVMDiff, math.Abs(cv.MeanError[j]-g.CVM[k])/g.CVM[k])
		}
	}
	if row.MinSteps > 1+1e-9 {
		row.Status = "λ.min differs by more than one step"
	}
	return row, nil
}

func writeCVMarkdown(w io.Writer, o *options, rows []*cvRow) {
	fmt.Fprintf(w, "## λ by cross-validation: acfcd.CrossValidatePath vs cv.glmnet\n\n"+
		"%d folds, the same fold ids (acfcd.FoldIDs, seed %d) for both; intercept, standardize=FALSE, each tool's default λ sequence "+
		"(glmnet's: 100 λ, early stop) and stopping rule (glmnet thresh 1e-7). λ in acfcd's units (glmnet's × rows); "+
		"steps = |log(λ_acfcd/λ_glmnet)| / log(λ_1/λ_2) of the grid; cvm diff = the largest |cvm_acfcd − cvm_glmnet|/cvm_glmnet over the common λ. "+
		"Seconds: the whole cross-validation (the whole data's path and every fold). "+
		"Rule: acfcd's cross-validation under glmnet's stopping rule at cv.glmnet's thresh (Params.Thresh; -same-rule), "+
		"its λ.min's steps from glmnet's and its seconds.\n\n", o.Folds, o.Seed)
	fmt.Fprintln(w, "| set | λ (a/g) | acfcd λ.min | glmnet λ.min | steps | acfcd λ.1se | glmnet λ.1se | steps | cvm diff | acfcd s | glmnet s | glmnet ÷ acfcd | rule: steps | rule: acfcd s | rule: glmnet ÷ acfcd | status |")
	fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
	f := func(v float64, format string) string {
		if math.IsNaN(v) {
			return "–"
		}
		return fmt.Sprintf(format, v)
	}
	for _, r := range rows {
		fmt.Fprintf(w, "| %s | %d/%d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", r.Set, r.ACFCDN, r.GlmnetN,
			f(r.AMin, "%.6g"), f(r.GMin, "%.6g"), f(r.MinSteps, "%.2f"), f(r.A1SE, "%.6g"), f(r.G1SE, "%.6g"), f(r.SE1Steps, "%.2f"),
			f(r.MaxCVMDiff, "%.1e"), f(r.ACFCDSec, "%.3g"), f(r.GlmnetS, "%.3g"), f(r.GlmnetS/r.ACFCDSec, "%.2f"),
			f(r.RuleMinSteps, "%.2f"), f(r.RuleSec, "%.3g"), f(r.GlmnetS/r.RuleSec, "%.2f"), r.Status)
	}
	fmt.Fprintln(w)
}

func writeCVCSV(w io.Writer, rows []*cvRow) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"set", "folds", "acfcd_lambdas", "glmnet_lambdas", "acfcd_lambda_min", "glmnet_lambda_min", "min_steps",
		"acfcd_lambda_1se", "glmnet_lambda_1se", "1se_steps", "max_cvm_rel_diff", "acfcd_s", "glmnet_s",
		"rule_lambda_min", "rule_min_steps", "rule_acfcd_s", "status"})
	c := benchkit.CSVFloat
	for _, r := range rows {
		cw.Write([]string{r.Set, fmt.Sprint(r.Folds), fmt.Sprint(r.ACFCDN), fmt.Sprint(r.GlmnetN), c(r.AMin), c(r.GMin), c(r.MinSteps),
			c(r.A1SE), c(r.G1SE), c(r.SE1Steps), c(r.MaxCVMDiff), c(r.ACFCDSec), c(r.GlmnetS),
			c(r.RuleMin), c(r.RuleMinSteps), c(r.RuleSec), r.Status})
	}
	cw.Flush()
	return cw.Error()
}

// writeCVCurves writes both tools' curves, one line per λ of acfcd's
// sequence.
func writeCVCurves(w io.Writer, rows []*cvRow) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"set", "k", "lambda", "acfcd_cvm", "acfcd_cvsd", "acfcd_nnz", "glmnet_cvm", "glmnet_cvsd", "glmnet_nzero"})
	c := benchkit.CSVFloat
	for _, r := range rows {
		a := r.acfcd
		if a == nil {
			continue
		}
		for j, lam := range a.Lambda {
			gm, gs, gn := "", "", ""
			if r.glmnet != nil {
				if k := matchLambda(r.glmnet.Lambda, lam); k >= 0 {
					gm, gs, gn = c(r.glmnet.CVM[k]), c(r.glmnet.CVSD[k]), fmt.Sprint(r.glmnet.NZero[k])
				}
			}
			cw.Write([]string{r.Set, fmt.Sprint(j + 1), c(lam), c(a.MeanError[j]), c(a.SE[j]), fmt.Sprint(a.NNZ[j]), gm, gs, gn})
		}
	}
	cw.Flush()
	return cw.Error()
}
