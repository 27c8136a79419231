package dual

import (
	"context"
	"math"
	"sync"
	"time"

	"github.com/acfcd/acfcd/internal/procs"
	dataio "github.com/acfcd/acfcd/io"
	"github.com/acfcd/acfcd/model"
	solver "github.com/acfcd/acfcd/solver"
	"github.com/acfcd/acfcd/solver/dcd"
	"github.com/acfcd/acfcd/solver/finish"
	"github.com/acfcd/acfcd/solver/fit"
	"github.com/acfcd/acfcd/solver/primal"
)

// classifiers is the setup of a -s 1, 3 or 7 training shared by its
// subproblems: liblinear's train() with one binary subproblem, or one per
// class.
type classifiers struct {
	s         *Spec
	ctx       context.Context
	loss      dcd.Loss
	inner     float64 // the violation certified: eps/2 for the SVMs
	user      float64 // the same for the user's eps (inner is smaller on small problems)
	maxEpochs int
	sel       solver.Selection
	labels    []float64
	sh        *dcd.Data
	findDups  func() *finish.Dups // the groups of identical rows, found on first call; nil: none looked for
	subs      []fit.Subproblem
	progress  func(fit.Progress)
	warm      *Warm
	t         tunings
}

// newClassifiers checks d and s and sets up the subproblems; res has the
// fields that do not depend on training.
func newClassifiers(ctx context.Context, d *dataio.Dataset, s *Spec) (*classifiers, *fit.Result, error) {
	c := &classifiers{s: s, ctx: ctx, sel: s.Select}
	c.loss = [...]dcd.Loss{L2LossSVC: dcd.L2SVM, L1LossSVC: dcd.L1SVM, LR: dcd.Logistic}[s.Kind]
	eps := s.Eps
	if eps == 0 {
		eps = DefaultEps
	}
	c.maxEpochs = s.MaxEpochs
	if c.maxEpochs == 0 {
		c.maxEpochs = DefaultMaxEpochs
	}
	labels, _, err := fit.CheckClassification(d, &s.Spec, false)
	if err != nil {
		return nil, nil, err
	}
	c.labels = labels
	res := &fit.Result{Select: s.Select.String(), C: s.C, Eps: eps}
	c.subs, res.Warnings = fit.Subproblems(labels, &s.Spec)

	// -e keeps liblinear's meaning. For the SVMs liblinear stops when
	// PGmax − PGmin ≤ eps over a sweep; certifying max|PG| ≤ eps/2 over all
	// coordinates implies that spread for every coordinate at once. For
	// LR liblinear stops on max|∂f/∂α_i| ≤ eps, certified as is.
	c.inner = eps
	if c.loss != dcd.Logistic {
		c.inner = eps / 2
	}
	c.user = c.inner
	c.inner *= s.Small(ctx, d.NNZ())
	c.t = tuningsOf(ctx)
	c.sh = dcd.NewData(d, s.Bias, c.t.dcd)
	c.warm, _ = s.Warm.(*Warm)
	if t := c.t.own; c.loss != dcd.Logistic && !s.NoFallback && t.PushDups && c.sh.N <= t.DupsMaxRows {
		c.findDups = sync.OnceValue(func() *finish.Dups { return c.warm.findDups(c.sh) }) // a parameter search: once per fold
	}
	if c.loss == dcd.Logistic {
		// No α_i of the logistic dual sits at a bound: nothing to shrink.
		switch c.sel {
		case solver.Shrink:
			c.sel = solver.Uniform
		case solver.ACFShrink:
			c.sel = solver.ACF
		}
	}
	c.progress = fit.LockedProgress(s.Progress)
	return c, res, nil
}

// finisher is what a subproblem needs of its finisher besides the
// driver's seam.
type finisher interface {
	solver.Finisher
	Reset()        // for the next subproblem, after the dual's
	Steps() int    // of the current subproblem
	Upfront() bool // its steps were chosen up front, not by a stalling dual
}

// pointer is a finisher whose own point may be the better model.
type pointer interface {
	Point() (w []float64, primal, rel float64)
}

// worker returns a subproblem's state and finisher (nil with NoFallback),
// reused from one subproblem to the next; w, if not nil, is the weight
// vector to train in. The hinge loss's finisher is the interior-point
// method on its dual, the others' primal Newton.
func (c *classifiers) worker(w []float64, pool *procs.Pool) (*dcd.Problem, finisher) {
	dp := dcd.New(c.sh, c.loss, c.inner, w, pool, c.t.drv, c.t.dcd)
	switch {
	case c.s.NoFallback:
		return dp, nil
	case c.loss == dcd.L1SVM:
		return dp, finish.NewIPM(dp, c.t.fin, c.t.pt)
	}
	return dp, finish.NewNewton(dp, c.t.fin, c.t.pt)
}

// solve trains subproblem k in dp: dual coordinate descent, handing over
// to the finisher fin (nil: none) whenever its rule says so, until the
// full KKT pass certifies the point. It fills in the subproblem's result.
func (c *classifiers) solve(k int, dp *dcd.Problem, fin finisher) {
	start := time.Now()
	sp := &c.subs[k]
	repair := solver.RepairMax
	if c.loss == dcd.Logistic {
		// A logistic dual has no bounds and its failed passes find many
		// violators, whose p_max would crowd out the rest.
		repair = solver.RepairAtLeastOne
	}
	cfg := c.s.Config(c.ctx, sp.Seed, c.inner, c.maxEpochs, repair, 2*c.sh.NNZ())
	cfg.Selection, cfg.EarlyCheck = c.sel, true
	if c.progress != nil {
		cfg.Progress = func(epoch int, viol, obj float64) {
			c.progress(fit.Progress{Class: sp.Class, Label: c.labels[sp.Class], Subproblems: len(c.subs), Epoch: epoch, Violation: viol, Objective: obj})
		}
	}
	if c.findDups != nil {
		// The groups are looked for at the first batch's end: a
		// subproblem certified after Newton never needs them.
		cfg.AfterBatch = func() float64 {
			if dups := c.findDups(); dups != nil {
				return dups.Push(dp)
			}
			return 0
		}
	}

	obj := dp.Reset(c.labels[sp.Class], sp.Cp, sp.Cn)
	if c.s.PrimalEps > 0 {
		pos := 0
		for _, y := range dp.Y {
			if y > 0 {
				pos++
			}
		}
		dp.Rule.Tol = primal.SolverTol(c.s.PrimalEps, pos, dp.N)
		dp.Rule.Reset()
	}
	if c.warm != nil {
		obj = c.warm.start(k, dp, obj)
	}
	if fin != nil {
		fin.Reset()
		cfg.Finisher = fin
	}
	r := solver.NewRun(dp, cfg)
	r.Obj = obj
	converged := r.Converge(sp.Seed)

	res := &sp.Res
	converged, ok := r.Settle(dp, converged)
	viol, primal := fit.Measured(r, ok, dp.PassViol, dp.PassPrimal)
	// Stopped short of the small-problem target (the epoch cap) at a
	// point that the pass finds within the user's eps: converged as
	// liblinear would say.
	converged = converged || (ok && !r.Cancelled() && viol <= c.user)
	res.Objective = dp.Objective()
	if pt, is := fin.(pointer); is {
		if w, pN, rel := pt.Point(); pN < primal {
			// A Newton point is the better model (raw p ≫ n data, where
			// the dual's certified w is far above the optimum). The gap,
			// against the certified dual, bounds its error; after a
			// refused dual (finish.Newton.Refuses) its violation is the
			// primal rule's, scaled so that meeting it reads as eps.
			copy(dp.W, w)
			primal = pN
			if !math.IsNaN(rel) {
				viol = rel * c.user
			}
		}
	}
	res.SetRun(r, dp.Ops, converged, viol, primal)
	if fin != nil {
		res.NewtonSteps = fin.Steps()
		res.NewtonFirst = res.NewtonSteps > 0 && fin.Upfront()
	}
	for _, v := range dp.W {
		if v != 0 {
			res.NNZW++
		}
	}
	res.SupportVectors = 0
	for _, a := range dp.Alpha {
		if a > 0 {
			res.SupportVectors++
		}
	}
	res.Seconds = time.Since(start).Seconds()
	if c.warm != nil && !res.Cancelled {
		c.warm.keep(k, dp)
	}
}

// trainClassifier trains -s 1, 3 and 7, the classes in parallel. One
// subproblem trains in place in the model's weights (at kdd scale they
// are not held twice); with several, each worker has its own w and copies
// it out.
func trainClassifier(ctx context.Context, d *dataio.Dataset, s Spec) (*model.Model, *fit.Result, error) {
	start := time.Now()
	c, res, err := newClassifiers(ctx, d, &s)
	if err != nil {
		return nil, nil, err
	}
	nsub := len(c.subs)
	var inPlace []float64
	if nsub == 1 {
		inPlace = make([]float64, c.sh.NF+1)
	}
	mdl := fit.OneVsRest(c.labels, c.sh.NF, s.Bias, nsub, inPlace)
	err = fit.Each(ctx, d, s.Pool, nsub, func() func(k int) {
		dp, fin := c.worker(inPlace, s.Pool)
		return func(k int) {
			c.solve(k, dp, fin)
			if inPlace == nil {
				fit.CopyOut(mdl, k, dp.W)
			}
		}
	}, func(k int) { c.subs[k].Res.Cancelled = true })
	if err != nil {
		return nil, nil, err
	}
	for k := range c.subs {
		res.SupportVectors += c.subs[k].Res.SupportVectors
	}
	fit.Total(res, c.subs, mdl)
	res.Seconds = time.Since(start).Seconds()
	return mdl, res, nil
}
