package main

import (
	"context"
	"fmt"
	"github.com/acfcd/acfcd"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/acfcd/acfcd/bench/internal/benchkit"
)

// refName is the tool name of the reference liblinear (-liblinear).
const refName = "liblinear-2.3.0"

// config is one cell of the grid.
type config struct {
	Set string
	S   int
	C   float64
	Eps float64
}

// row is one tool's result in one configuration.
type row struct {
	Config config
	Tool   string // "acfcd/acf", "liblinear-2.3.0", or an anchor's name
	ACFCD  bool
	Ref    bool // the liblinear 2.3.0 row

	Steps  int64 // acfcd coordinate steps (Result.Iterations); -1 = not known
	Epochs int64 // acfcd Result.Epochs; liblinear Σ #iter
	Ops    int64 // acfcd non-zeros touched; -1 = not known

	Total float64   // median seconds: acfcd load+train+save, liblinear whole process
	Train float64   // median acfcd training seconds; NaN for liblinear
	CPU   float64   // median user+sys seconds: acfcd's process over its run, a liblinear process's
	Times []float64 // Total per round

	Dual      float64 // minimised dual in liblinear's printed convention; NaN if not known
	Primal    float64 // harness-evaluated primal of the model; NaN if none
	GradInf   float64 // harness ‖∇P(w)‖∞ (-s 1, 7); NaN otherwise
	Gap       float64 // acfcd Result.Gap; NaN for liblinear
	ResPrimal float64 // acfcd Result.Primal; NaN for liblinear
	Violation float64 // acfcd Result.Violation; NaN for liblinear
	Excess    float64 // (Primal − best Primal of the config)/|best|
	Ratio     float64 // Total / liblinear 2.3.0's Total
	CPURatio  float64 // CPU / liblinear 2.3.0's CPU

	Status string // "ok", "cap", "cap→-s 2", "timeout", "error"
	Note   string

	model *acfcd.Model // kept for -check
}

func (r *row) failed() bool { return r.Status == "timeout" || r.Status == "error" }

// newRow returns a row with every optional number unknown.
func newRow(cfg config, tool string) *row {
	nan := math.NaN()
	return &row{Config: cfg, Tool: tool, Steps: -1, Epochs: -1, Ops: -1,
		Train: nan, CPU: nan, Dual: nan, Primal: nan, GradInf: nan, Gap: nan,
		ResPrimal: nan, Violation: nan, Excess: nan, Ratio: nan, CPURatio: nan}
}

// runner runs the tools of one configuration.
type runner struct {
	o  *options
	ws *benchkit.Workspace
}

// progress prints a line on stderr unless -q.
func (b *runner) progress(format string, args ...any) {
	if !b.o.Quiet {
		fmt.Fprintf(os.Stderr, format+"\n", args...)
	}
}

// modelPath is where a tool's model file goes (overwritten per run).
func (b *runner) modelPath(tool string) string {
	name := strings.NewReplacer("/", "_", "+", "_", " ", "_").Replace(tool)
	return filepath.Join(b.ws.Dir(), "models", name+".model")
}

// params are acfcd's training parameters for cfg and selection sel: a
// named selection is the pure dual CD (no Newton or interior-point fallback), so
// that selections compare with each other and with liblinear 2.3.0;
// "default" is what acfcd train does with no flags.
func (b *runner) params(cfg config, sel string) (acfcd.Params, error) {
	prob, err := acfcd.ParseProblem(strconv.Itoa(cfg.S))
	if err != nil {
		return acfcd.Params{}, err
	}
	p := acfcd.Params{Problem: prob, C: cfg.C, Eps: cfg.Eps, Bias: b.o.Bias,
		Seed: b.o.Seed, MaxEpochs: b.o.MaxEpochs}
	if sel != "default" {
		p.NoFallback = true
		if p.Select, err = acfcd.ParseSelection(sel); err != nil {
			return acfcd.Params{}, err
		}
	}
	return p, nil
}

// runConfig runs every tool on the training file path, -rounds times
// (tools alternate within a round), and evaluates each model's primal on
// eval, the training data as acfcd reads it.
func (b *runner) runConfig(cfg config, path string, eval *acfcd.Dataset) []*row {
	var rows []*row
	type tool struct {
		name, bin string
		sel       string // acfcd selection; "" for a binary
	}
	var tools []tool
	for _, sel := range b.o.Selects {
		tools = append(tools, tool{name: "acfcd/" + sel, sel: sel})
	}
	tools = append(tools, tool{name: refName, bin: b.o.Liblinear})
	for _, a := range b.o.Anchors {
		tools = append(tools, tool{name: a.Name, bin: a.Path})
	}
	for _, t := range tools {
		r := newRow(cfg, t.name)
		r.ACFCD, r.Ref = t.sel != "", t.name == refName
		rows = append(rows, r)
	}
	os.MkdirAll(filepath.Join(b.ws.Dir(), "models"), 0o755)
	trains := make([][]float64, len(tools))
	cpus := make([][]float64, len(tools))
	for round := 0; round < b.o.Rounds; round++ {
		for k, t := range tools {
			r := rows[k]
			if r.failed() {
				continue // a timeout or error is not retried
			}
			first := round == 0
			ctx, cancel := context.WithTimeout(context.Background(), b.o.Timeout)
			if t.sel != "" {
				p, err := b.params(cfg, t.sel)
				var ar acfcdRun
				if err == nil {
					ar, err = runACFCD(ctx, path, p, b.o.Threads, b.modelPath(t.name))
				}
				cancel()
				switch {
				case err != nil:
					r.Status, r.Note = "error", err.Error()
				case ar.TimedOut:
					r.Status = "timeout"
				}
				r.Times = append(r.Times, ar.TotalSec)
				trains[k] = append(trains[k], ar.TrainSec)
				cpus[k] = append(cpus[k], ar.CPUSec)
				if first && err == nil && ar.Result != nil {
					res := ar.Result
					r.Steps, r.Epochs, r.Ops = res.Iterations, int64(res.Epochs), res.Operations
					r.Dual, r.Gap, r.Violation = res.Objective, res.Gap, res.Violation
					r.ResPrimal = res.Primal
					r.model = ar.Model
					if r.Status == "" {
						r.Status = "ok"
						if res.HitEpochCap || !res.Converged {
							r.Status = "cap"
						}
					}
				}
			} else {
				mp := b.modelPath(t.name)
				os.Remove(mp)
				pr, err := benchkit.RunProcess(ctx, t.bin, benchkit.TrainArgs(cfg.S, cfg.C, cfg.Eps, b.o.Bias, path, mp)...)
				cancel()
				r.Times = append(r.Times, pr.Seconds)
				cpus[k] = append(cpus[k], pr.CPU)
				switch {
				case err != nil:
					r.Status, r.Note = "error", err.Error()
				case pr.TimedOut:
					r.Status = "timeout"
				}
				if first && !r.failed() {
					b.readLiblinear(r, pr.Output, mp)
				}
			}
			b.progress("%s -s %d -c %g -e %g  %-18s round %d: %.3fs %s", cfg.Set, cfg.S, cfg.C, cfg.Eps, t.name, round+1, r.Times[len(r.Times)-1], r.Status)
		}
	}
	for k, r := range rows {
		r.Total = benchkit.Median(r.Times)
		if len(trains[k]) > 0 {
			r.Train = benchkit.Median(trains[k])
		}
		if len(cpus[k]) > 0 {
			r.CPU = benchkit.Median(cpus[k])
		}
		if r.model != nil && r.Status != "timeout" && r.Status != "error" {
			ev, err := evalPrimal(r.model, eval, cfg.S, cfg.C)
			if err != nil {
				r.Note = appendNote(r.Note, "primal: "+err.Error())
			} else {
				r.Primal, r.GradInf = ev.Primal, ev.GradInf
			}
		}
	}
	finishConfig(rows)
	return rows
}

// readLiblinear fills r from a liblinear-train run's output and model.
func (b *runner) readLiblinear(r *row, output, modelPath string) {
	out, err := benchkit.ParseLiblinearOutput(output)
	if err != nil {
		r.Status, r.Note = "error", err.Error()+": "+benchkit.Tail(output, 300)
		return
	}
	r.Epochs = out.Iter
	if out.NObj > 0 {
		r.Dual = out.Objective
	}
	r.Status = "ok"
	if out.Capped {
		r.Status = "cap"
	}
	if out.Switched != "" {
		// The model is the primal solver's; the dual printed at the cap
		// says nothing about it.
		r.Status = "cap→" + out.Switched
		r.Dual = math.NaN()
	}
	m, err := acfcd.LoadModel(modelPath)
	if err != nil {
		r.Note = appendNote(r.Note, "model: "+err.Error())
		return
	}
	r.model = m
}

// finishConfig sets Excess (against the best primal of the configuration,
// timeouts excluded) and Ratio and CPURatio (against liblinear 2.3.0's
// total wall and CPU time).
func finishConfig(rows []*row) {
	best := math.Inf(1)
	refTime, refCPU := math.NaN(), math.NaN()
	for _, r := range rows {
		if !r.failed() && !math.IsNaN(r.Primal) {
			best = min(best, r.Primal)
		}
		if r.Ref && !r.failed() {
			refTime, refCPU = r.Total, r.CPU
		}
	}
	for _, r := range rows {
		if !math.IsNaN(r.Primal) && !math.IsInf(best, 1) && !r.failed() {
			r.Excess = (r.Primal - best) / math.Max(math.Abs(best), 1e-300)
		}
		if !r.failed() && refTime > 0 {
			r.Ratio = r.Total / refTime
		}
		if !r.failed() && refCPU > 0 {
			r.CPURatio = r.CPU / refCPU
		}
	}
}

func appendNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}
