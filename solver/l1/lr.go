package l1

import (
	"math"

	"github.com/acfcd/acfcd/internal/compsum"
	"github.com/acfcd/acfcd/internal/fmath"
	"github.com/acfcd/acfcd/internal/mix"
	solver "github.com/acfcd/acfcd/solver"
	"github.com/acfcd/acfcd/solver/lasso"
)

// LR is -s 6, L1-regularised logistic regression,
//
//	F(w) = ‖w‖₁ + Σ_i C_i·log(1 + e^−z_i),  z_i = y_i wᵀx_i,
//
// by newGLMNET (Yuan, Ho & Lin 2012), as liblinear's solve_l1r_lr: each
// outer iteration computes the gradient g and the diagonal of the Hessian
// XᵀDX + νI at w, and the minimum-norm subgradient, which decides
// convergence (liblinear's rule, exact at every outer iteration); then
// coordinate descent over the working set, driven by the solver package
// (its selection, ACF by default), minimises the quadratic model
//
//	q(u) = gᵀ(u − w) + ½(u − w)ᵀ(XᵀDX + νI)(u − w) + ‖u‖₁
//
// to the inner tolerance, and a backtracking line search along u − w
// (Armijo, σ = 0.01) gives the next w. The working set leaves out weights
// at 0 whose gradient is deep inside [−1, 1] (liblinear's outer
// shrinking); the inner tolerance, a fraction of ‖∇^S F(0)‖₁, starts at 1
// and shrinks by 4 whenever the inner problem is solved in one epoch. An
// inner problem gets at most Tuning.L1InnerMaxEpochs epochs (liblinear:
// 1000 sweeps): where the Hessian is nearly singular along a feature, the
// model's minimiser lies far out, which the line search cuts back anyway,
// and coordinate descent walks there in steps clipped to ±10 (news20, one
// class against the rest, C = 10: liblinear's 9th inner problem runs its
// 1000 sweeps).
//
// Each inner step minimises q exactly along one coordinate (a soft
// threshold, clipped to ±10 as liblinear's) and its gain is the exact
// decrease of q.
type LR struct {
	sub
	row   []lrRow   // per example
	lp    []float64 // log(1 + e^−z_i)
	eNew  []float64 // line search: e^−|z'_i| of the trial
	lpNew []float64 // line search: log(1 + e^−z'_i)

	w, grad, hdiag, wpd []float64 // per coordinate: w, g, diag(XᵀDX) + ν, the inner iterate u
	ws                  []int32   // the inner coordinates
	last                []float64 // per inner coordinate: its violation at its last step
	innerTol            float64
	scale               []float64 // GainScale of the working set
	innerMax            int       // Tuning.L1InnerMaxEpochs
	stepOps             int

	checkAt   int64
	pollWork  int64
	done      <-chan struct{}
	cancelled bool
}

// lrRow holds what the passes over the columns read of example i,
// together in one cache line: τ_i = C_i/(1 + e^z_i) (so that ∂L/∂w_j =
// −Σ v_ij τ_i), D_i = C_i·e^z_i/(1 + e^z_i)², s_i = v_iᵀ(u − w), and z_i.
type lrRow struct{ tau, d, s, z float64 }

// newGLMNET's constants, liblinear's: ν added to the Hessian's diagonal,
// the clip of an inner step, and the most outer iterations.
const (
	nu            = 1e-12
	maxInnerStep  = 10
	MaxNewtonIter = 100
)

// NewLR returns an LR for dt, reused by Reset for each subproblem; unreg
// leaves the bias (if dt has one) out of the regulariser.
func NewLR(dt *Data, unreg bool, drv *solver.Tuning, t *Tuning) *LR {
	return &LR{sub: newSub(dt, unreg), row: make([]lrRow, dt.rows), lp: make([]float64, dt.rows),
		eNew: make([]float64, dt.rows), lpNew: make([]float64, dt.rows),
		w: make([]float64, len(dt.cols)), grad: make([]float64, len(dt.cols)), hdiag: make([]float64, len(dt.cols)),
		wpd: make([]float64, len(dt.cols)),
		ws:  make([]int32, 0, len(dt.cols)), last: make([]float64, len(dt.cols)), pollWork: drv.PollWork,
		scale: make([]float64, len(dt.cols)), stepOps: t.L1StepOps, innerMax: t.L1InnerMaxEpochs}
}

// Reset starts the subproblem in which the examples labelled pos are
// positive with cost cp and the others negative with cost cn, at w = 0.
func (s *LR) Reset(label []float64, pos, cp, cn float64) {
	s.reset(label, pos, cp, cn)
	clear(s.w)
	for i := range s.row {
		s.row[i].z = 0
		s.lp[i] = math.Ln2
		s.eNew[i] = 1
	}
	s.accept()
	s.cancelled = false
	s.checkAt = s.Ops + s.pollWork
}

// accept sets τ, D and log(1 + e^−z) from the line search's e^−|z| and
// log(1 + e^−z) (in eNew and lpNew, or for Reset eNew = 1 at z = 0).
func (s *LR) accept() {
	for i := range s.row {
		r := &s.row[i]
		c := s.c(i)
		e := s.eNew[i] // e^−|z|
		p := 1 / (1 + e)
		if r.z >= 0 {
			r.tau = c * e * p // C·σ(−z)
		} else {
			r.tau = c * p
		}
		r.d = c * e * p * p
		r.s = 0
	}
}

// Objective is F(w).
func (s *LR) Objective() float64 {
	var n, r compsum.Sum
	for i, v := range s.lp {
		n.Add(s.c(i) * v)
	}
	for k, w := range s.w {
		if int32(k) != s.free {
			r.Add(math.Abs(w))
		}
	}
	return n.Value() + r.Value()
}

// W returns the weights per feature (the bias last), valid until the next
// call.
func (s *LR) W() []float64 { return s.features(func(k int) float64 { return s.w[k] }) }

// poll reports cancellation, checking done about every Tuning.PollWork
// non-zeros.
func (s *LR) poll() bool {
	if s.cancelled {
		return true
	}
	if s.Ops < s.checkAt {
		return false
	}
	s.checkAt = s.Ops + s.pollWork
	select {
	case <-s.done:
		s.cancelled = true
	default:
	}
	return s.cancelled
}

// outer computes g and diag(XᵀDX) + ν at w for every feature and the
// working set, and returns ‖∇^S F(w)‖₁ and the largest violation; gmax
// is the last outer iteration's largest violation (+Inf at the first),
// for the shrinking. It returns early with cancelled set.
func (s *LR) outer(gmax float64) (sum, vmax float64) {
	var n compsum.Sum
	s.ws = s.ws[:0]
	for j := range s.w {
		idx, val := s.column(int32(j))
		var g, h float64
		for k, i := range idx {
			x := val[k]
			r := &s.row[i]
			g += float64(x * r.tau)
			h += float64(float64(x*x) * r.d)
		}
		s.Ops += int64(len(idx))
		g = -g
		s.grad[j], s.hdiag[j] = g, h+nu
		free := int32(j) == s.free
		w := s.w[j]
		if !free && w == 0 && shrinkable(g, gmax, s.rows) {
			continue
		}
		v := violation(w, g, free)
		n.Add(v)
		vmax = max(vmax, v)
		s.last[len(s.ws)] = v
		s.ws = append(s.ws, int32(j))
		if s.poll() {
			break
		}
	}
	return n.Value(), vmax
}

// LRResult is what Train reports.
type LRResult struct {
	Steps     int64   // inner coordinate steps
	Epochs    int     // inner epochs
	Newton    int     // outer iterations
	Converged bool    // the stopping rule holds at w
	Capped    bool    // stopped by MaxNewtonIter or the epoch cap
	Cancelled bool    // stopped by Config.Done (Viol then not measured)
	Viol      float64 // ‖∇^S F(w)‖₁ at the returned w
	Obj       float64 // F(w)
	Init      float64 // ‖∇^S F(0)‖₁
	Tol       float64 // the tolerance on Viol
	Stuck     bool    // the line search found no decrease (w is the last point)
}

// Train runs newGLMNET from w = 0 (after Reset) with stopping tolerance
// eps (liblinear's -e). cfg configures the inner coordinate descent: its
// Selection, ACF, Repair, Done and Tuning; its MaxEpochs caps the inner
// epochs of the whole run; Eps, Seed and Progress are not used. progress,
// if not nil, is called after every outer iteration with the inner
// epochs so far, ‖∇^S F(w)‖₁ relative to the tolerance's scale (as eps)
// and F(w).
func (s *LR) Train(cfg solver.Config, eps float64, seed uint64, progress func(epoch int, viol, obj float64)) LRResult {
	var res LRResult
	s.done = cfg.Done
	maxEpochs := cfg.MaxEpochs
	cfg.Progress = nil
	cfg.EarlyCheck = false
	cfg.Finisher = nil
	cfg.AfterBatch = nil
	innerEps := 1.0
	gmax := math.Inf(1)
	for {
		gnorm, vmax := s.outer(gmax)
		if s.cancelled {
			res.Cancelled = true
			break
		}
		if res.Newton == 0 {
			s.init = gnorm
			s.tol = eps * s.TolScale() * gnorm
			res.Init, res.Tol = s.init, s.tol
		}
		res.Viol = gnorm
		res.Obj = s.Objective()
		if progress != nil && res.Newton > 0 {
			progress(res.Epochs, s.Relative(gnorm), res.Obj)
		}
		if gnorm <= s.tol {
			res.Converged = true
			break
		}
		if res.Newton >= MaxNewtonIter || res.Epochs >= maxEpochs {
			res.Capped = true
			break
		}
		res.Newton++

		// The quadratic model over the working set, from u = w.
		copy(s.wpd, s.w)
		s.innerTol = innerEps * s.init
		cfg.Seed = mix.Seed(seed, uint64(res.Newton))
		cfg.MaxEpochs = max(min(maxEpochs-res.Epochs, s.innerMax), 1)
		cfg.Eps = s.innerTol
		s.gainScale(s.scale, s.ws, s.stepOps)
		in := &inner{s}
		r := solver.NewRun(in, cfg)
		r.Solve(cfg.Seed)
		res.Steps += r.Steps
		epochs := r.Epochs()
		res.Epochs += epochs
		if r.Cancelled() {
			s.cancelled = true
			res.Cancelled = true
			break
		}
		if !s.lineSearch() {
			res.Stuck = true
			break
		}
		if epochs <= 1 {
			innerEps *= 0.25
		}
		gmax = vmax
	}
	return res
}

// lineSearch moves w to u or halfway there, and so on, until F decreases
// by at least σ·t·δ at the step t, δ = gᵀ(u − w) + ‖u‖₁ − ‖w‖₁ the
// model's prediction at the full step; it returns false, w unchanged, if
// none of maxLineSearch halvings does.
func (s *LR) lineSearch() bool {
	var delta float64
	for _, j := range s.ws {
		w, u := s.w[j], s.wpd[j]
		delta += float64(s.grad[j] * (u - w))
		if j != s.free {
			delta += math.Abs(u) - math.Abs(w)
		}
	}
	t := 1.0
	for range maxLineSearch {
		var dreg float64
		for _, j := range s.ws {
			if w := s.w[j]; j != s.free {
				dreg += math.Abs(w+float64(t*(s.wpd[j]-w))) - math.Abs(w)
			}
		}
		var dl float64
		for i := range s.row {
			r := &s.row[i]
			z := r.z + float64(t*r.s)
			e := fmath.Exp(-math.Abs(z))
			sp := max(-z, 0) + fmath.Log1p(e)
			s.eNew[i], s.lpNew[i] = e, sp
			dl += float64(s.c(i) * (sp - s.lp[i]))
		}
		s.Ops += int64(len(s.row))
		if dreg+dl <= float64(sigma*t*delta) {
			for _, j := range s.ws {
				s.w[j] += float64(t * (s.wpd[j] - s.w[j]))
			}
			for i := range s.row {
				s.row[i].z += float64(t * s.row[i].s)
			}
			copy(s.lp, s.lpNew)
			s.accept()
			return true
		}
		t *= 0.5
	}
	return false
}

// inner is the quadratic model over the working set as a solver.Problem.
type inner struct{ *LR }

// Len is the size of the working set.
func (in *inner) Len() int { return len(in.ws) }

// GainScale weighs the gains that ACF sees by the cost of their steps
// (solver.StepCoster), as SVC's.
func (in *inner) GainScale() []float64 { return in.scale[:len(in.ws)] }

// qgrad returns ∂q/∂u_j.
func (in *inner) qgrad(j int32) float64 {
	idx, val := in.column(j)
	var g float64
	for k, i := range idx {
		r := &in.row[i]
		g += float64(float64(val[k]*r.d) * r.s)
	}
	in.Ops += int64(len(idx))
	return in.grad[j] + float64(nu*(in.wpd[j]-in.w[j])) + g
}

// Step minimises q along working-set coordinate k (solver.Problem), or
// shrinks a weight at 0 whose gradient is deep inside [−1, 1]
// (liblinear's inner shrinking).
func (in *inner) Step(k, _ int32, th solver.Thresholds) (viol, gain float64, shrink bool) {
	j := in.ws[k]
	g := in.qgrad(j)
	free := (j == in.free)
	u := in.wpd[j]
	if !free && u == 0 && shrinkable(g, th.Max, in.rows) {
		in.last[k] = 0
		return 0, 0, true
	}
	viol = violation(u, g, free)
	in.last[k] = viol
	return viol, in.move(j, u, g, free), false
}

// move does the step on feature j at u_j = u with ∂q/∂u_j = g and returns
// the decrease of q.
func (in *inner) move(j int32, u, g float64, free bool) float64 {
	h := in.hdiag[j]
	var z float64
	switch {
	case free:
		z = -g / h
	case g+1 < h*u:
		z = -(g + 1) / h
	case g-1 > h*u:
		z = -(g - 1) / h
	default:
		z = -u
	}
	if math.Abs(z) < 1e-12 && !farStep(z, h) {
		return 0
	}
	var gain float64
	if math.Abs(z) > maxInnerStep {
		z = math.Copysign(maxInnerStep, z)
		gain = -(float64(g*z) + float64(0.5*h*z*z))
		if !free {
			gain -= math.Abs(u+z) - math.Abs(u)
		}
	} else {
		lam := 1.0
		if free {
			lam = 0
		}
		// q along u_j is ½h·t² − (h·u − g)·t + λ|t| up to a constant.
		gain = lasso.Gain(h, float64(h*u)-g, lam, u, u+z)
	}
	in.wpd[j] = u + z
	idx, val := in.column(j)
	for k, i := range idx {
		in.row[i].s += float64(z * val[k])
	}
	in.Ops += int64(len(idx))
	return gain
}

// Due decides whether the batch makes the full pass worthwhile
// (solver.Trigger): the violations of every coordinate at its last step
// add up to at most the inner tolerance.
func (in *inner) Due(float64) bool {
	var n compsum.Sum
	for _, v := range in.last[:len(in.ws)] {
		n.Add(v)
	}
	return n.Value() <= in.innerTol
}

// Pass ends the inner problem (solver.Problem) on liblinear's inner rule:
// the violations of q that the coordinates had at their last steps add
// up to at most the inner tolerance (Due). It takes no pass over the
// columns: the inner tolerance only steers newGLMNET, whose every outer
// iteration measures F's own optimality exactly, and a read of the
// working set's columns to confirm it costed a fifth of the run (a9a,
// w8a, news20) while the estimate almost always held.
func (in *inner) Pass(*solver.Run, bool) bool { return in.Due(0) }
