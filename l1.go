package acfcd

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"time"

	"github.com/acfcd/acfcd/internal/mix"
	"github.com/acfcd/acfcd/internal/procs"
	solver "github.com/acfcd/acfcd/solver"
	"github.com/acfcd/acfcd/solver/l1"
)

// DefaultL1Eps is liblinear's default -e for -s 5 and 6.
const DefaultL1Eps = 0.01

// trainL1 trains -s 5 and 6 (package l1) as liblinear's train(): two
// classes give one subproblem with class 0 positive and costs (C_0, C_1)
// of the weighted C; otherwise, one class included, one subproblem per
// class k against the rest, with costs (C_k, C). The subproblems train in
// parallel, each from w = 0.
func trainL1(ctx context.Context, d *Dataset, p Params, pool *procs.Pool) (*Model, *Result, error) {
	start := time.Now()
	eps := p.Eps
	if eps == 0 {
		eps = DefaultL1Eps
	}
	maxEpochs := p.MaxEpochs
	if maxEpochs == 0 {
		maxEpochs = DefaultMaxEpochs
	}
	labels, _, err := checkClassification(d, &p, false)
	if err != nil {
		return nil, nil, err
	}
	nsub := len(labels)
	if nsub == 2 {
		nsub = 1
	}
	workers := min(runtime.GOMAXPROCS(0), nsub)
	// Per feature: the model's weights, the column pointers and starts,
	// the feature of each coordinate, and per worker up to six float64s
	// (-s 6: w, g, the Hessian's diagonal, u, the last violation and the
	// gain scale; -s 5 fewer).
	if err := checkDense(d, uint64(8*nsub+20+workers*48), "training", len(labels)); err != nil {
		return nil, nil, err
	}
	res := &Result{Solver: p.Problem.String(), Select: p.Select.String(), C: p.C, Eps: eps, SupportVectors: -1}
	weighted, warnings := classCosts(labels, p)
	res.Warnings = warnings

	data := l1.NewData(d, p.bias())
	rows := d.Features
	if p.Bias > 0 {
		rows++
	}
	mdl := &Model{SolverType: res.Solver, Labels: labels, NumFeature: d.Features, Bias: p.bias(), NrW: nsub,
		W: make([]float64, rows*nsub)}
	subs := make([]Result, nsub)
	progress := lockedProgress(p.Progress)

	err = eachSubproblem(ctx, d, pool, nsub, func() func(k int) {
		// Each worker has its own solver buffers.
		var svc *l1.SVC
		var lr *l1.LR
		if p.Problem == L1SquaredHinge {
			svc = l1.NewSVC(data, p.UnregularizedBias, p.Tuning)
		} else {
			lr = l1.NewLR(data, p.UnregularizedBias, p.Tuning)
		}
		return func(k int) {
			r := &subs[k]
			cp, cn := weighted[k], p.C
			if len(labels) == 2 {
				cp, cn = weighted[0], weighted[1]
			}
			sp := l1Sub{ctx: ctx, p: &p, eps: smallEps(d, &p, eps), userEps: eps, maxEpochs: maxEpochs, class: k, seed: mix.Seed(p.Seed, uint64(k)),
				progress: progress, res: r}
			var w []float64
			if svc != nil {
				sp.svc(svc, d.Label, labels[k], cp, cn)
				w = svc.W()
			} else {
				sp.lr(lr, d.Label, labels[k], cp, cn)
				w = lr.W()
			}
			for j := range rows {
				mdl.W[j*nsub+k] = w[j]
			}
			r.NNZW = 0
			for _, v := range w {
				if v != 0 {
					r.NNZW++
				}
			}
		}
	}, func(k int) { subs[k].Cancelled = true }) // not started: w = 0
	if err != nil {
		return nil, nil, err
	}

	res.Converged = true
	for k := range subs {
		r := &subs[k]
		r.Solver, r.Select, r.C, r.Eps, r.SupportVectors = res.Solver, res.Select, res.C, res.Eps, -1
		res.add(r)
		res.Warnings = append(res.Warnings, r.Warnings...)
	}
	res.Gap = math.NaN()
	res.NNZW = mdl.NNZ()
	if nsub > 1 {
		res.Classes = subs
	}
	mdl.Partial = !res.Converged || res.Cancelled
	res.Seconds = time.Since(start).Seconds()
	return mdl, res, nil
}

// l1Sub trains one subproblem of -s 5 or 6.
type l1Sub struct {
	ctx       context.Context
	p         *Params
	eps       float64 // the tolerance the solver stops at (smallEps)
	userEps   float64
	maxEpochs int
	class     int
	seed      uint64
	progress  func(Progress)
	res       *Result
}

func (sp *l1Sub) config(work int64) solver.Config {
	cfg := solver.Config{Selection: sp.p.Select, Seed: sp.seed, MaxEpochs: sp.maxEpochs, ACF: sp.p.ACF,
		Repair: solver.RepairObserve, Work: work, Done: sp.ctx.Done(), Tuning: sp.p.Tuning, Trace: sp.p.trace}
	if sp.progress != nil {
		class := sp.class
		cfg.Progress = func(epoch int, viol, obj float64) {
			sp.progress(Progress{Class: class, Epoch: epoch, Violation: viol, Objective: obj})
		}
	}
	return cfg
}

// svc trains -s 5 in s: coordinate descent until a full pass certifies
// liblinear's stopping rule.
func (sp *l1Sub) svc(s *l1.SVC, label []float64, pos, cp, cn float64) {
	start := time.Now()
	ops0 := s.Ops
	obj := s.Reset(label, pos, cp, cn, sp.eps)
	cfg := sp.config(s.Work())
	if f := cfg.Progress; f != nil {
		// The driver's violation is the largest of a sweep; report the
		// stopping rule's, relative to eps.
		cfg.Progress = func(epoch int, _, obj float64) { f(epoch, s.Estimate(), obj) }
	}
	r := solver.NewRun(s, cfg)
	r.Obj = obj
	converged, measured := r.Settle(s, r.Solve(sp.seed))
	res := sp.res
	res.Iterations = r.Steps
	res.Epochs = r.Epochs()
	res.Operations = s.Ops - ops0
	if measured {
		res.Objective, res.Violation = s.PassObj, s.Relative(s.PassViol)
	} else {
		res.Objective, res.Violation = s.Objective(), math.NaN()
	}
	res.Primal = res.Objective
	res.Gap = math.NaN()
	res.Cancelled = r.Cancelled()
	res.Converged = converged && !res.Cancelled
	res.HitEpochCap = r.Capped() && !res.Converged && !res.Cancelled
	res.Seconds = time.Since(start).Seconds()
}

// lr trains -s 6 in s: newGLMNET, whose inner coordinate descent runs on
// the driver.
func (sp *l1Sub) lr(s *l1.LR, label []float64, pos, cp, cn float64) {
	start := time.Now()
	ops0 := s.Ops
	s.Reset(label, pos, cp, cn)
	cfg := sp.config(s.Work())
	var progress func(epoch int, viol, obj float64)
	if f := cfg.Progress; f != nil {
		progress = f
	}
	out := s.Train(cfg, sp.eps, sp.seed, progress)
	res := sp.res
	res.Iterations = out.Steps
	res.Epochs = out.Epochs
	res.Operations = s.Ops - ops0
	res.Objective = out.Obj
	res.Violation = s.Relative(out.Viol)
	if out.Cancelled {
		res.Violation = math.NaN()
	}
	res.Primal = res.Objective
	res.Gap = math.NaN()
	res.Cancelled = out.Cancelled
	res.Converged = out.Converged
	res.HitEpochCap = out.Capped && !out.Converged
	if out.Stuck {
		res.Warnings = append(res.Warnings, fmt.Sprintf("class %d: no step along newGLMNET's direction decreased the objective after %d outer iterations; "+
			"stopped at violation %.3g (eps %g)", sp.class, out.Newton, res.Violation, sp.userEps))
	}
	res.Seconds = time.Since(start).Seconds()
}
