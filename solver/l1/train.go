package l1

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"time"

	"github.com/acfcd/acfcd/internal/tune"
	dataio "github.com/acfcd/acfcd/io"
	"github.com/acfcd/acfcd/model"
	solver "github.com/acfcd/acfcd/solver"
	"github.com/acfcd/acfcd/solver/fit"
)

// DefaultEps is liblinear's default -e for -s 5 and 6.
const DefaultEps = 0.01

// DefaultMaxEpochs is liblinear 2.3.0's max_iter, the cap on the epochs
// of each subproblem (-s 6: of the inner coordinate descent summed over
// newGLMNET's outer iterations).
const DefaultMaxEpochs = 1000

// Spec is what Train fits: -s 5 (Logistic false, L1R_L2LOSS_SVC) or -s 6
// (Logistic, L1R_LR).
type Spec struct {
	fit.Spec
	Logistic bool
	// FreeBias leaves the bias weight out of the regulariser (liblinear's
	// -R; needs a bias).
	FreeBias bool
}

// Train trains -s 5 and 6 as liblinear's train(): two classes give one
// subproblem with class 0 positive and costs (C_0, C_1) of the weighted C;
// otherwise, one class included, one subproblem per class k against the
// rest, with costs (C_k, C). The subproblems train in parallel, each from
// w = 0.
func Train(ctx context.Context, d *dataio.Dataset, s Spec) (*model.Model, *fit.Result, error) {
	start := time.Now()
	eps := s.Eps
	if eps == 0 {
		eps = DefaultEps
	}
	maxEpochs := s.MaxEpochs
	if maxEpochs == 0 {
		maxEpochs = DefaultMaxEpochs
	}
	labels, _, err := fit.CheckClassification(d, &s.Spec, false)
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
	if err := fit.CheckDense(d, uint64(8*nsub+20+workers*48), "training", len(labels)); err != nil {
		return nil, nil, err
	}
	res := &fit.Result{Select: s.Select.String(), C: s.C, Eps: eps, SupportVectors: -1}
	subs, warnings := fit.Subproblems(labels, &s.Spec)
	res.Warnings = warnings

	data := NewData(d, s.Bias)
	mdl := fit.OneVsRest(labels, d.Features, s.Bias, nsub, nil)
	progress := fit.LockedProgress(s.Progress)
	small := eps * s.Small(ctx, d.NNZ())
	drv, tu := tune.Get(ctx, solver.DefaultTuning), tune.Get(ctx, DefaultTuning)

	var rv *rowView
	if useDense(d, data, &s, tu) {
		rv = newRowView(data)
	}
	err = fit.Each(ctx, d, s.Pool, nsub, func() func(k int) {
		// Each worker has its own solver buffers.
		var svc *SVC
		var lr *LR
		var nt *Newton
		if rv != nil {
			nt = NewNewton(data, rv, s.Logistic, s.FreeBias, drv, tu)
		} else if s.Logistic {
			lr = NewLR(data, s.FreeBias, drv, tu)
		} else {
			svc = NewSVC(data, s.FreeBias, drv, tu)
		}
		return func(k int) {
			sp := &subs[k]
			t := subTrain{ctx: ctx, s: &s, eps: small, userEps: eps, maxEpochs: maxEpochs, class: k, seed: sp.Seed,
				progress: progress, res: &sp.Res}
			var w []float64
			if nt != nil {
				t.newton(nt, d.Label, labels[k], sp.Cp, sp.Cn)
				w = nt.W()
			} else if svc != nil {
				t.svc(svc, d.Label, labels[k], sp.Cp, sp.Cn)
				w = svc.W()
			} else {
				t.lr(lr, d.Label, labels[k], sp.Cp, sp.Cn)
				w = lr.W()
			}
			fit.CopyOut(mdl, k, w)
			sp.Res.NNZW = 0
			for _, v := range w {
				if v != 0 {
					sp.Res.NNZW++
				}
			}
		}
	}, func(k int) { subs[k].Res.Cancelled = true }) // not started: w = 0
	if err != nil {
		return nil, nil, err
	}
	for k := range subs {
		subs[k].Res.SupportVectors = -1
		res.Warnings = append(res.Warnings, subs[k].Res.Warnings...)
	}
	fit.Total(res, subs, mdl)
	res.Gap = math.NaN()
	res.Seconds = time.Since(start).Seconds()
	return mdl, res, nil
}

// subTrain trains one subproblem of -s 5 or 6.
type subTrain struct {
	ctx       context.Context
	s         *Spec
	eps       float64 // the tolerance the solver stops at (fit.Spec.Small)
	userEps   float64
	maxEpochs int
	class     int
	seed      uint64
	progress  func(fit.Progress)
	res       *fit.Result
}

func (t *subTrain) config(work int64) solver.Config {
	cfg := t.s.Config(t.ctx, t.seed, 0, t.maxEpochs, solver.RepairObserve, work)
	if t.progress != nil {
		class := t.class
		cfg.Progress = func(epoch int, viol, obj float64) {
			t.progress(fit.Progress{Class: class, Epoch: epoch, Violation: viol, Objective: obj})
		}
	}
	return cfg
}

// svc trains -s 5 in s: coordinate descent until a full pass certifies
// liblinear's stopping rule.
func (t *subTrain) svc(s *SVC, label []float64, pos, cp, cn float64) {
	start := time.Now()
	ops0 := s.Ops
	obj := s.Reset(label, pos, cp, cn, t.eps)
	cfg := t.config(s.Work())
	if f := cfg.Progress; f != nil {
		// The driver's violation is the largest of a sweep; report the
		// stopping rule's, relative to eps.
		cfg.Progress = func(epoch int, _, obj float64) { f(epoch, s.Estimate(), obj) }
	}
	r := solver.NewRun(s, cfg)
	r.Obj = obj
	converged, measured := r.Settle(s, r.Solve(t.seed))
	res := t.res
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
func (t *subTrain) lr(s *LR, label []float64, pos, cp, cn float64) {
	start := time.Now()
	ops0 := s.Ops
	s.Reset(label, pos, cp, cn)
	cfg := t.config(s.Work())
	out := s.Train(cfg, t.eps, t.seed, cfg.Progress)
	t.record(start, outcome{steps: out.Steps, epochs: out.Epochs, ops: s.Ops - ops0, obj: out.Obj, viol: s.Relative(out.Viol),
		cancelled: out.Cancelled, converged: out.Converged, capped: out.Capped, stuck: out.Stuck, newton: out.Newton}, "newGLMNET's direction", "outer iterations")
}

// outcome is what record needs of a -s 6 or dense Newton run.
type outcome struct {
	steps                               int64
	epochs, newton                      int
	ops                                 int64
	obj, viol                           float64 // viol relative, as Result.Violation
	cancelled, converged, capped, stuck bool
}

// record fills t.res from a run's outcome; dir and iters name the
// direction and iterations of a stuck line search's warning.
func (t *subTrain) record(start time.Time, o outcome, dir, iters string) {
	res := t.res
	res.Iterations = o.steps
	res.Epochs = o.epochs
	res.Operations = o.ops
	res.Objective = o.obj
	res.Violation = o.viol
	if o.cancelled {
		res.Violation = math.NaN()
	}
	res.Primal = res.Objective
	res.Gap = math.NaN()
	res.Cancelled = o.cancelled
	res.Converged = o.converged
	res.HitEpochCap = o.capped && !o.converged
	if o.stuck {
		res.Warnings = append(res.Warnings, fmt.Sprintf("class %d: no step along %s decreased the objective after %d %s; "+
			"stopped at violation %.3g (eps %g)", t.class, dir, o.newton, iters, res.Violation, t.userEps))
	}
	res.Seconds = time.Since(start).Seconds()
}

// useDense reports whether Train takes dense Newton (newton.go): the
// default selection, the fallbacks on, and the Hessian cheap against an
// epoch of coordinate descent and small enough to hold.
func useDense(d *dataio.Dataset, dt *Data, s *Spec, tu *Tuning) bool {
	n := int64(len(dt.cols))
	if s.Select != solver.ACFShrink || s.NoFallback || tu.L1DenseEpochs <= 0 || n == 0 || n*n > int64(tu.L1DenseMax) {
		return false
	}
	var ops float64
	extra := int64(0)
	if dt.bias > 0 {
		extra = 1
	}
	for i := range d.Rows {
		m := d.RowPtr[i+1] - d.RowPtr[i] + extra
		ops += float64(m * (m + 1) / 2)
	}
	// Both kinds of Newton's work within L1DenseEpochs of an epoch: forming
	// H costs at most that many epochs, and a sweep over the model (n²)
	// at most that fraction of one (where H is not much smaller than the
	// data, the sweeps of its model cost what coordinate descent's do).
	epoch := float64(dt.Work())
	return ops <= tu.L1DenseEpochs*epoch && float64(n*n)*tu.L1DenseEpochs <= epoch
}

// newton trains one subproblem of -s 5 or 6 by dense Newton.
func (t *subTrain) newton(s *Newton, label []float64, pos, cp, cn float64) {
	start := time.Now()
	ops0 := s.Ops
	var progress func(int, float64, float64)
	if t.progress != nil {
		class := t.class
		progress = func(it int, viol, obj float64) {
			t.progress(fit.Progress{Class: class, Epoch: it, Violation: viol, Objective: obj})
		}
	}
	out := s.Train(label, pos, cp, cn, t.eps, MaxNewtonIter, t.ctx.Done(), progress)
	// Epochs: each Newton iteration reads the data a few times, as -s 6's
	// outer iterations.
	t.record(start, outcome{steps: out.Steps, epochs: out.Newton, ops: s.Ops - ops0, obj: out.Obj, viol: s.Relative(out.Viol),
		cancelled: out.Cancelled, converged: out.Converged, capped: out.Capped, stuck: out.Stuck, newton: out.Newton}, "Newton's direction", "iterations")
}
