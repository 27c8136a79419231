package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"time"

	"github.com/acfcd/acfcd/bench/internal/benchkit"
)

// setInfo is what the time estimate needs to know about a set.
type setInfo struct {
	Rows     int
	Features int
	NNZ      int64
	R2       float64 // mean squared row norm ‖x‖²
	Classes  int
	LassoExp float64 // LASSO epochs grow as (λ_max/λ)^LassoExp (measured on arcene, p ≫ n); 0 = 0.6
}

// knownSets are the sets of ../shared/data (SOURCES.md; R2 measured once),
// so that the estimate needs no data. Other sets are guessed from their
// file size.
var knownSets = map[string]setInfo{
	"heart_scale":                {270, 13, 3378, 8.1, 2, 0},
	"a1a":                        {1605, 123, 22249, 13.9, 2, 0},
	"a5a":                        {6414, 123, 88939, 13.9, 2, 0},
	"a9a":                        {32561, 123, 451592, 13.9, 2, 0},
	"w8a":                        {49749, 300, 579586, 11.7, 2, 0},
	"mushrooms":                  {8124, 112, 170604, 21, 2, 0},
	"news20bin":                  {15935, 62061, 1272569, 483, 2, 0},
	"news20":                     {12748, 62061, 1018055, 483, 20, 0}, // the 80 % that WW trains on
	"rcv1_small":                 {1000, 47236, 77739, 1, 2, 0},
	"url_Instances_1000":         {2000, 3231961, 233595, 107, 2, 0},
	"debian-desc.binary":         {63310, 235350, 5699464, 1, 2, 0},
	"debian-desc.multiclass":     {50648, 235350, 4559571, 1, 51, 0}, // 80 %
	"debian-desc.regression":     {63310, 235350, 5699464, 1, 0, 0},
	"wordnet-glosses.multiclass": {94233, 206261, 2010262, 1, 45, 0}, // 80 %
	"iris.scale":                 {120, 4, 470, 1.1, 3, 0},           // 80 %
	"soybean.onehot":             {547, 100, 17254, 32, 19, 0},       // 80 %
	"dna.scale":                  {2000, 180, 91233, 46, 3, 0},
	"usps_zip.train":             {5833, 256, 1492921, 213, 10, 0}, // 80 %
	"mnist":                      {60000, 780, 8994156, 88, 10, 0},
	"cpusmall":                   {8192, 12, 94903, 2.1e12, 0, 0.15},
	"housing_scale":              {506, 13, 6578, 6.8, 0, 0},
	"arcene_train":               {100, 10000, 540941, 2.1e8, 0, 2.2},
	"breast-cancer_scale":        {683, 10, 6830, 5, 2, 0},
	"diabetes_scale":             {768, 8, 6135, 3, 2, 0},
	"dorothea_train":             {800, 88119, 727760, 910, 2, 0},
	"golub_leukemia_train":       {38, 7129, 270902, 1e9, 2, 0},
}

// infoOf returns the known stats of file, or a guess from its size in the
// data directory.
func infoOf(ws *benchkit.Workspace, file string) setInfo {
	if s, ok := knownSets[file]; ok {
		return s
	}
	nnz := int64(100000)
	if p, err := ws.Find(file); err == nil {
		if st, err := os.Stat(p); err == nil {
			size := st.Size()
			if c, _ := benchkit.Compression(p); c != "" {
				size *= 4
			}
			nnz = max(size/12, 1000)
		}
	}
	return setInfo{Rows: int(max(nnz/30, 100)), Features: int(max(nnz/100, 10)), NNZ: nnz, R2: 10, Classes: 5}
}

// Cost constants of the model (amd64, seconds): per stored non-zero of a
// dot product plus an axpy, per coordinate step (selection, bookkeeping),
// per parsed non-zero of libsvm text.
const (
	costNNZ     = 3e-9
	costStep    = 60e-9
	costStepACF = 110e-9
	costParse   = 200e-9
	costWorker  = 0.05 // process start, cache mmap, setup
	capEpochs   = 1000
)

// runEstimate is the estimated cost of one run: typical and worst case.
type runEstimate struct {
	Typ, Worst float64
}

// estimateRun models one run of tool on c. The model is rough (a factor of
// 2–3 either way on one run); it is meant for planning the whole grid.
func estimateRun(c config, tool string, info setInfo, timeout float64) runEstimate {
	nnz, rows := float64(info.NNZ), float64(info.Rows)
	epsFac := 1 + 0.5*math.Log10(math.Max(0.01/c.Eps, 1))
	var perEpoch, epochs, extra float64
	acf := tool == "acf" || tool == "acf+shrink"
	stepCost := costStep
	if acf {
		stepCost = costStepACF
	}
	switch c.Problem {
	case probSVM, probLR:
		x := c.Value * info.R2
		perEpoch = nnz*costNNZ + rows*stepCost
		if acf {
			epochs = 10 * math.Pow(1+x, 0.6)
		} else {
			epochs = 10 * math.Pow(1+x, 0.9)
		}
		if c.Problem == probLR {
			perEpoch *= 1.5
		}
		if tool == "shrink" || tool == "acf+shrink" || tool == toolLiblinear {
			if x > 1 {
				perEpoch *= 0.5
			}
		}
		if tool == toolLiblinear {
			extra = nnz * costParse
		}
	case probLasso:
		feat := float64(info.Features)
		perEpoch = nnz*costNNZ + feat*stepCost
		ratio := 1 / c.Value
		ex := info.LassoExp
		if ex == 0 {
			ex = 0.6
		}
		epochs = 20 * math.Pow(ratio, ex)
		if acf {
			epochs = 3 + 10*math.Pow(ratio, 0.6*ex)
		}
		extra = nnz * 10e-9 // column copy
		if tool == toolSklearn {
			epochs *= 2 // a tighter tolerance
			extra += 1.5 + nnz*30e-9
			epsFac = 1
		}
	case probWW:
		k := float64(max(info.Classes, 2))
		perEpoch = 2*k*nnz*1.1e-9 + rows*k*20e-9
		// Calibrated on debian-desc, wordnet and mnist at C = 1, eps 0.01.
		epochs = 4 + 40*math.Pow(1+c.Value*info.R2, 0.8)
		if acf {
			epochs = 4 + 20*math.Pow(1+c.Value*info.R2, 0.6)
		}
	}
	limit := float64(capEpochs)
	if c.Problem == probLasso {
		limit = 100 * capEpochs // acfcd.DefaultLassoMaxEpochs: the time limit decides
	}
	epochs = math.Min(epochs*epsFac, limit)
	train := epochs * perEpoch
	worst := limit * perEpoch
	if tool != toolSklearn && tool != toolLiblinear {
		extra += costWorker + nnz*2e-9
	}
	return runEstimate{Typ: math.Min(train, timeout) + extra, Worst: math.Min(worst, timeout) + extra}
}

// plannedRun is one run of the plan.
type plannedRun struct {
	Cfg  config
	Tool string
	Est  runEstimate
}

// estimator holds the plan and tracks progress against it.
type estimator struct {
	plan     []plannedRun
	rounds   int
	doneEst  float64 // estimated seconds of the runs done
	doneReal float64 // their real seconds
	left     float64 // estimated seconds of the runs not done
	start    time.Time
}

// planRuns lists the runs of cfgs (every tool; liblinear baselines once
// per set and solver; scikit-learn once per set and λ) with their estimates.
func planRuns(cfgs []config, toolsOf func(c config, firstEps bool) []string, info func(file string) setInfo, timeout float64) []plannedRun {
	var plan []plannedRun
	seenLambda := map[string]bool{}
	seenBase := map[string]bool{}
	for _, c := range cfgs {
		lk := fmt.Sprintf("%s|%g", c.File, c.Value)
		first := !seenLambda[lk]
		seenLambda[lk] = true
		si := info(c.File)
		for _, t := range toolsOf(c, first) {
			if t == toolLiblinear {
				bk := fmt.Sprintf("%s|%d", c.File, c.S)
				if !seenBase[bk] {
					seenBase[bk] = true
					b := float64(si.NNZ)*costParse + 0.01
					plan = append(plan, plannedRun{Cfg: c, Tool: toolBaseline, Est: runEstimate{b, b}})
				}
			}
			plan = append(plan, plannedRun{Cfg: c, Tool: t, Est: estimateRun(c, t, si, timeout)})
		}
	}
	return plan
}

func newEstimator(plan []plannedRun, rounds int) *estimator {
	e := &estimator{plan: plan, rounds: rounds, start: time.Now()}
	for _, p := range plan {
		e.left += p.Est.Typ * float64(rounds)
	}
	return e
}

// observe records a finished run.
func (e *estimator) observe(c config, tool string, rec *runRec) {
	for _, p := range e.plan {
		match := p.Cfg == c
		switch tool {
		case toolSklearn:
			match = p.Cfg.File == c.File && p.Cfg.Value == c.Value
		case toolBaseline:
			match = p.Cfg.File == c.File && p.Cfg.S == c.S
		}
		if p.Tool == tool && match {
			e.doneEst += p.Est.Typ
			e.left -= p.Est.Typ
			real := rec.Wall
			if math.IsNaN(real) {
				real = p.Est.Typ
			}
			e.doneReal += real
			return
		}
	}
}

// remaining is the estimated time left, scaled by how the runs so far
// compared with their estimates.
func (e *estimator) remaining() time.Duration {
	f := 1.0
	if e.doneEst > 5 {
		f = math.Min(math.Max(e.doneReal/e.doneEst, 0.2), 5)
	}
	return time.Duration(math.Max(e.left, 0) * f * float64(time.Second))
}

// totals sums the plan per variant: runs, typical and worst-case seconds.
func totals(plan []plannedRun, rounds int) (map[string][3]float64, [3]float64) {
	per := map[string][3]float64{}
	var all [3]float64
	for _, p := range plan {
		r := float64(rounds)
		v := per[p.Cfg.Variant()]
		v[0] += r
		v[1] += p.Est.Typ * r
		v[2] += p.Est.Worst * r
		per[p.Cfg.Variant()] = v
		all[0] += r
		all[1] += p.Est.Typ * r
		all[2] += p.Est.Worst * r
	}
	return per, all
}

// printEstimate writes the plan's size and estimated duration.
func printEstimate(w io.Writer, plan []plannedRun, rounds int, timeout time.Duration) {
	per, all := totals(plan, rounds)
	var vs []string
	for v := range per {
		vs = append(vs, v)
	}
	sort.Strings(vs)
	fmt.Fprintf(w, "Plan: %d runs (%d rounds, time limit %s per run). Estimated duration (rough model; worst case = every run at its epoch cap or time limit):\n", int(all[0]), rounds, timeout)
	for _, v := range vs {
		x := per[v]
		fmt.Fprintf(w, "  %-7s %5d runs  ~%-9s worst %s\n", v, int(x[0]), fmtDur(x[1]), fmtDur(x[2]))
	}
	fmt.Fprintf(w, "  total   %5d runs  ~%-9s worst %s (plus data preparation on a first run: decompressing and caching)\n", int(all[0]), fmtDur(all[1]), fmtDur(all[2]))
}

func fmtDur(s float64) string {
	return time.Duration(s * float64(time.Second)).Round(time.Second).String()
}
