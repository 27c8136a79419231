package main

import (
	"math"
	"slices"

	"github.com/acfcd/acfcd/bench/internal/benchkit"
)

// Tool names besides the acfcd selections.
const (
	toolLiblinear = "liblinear"
	toolBaseline  = "liblinear-baseline" // liblinear-train -e 1e30: parse + one sweep + write
	toolSklearn   = "sklearn"
)

// Statuses of a run.
const (
	stOK      = "ok"
	stCap     = "cap"     // stopped at the epoch/iteration cap, not converged
	stTimeout = "timeout" // stopped at -timeout (counts, if any, are at that moment)
	stError   = "error"
)

// runRec is one run of one tool: a line of the CSV.
type runRec struct {
	Cfg   config
	Tool  string
	Round int

	Status string
	// Sec is the training time compared in the tables: acfcd.Train
	// wall time, scikit-learn's fit, liblinear-train's process wall time
	// minus the median of its baseline runs (parse + one sweep + write).
	Sec      float64
	CPU      float64 // user+sys seconds (acfcd: over Train; external tools: whole process)
	Wall     float64 // whole process wall time
	Baseline float64 // liblinear: the baseline median subtracted

	Steps, Epochs, Ops int64 // -1: not known

	Objective float64 // acfcd Result.Objective, liblinear's printed dual, sklearn: F
	Primal    float64
	Gap       float64
	Violation float64
	Eval      float64 // LASSO: F(w) evaluated by the harness
	ObjRel    float64 // LASSO: (Eval − sklearn's Eval)/|sklearn's Eval|
	NNZ       int     // non-zero weights; -1 not known
	TestAcc   float64
	Lambda    float64 // LASSO: λ
	EpsAbs    float64 // the tolerance passed to the tool
	Timeout   float64
	Note      string
}

func newRec(c config, tool string, round int) *runRec {
	nan := math.NaN()
	return &runRec{Cfg: c, Tool: tool, Round: round, Sec: nan, CPU: nan, Wall: nan, Baseline: nan,
		Steps: -1, Epochs: -1, Ops: -1, Objective: nan, Primal: nan, Gap: nan, Violation: nan,
		Eval: nan, ObjRel: nan, NNZ: -1, TestAcc: nan, Lambda: nan, EpsAbs: nan}
}

func (r *runRec) failed() bool { return r.Status == stTimeout || r.Status == stError }

// cell is one tool on one configuration, over its rounds.
type cell struct {
	Cfg    config
	Tool   string
	Status string  // the first round's (a timeout or error stops later rounds)
	Sec    float64 // median over rounds
	CPU    float64
	First  *runRec // first round: counts and objectives
	Rounds int
}

// cellKey identifies a cell. scikit-learn does not take -eps: its runs are
// stored with Eps 0 and shown with every eps.
type cellKey struct {
	c    config
	tool string
}

// cells groups runs into cells.
func cells(runs []*runRec) map[cellKey]*cell {
	out := map[cellKey]*cell{}
	secs := map[cellKey][]float64{}
	cpus := map[cellKey][]float64{}
	for _, r := range runs {
		k := cellKey{r.Cfg, r.Tool}
		c, ok := out[k]
		if !ok {
			c = &cell{Cfg: r.Cfg, Tool: r.Tool, Status: r.Status, First: r}
			out[k] = c
		}
		c.Rounds++
		if !math.IsNaN(r.Sec) {
			secs[k] = append(secs[k], r.Sec)
		}
		if !math.IsNaN(r.CPU) {
			cpus[k] = append(cpus[k], r.CPU)
		}
	}
	for k, c := range out {
		c.Sec, c.CPU = benchkit.Median(secs[k]), benchkit.Median(cpus[k])
	}
	return out
}

// lookup finds the cell of tool on configuration c (scikit-learn's by set
// and λ only).
func lookup(m map[cellKey]*cell, c config, tool string) *cell {
	if tool == toolSklearn {
		c.Eps = 0
	}
	return m[cellKey{c, tool}]
}

// ratio is base ÷ x with what the statuses allow: "exact" when both
// finished (converged or capped), "lower" when only base timed out (its
// time is a lower bound, so the ratio is too), "upper" when only x timed
// out, "none" otherwise.
type ratio struct {
	V    float64
	Kind string
}

func speedup(base, x float64, baseStatus, xStatus string) ratio {
	if math.IsNaN(base) || math.IsNaN(x) || x <= 0 || base <= 0 ||
		baseStatus == stError || xStatus == stError || baseStatus == "" || xStatus == "" {
		return ratio{math.NaN(), "none"}
	}
	bt, xt := baseStatus == stTimeout, xStatus == stTimeout
	switch {
	case bt && xt:
		return ratio{math.NaN(), "none"}
	case bt:
		return ratio{base / x, "lower"}
	case xt:
		return ratio{base / x, "upper"}
	}
	return ratio{base / x, "exact"}
}

// geomean of the exact ratios in rs (NaN for none) and how many there were.
func geomean(rs []ratio) (float64, int) {
	s, n := 0.0, 0
	for _, r := range rs {
		if r.Kind == "exact" && r.V > 0 {
			s += math.Log(r.V)
			n++
		}
	}
	if n == 0 {
		return math.NaN(), 0
	}
	return math.Exp(s / float64(n)), n
}

// distinctConfigs returns the configurations of runs in first-seen order
// (scikit-learn's and the baselines' own entries left out).
func distinctConfigs(runs []*runRec) []config {
	var out []config
	seen := map[config]bool{}
	for _, r := range runs {
		if r.Tool == toolSklearn || r.Tool == toolBaseline || seen[r.Cfg] {
			continue
		}
		seen[r.Cfg] = true
		out = append(out, r.Cfg)
	}
	return out
}

// variantsOf lists the variants of cfgs in order.
func variantsOf(cfgs []config) []string {
	var out []string
	for _, c := range cfgs {
		if !slices.Contains(out, c.Variant()) {
			out = append(out, c.Variant())
		}
	}
	return out
}
