package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/acfcd/acfcd/bench/internal/benchkit"
	dataio "github.com/acfcd/acfcd/io"
)

// baselineEps makes liblinear-train stop after its first sweep, so that
// its process time is parse + one sweep + write: the part of a run that
// is not training.
const baselineEps = 1e30

// runner executes the grid.
type runner struct {
	o      *options
	prep   *preparer
	exe    string // this program, for -worker
	ll     string // liblinear-train ("" if not used)
	python string // python3 with scikit-learn ("" if not used)
	est    *estimator

	runs      []*runRec
	baselines map[string][]float64 // "set|s" → baseline process times
	total     int                  // runs planned (for progress)
	done      int
	started   time.Time
	stop      *atomic.Bool // set on Ctrl-C: no new runs
	onConfig  func()       // called after every configuration (writes the CSV so far)
}

// progress prints a line on stderr unless -q.
func (r *runner) progress(format string, args ...any) {
	if !r.o.Quiet {
		fmt.Fprintf(os.Stderr, format+"\n", args...)
	}
}

// tools returns the tools run on configuration c: the acfcd selections,
// then the external anchor. scikit-learn does not take -eps, so it runs
// with the first eps of each (set, λ) only.
func (r *runner) tools(c config, firstEps bool) []string {
	g := gridOf(r.o.grids, c.Problem)
	t := append([]string(nil), selectsFor(g, r.o.Selects)...)
	switch {
	case g.Anchor == anchorLiblinear && r.ll != "":
		t = append(t, toolLiblinear)
	case g.Anchor == anchorSklearn && r.python != "" && firstEps:
		t = append(t, toolSklearn)
	}
	return t
}

// runAll runs every configuration (all rounds of one configuration
// together, tools alternating within a round).
func (r *runner) runAll(cfgs []config) error {
	r.baselines = map[string][]float64{}
	r.started = time.Now()
	seenLambda := map[string]bool{}
	for _, c := range cfgs {
		if r.stop != nil && r.stop.Load() {
			break
		}
		sd, err := r.prep.prepare(c.Set, c.File, c.Problem == probWW)
		if err != nil {
			return fmt.Errorf("%s: %w", c.Set, err)
		}
		lk := fmt.Sprintf("%s|%g", c.File, c.Value)
		first := !seenLambda[lk]
		seenLambda[lk] = true
		tools := r.tools(c, first)
		if containsTool(tools, toolLiblinear) {
			r.baseline(c, sd)
		}
		recs := make(map[string][]*runRec)
		for round := 1; round <= r.o.Rounds; round++ {
			for _, t := range tools {
				if r.stop != nil && r.stop.Load() {
					break
				}
				prev := recs[t]
				if len(prev) > 0 && prev[0].failed() {
					r.done++ // a timeout or error is not retried
					continue
				}
				var rec *runRec
				switch t {
				case toolLiblinear:
					rec = r.runLiblinear(c, sd, round)
				case toolSklearn:
					rec = r.runSklearn(c, sd, round)
				default:
					rec = r.runACFCD(c, sd, t, round)
				}
				recs[t] = append(recs[t], rec)
				r.runs = append(r.runs, rec)
				r.done++
				r.est.observe(c, t, rec)
				r.report(rec)
			}
		}
		if r.onConfig != nil {
			r.onConfig()
		}
	}
	r.finish()
	return nil
}

func containsTool(ts []string, t string) bool {
	for _, x := range ts {
		if x == t {
			return true
		}
	}
	return false
}

// report prints the progress line of a finished run.
func (r *runner) report(rec *runRec) {
	c := rec.Cfg
	el := time.Since(r.started)
	left := r.est.remaining()
	val := c.valueKey() + "=" + c.valueText()
	eps := fmtNum(c.Eps)
	if rec.Tool == toolSklearn {
		eps = "tol " + fmtNum(r.o.SkTol)
	}
	sec := rec.Sec
	if rec.Tool == toolLiblinear {
		sec = rec.Wall
	}
	note := ""
	if rec.Status == stError {
		note = " " + firstLine(rec.Note)
	}
	r.progress("[%d/%d] %-6s %-12s %-14s eps=%-7s %-10s r%d %8ss %s%s  (elapsed %s, ~%s left)",
		r.done, r.total, c.Variant(), c.Set, val, eps, rec.Tool, rec.Round, fmtSec(sec), rec.Status, note,
		el.Round(time.Second), left.Round(time.Second))
}

// baseline runs liblinear-train -e 1e30 on the set, rounds times, once per
// (set, -s).
func (r *runner) baseline(c config, sd *setData) {
	key := fmt.Sprintf("%s|%d", c.File, c.S)
	if _, ok := r.baselines[key]; ok {
		return
	}
	bc := config{Problem: c.Problem, S: c.S, Set: c.Set, File: c.File, Value: 1, Eps: baselineEps}
	var times []float64
	for round := 1; round <= r.o.Rounds; round++ {
		rec := newRec(bc, toolBaseline, round)
		mp := filepath.Join(r.prep.ws.Dir(), "models", "baseline.model")
		p := runTimed(r.ll, benchkit.TrainArgs(c.S, 1, baselineEps, -1, sd.Text, mp), "", "", r.o.Timeout+time.Minute, 0)
		rec.Wall, rec.CPU, rec.Sec = p.Wall, p.CPU, p.Wall
		rec.Timeout = (r.o.Timeout + time.Minute).Seconds()
		switch {
		case p.Stopped:
			rec.Status, rec.Note = stError, "interrupted"
		case p.Killed:
			rec.Status = stTimeout
		case p.Err != nil:
			rec.Status, rec.Note = stError, fmt.Sprintf("%v: %s", p.Err, benchkit.Tail(p.Stdout+p.Stderr, 300))
		default:
			rec.Status = stOK
			if out, err := benchkit.ParseLiblinearOutput(p.Stdout + p.Stderr); err == nil {
				rec.Epochs = out.Iter
			}
			times = append(times, p.Wall)
		}
		r.runs = append(r.runs, rec)
		r.done++
		r.est.observe(bc, toolBaseline, rec)
		r.progress("[%d/%d] %-6s %-12s liblinear baseline (-e 1e30: parse + 1 sweep + write) r%d %ss %s", r.done, r.total, c.Variant(), c.Set, round, fmtSec(p.Wall), rec.Status)
	}
	r.baselines[key] = times
}

// baselineMedian is the median baseline time of (set, -s), NaN if none.
func (r *runner) baselineMedian(c config) float64 {
	return benchkit.Median(r.baselines[fmt.Sprintf("%s|%d", c.File, c.S)])
}

// runACFCD runs one acfcd selection in a worker process.
func (r *runner) runACFCD(c config, sd *setData, sel string, round int) *runRec {
	rec := newRec(c, sel, round)
	j := job{Problem: c.Problem, S: c.S, Train: sd.Cache, Select: sel, Seed: r.o.Seed, Timeout: r.o.Timeout.Seconds()}
	switch c.Problem {
	case probLasso:
		j.Lambda = c.Value * sd.LambdaMax
		j.Eps = c.Eps * j.Lambda
		rec.Lambda = j.Lambda
	case probWW:
		j.C, j.Eps, j.Test = c.Value, c.Eps, sd.TestCache
	default:
		j.C, j.Eps = c.Value, c.Eps
	}
	rec.EpsAbs, rec.Timeout = j.Eps, j.Timeout
	in, _ := json.Marshal(j)
	// The worker cancels itself at the limit and then measures where it
	// stopped (one KKT pass); it is killed if it overruns by much more.
	grace := 5*time.Second + r.o.Timeout/5
	p := runTimed(r.exe, []string{"-worker"}, string(in), startMarker, r.o.Timeout+grace, 5*time.Minute)
	rec.Wall = p.Wall
	switch {
	case p.Stopped:
		rec.Status, rec.Note = stError, "interrupted"
		return rec
	case p.Killed:
		rec.Status, rec.Sec = stTimeout, p.SinceStart
		rec.Note = "killed by the harness"
		return rec
	case p.Err != nil:
		rec.Status, rec.Note = stError, fmt.Sprintf("%v: %s", p.Err, strings.TrimSpace(benchkit.Tail(p.Stderr, 400)))
		return rec
	}
	var w workerResult
	if err := json.Unmarshal([]byte(lastLine(p.Stdout)), &w); err != nil {
		rec.Status, rec.Note = stError, fmt.Sprintf("worker output: %v: %s", err, benchkit.Tail(p.Stdout, 200))
		return rec
	}
	rec.Sec, rec.CPU = w.TrainSec, w.CPUSec
	rec.Steps, rec.Epochs, rec.Ops = w.Steps, w.Epochs, w.Ops
	rec.Objective, rec.Primal, rec.Gap = float64(w.Objective), float64(w.Primal), float64(w.Gap)
	rec.Violation, rec.Eval, rec.NNZ, rec.TestAcc = float64(w.Violation), float64(w.Eval), w.NNZ, float64(w.TestAcc)
	switch {
	case w.Cancelled:
		rec.Status = stTimeout
	case w.Converged:
		rec.Status = stOK
	default:
		rec.Status = stCap
	}
	return rec
}

// runLiblinear runs liblinear-train on the set's text file.
func (r *runner) runLiblinear(c config, sd *setData, round int) *runRec {
	rec := newRec(c, toolLiblinear, round)
	rec.EpsAbs = c.Eps
	base := r.baselineMedian(c)
	if math.IsNaN(base) {
		base = 0
	}
	// The same training budget as acfcd's, on top of the baseline time.
	limit := r.o.Timeout + time.Duration(1.5*base*float64(time.Second)) + time.Second
	rec.Timeout = limit.Seconds()
	mp := filepath.Join(r.prep.ws.Dir(), "models", "liblinear.model")
	p := runTimed(r.ll, benchkit.TrainArgs(c.S, c.Value, c.Eps, -1, sd.Text, mp), "", "", limit, 0)
	rec.Wall, rec.CPU = p.Wall, p.CPU
	switch {
	case p.Stopped:
		rec.Status, rec.Note = stError, "interrupted"
		return rec
	case p.Killed:
		rec.Status = stTimeout
		rec.Note = "killed by the harness"
		return rec
	case p.Err != nil:
		rec.Status, rec.Note = stError, fmt.Sprintf("%v: %s", p.Err, benchkit.Tail(p.Stdout+p.Stderr, 300))
		return rec
	}
	out, err := benchkit.ParseLiblinearOutput(p.Stdout + p.Stderr)
	if err != nil {
		rec.Status, rec.Note = stError, err.Error()
		return rec
	}
	rec.Epochs = out.Iter
	if out.NObj > 0 {
		rec.Objective = out.Objective
	}
	rec.Status = stOK
	if out.Capped {
		rec.Status = stCap
	}
	return rec
}

// runSklearn fits scikit-learn's Lasso in a python process and evaluates
// its objective with the harness's own code.
func (r *runner) runSklearn(c config, sd *setData, round int) *runRec {
	sc := c
	sc.Eps = 0
	rec := newRec(sc, toolSklearn, round)
	rec.Lambda = c.Value * sd.LambdaMax
	rec.EpsAbs = r.o.SkTol
	rec.Timeout = r.o.Timeout.Seconds()
	dir := r.prep.ws.Dir()
	coef := filepath.Join(dir, "models", "sklearn.coef")
	os.Remove(coef)
	arg, err := sklearnArgs(sd.Text, r.prep.ws.Path(filepath.Base(sd.Text)+".npz"), coef, sd.Features,
		rec.Lambda, r.o.SkTol, r.o.SkMaxIter)
	if err != nil {
		rec.Status, rec.Note = stError, err.Error()
		return rec
	}
	p := runTimed(r.python, []string{"-c", sklearnScript, arg}, "", "start", r.o.Timeout, 10*time.Minute)
	rec.Wall, rec.CPU = p.Wall, p.CPU
	switch {
	case p.Stopped:
		rec.Status, rec.Note = stError, "interrupted"
		return rec
	case p.Killed && p.Started:
		rec.Status, rec.Sec = stTimeout, p.SinceStart
		rec.Note = "killed at the time limit"
		return rec
	case p.Killed:
		rec.Status, rec.Note = stError, "loading the data took over 10 minutes"
		return rec
	case p.Err != nil:
		rec.Status, rec.Note = stError, fmt.Sprintf("%v: %s", p.Err, strings.TrimSpace(benchkit.Tail(p.Stderr, 400)))
		return rec
	}
	var so sklearnOut
	if err := json.Unmarshal([]byte(lastLine(p.Stdout)), &so); err != nil {
		rec.Status, rec.Note = stError, fmt.Sprintf("sklearn output: %v: %s", err, benchkit.Tail(p.Stdout+p.Stderr, 300))
		return rec
	}
	rec.Sec, rec.Epochs, rec.NNZ = so.FitSec, so.NIter, so.NNZ
	rec.Gap = so.DualGap * float64(sd.Rows) // scikit-learn's gap is F/ℓ's
	rec.Status = stOK
	if !so.Converged {
		rec.Status = stCap
	}
	if so.FitSec > r.o.Timeout.Seconds() {
		rec.Status, rec.Note = stTimeout, "fit finished after the time limit"
	}
	w, err := readCoef(coef)
	if err != nil {
		rec.Note = err.Error()
		return rec
	}
	d, err := dataio.Load(sd.Cache, dataio.Options{Format: "cache"})
	if err != nil {
		rec.Note = err.Error()
		return rec
	}
	rec.Eval = lassoObjective(d, w, rec.Lambda)
	rec.Objective = rec.Eval
	d.Close()
	return rec
}

// finish computes what needs every run: liblinear's training time
// (process time minus the baseline median) and the LASSO objectives
// relative to scikit-learn's.
func (r *runner) finish() {
	sk := map[config]float64{}
	for _, rec := range r.runs {
		if rec.Tool == toolSklearn && rec.Round == 1 && !math.IsNaN(rec.Eval) {
			sk[rec.Cfg] = rec.Eval
		}
	}
	for _, rec := range r.runs {
		switch {
		case rec.Tool == toolLiblinear && rec.Status == stTimeout:
			rec.Sec = rec.Wall - max(r.baselineMedian(rec.Cfg), 0) // a lower bound
		case rec.Tool == toolLiblinear && !rec.failed():
			b := r.baselineMedian(rec.Cfg)
			rec.Baseline = b
			if d := rec.Wall - b; d > 0 {
				rec.Sec = d
			} else if !math.IsNaN(b) {
				rec.Sec = math.NaN()
				if n := "process time within its baseline: training time below resolution"; !strings.Contains(rec.Note, n) {
					rec.Note = appendNote(rec.Note, n)
				}
			}
		case rec.Cfg.Problem == probLasso && rec.Tool != toolSklearn:
			k := rec.Cfg
			k.Eps = 0
			if f, ok := sk[k]; ok && !math.IsNaN(rec.Eval) {
				rec.ObjRel = (rec.Eval - f) / math.Max(math.Abs(f), 1e-300)
			}
		}
	}
}

func appendNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > 160 {
		s = s[:160] + "…"
	}
	return s
}
