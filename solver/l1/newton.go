package l1

import (
	"math"

	"github.com/acfcd/acfcd/internal/compsum"
	"github.com/acfcd/acfcd/internal/dense"
	"github.com/acfcd/acfcd/internal/fmath"
	solver "github.com/acfcd/acfcd/solver"
)

// Dense Newton: -s 5 and 6 on few features by proximal Newton with the
// explicit Hessian (newGLMNET whose quadratic model is held as a d×d
// matrix).
//
// Coordinate descent over features crawls where the features are few,
// dense and correlated: its steps zig-zag along the valleys of F, where
// ‖∇^S F‖₁ is small while F is still far above its minimum, and the point
// at which liblinear's rule first holds at -e 0.01 lies anywhere on that
// slow descent, above or below liblinear's own (docs/tuning.md). Each
// outer iteration here forms H = Σ_i D_i x_i x_iᵀ (+ νI) once, at
// Σ_i nnz_i²/2 multiply-adds (for -s 5 only the rows inside the margin,
// whose generalised second derivative is not 0), and then solves the model
//
//	q(w + δ) = gᵀδ + ½ δᵀHδ + ‖w + δ‖₁
//
// by coordinate descent on H itself, O(d) a step, to a tolerance that
// follows the outer violation; the line search along δ (Armijo, σ, as
// newGLMNET) and liblinear's rule, measured exactly at every outer
// iterate, are -s 6's, -s 5 taking liblinear's ‖∇^S F(0)‖₁ from a first
// sweep of SVC's steps, as SVC does. The iterates converge as Newton's,
// so where the rule holds F is near its minimum, not at a point of the
// crawl.
//
// Train takes this path from the data's shape (useDense): when forming H
// costs at most Tuning.L1DenseEpochs coordinate-descent epochs (2·nnz
// non-zeros), a sweep over the model's d² entries at most that fraction
// of one, and d² fits Tuning.L1DenseMax.

// innerForcing: the model is solved to this fraction of the outer
// violation (solveModel).
const innerForcing = 0.1

// rowView is the row-wise copy of Data's columns the Hessian is formed
// from: row i's coordinates (increasing) and unsigned values.
type rowView struct {
	ptr []int64
	col []int32
	val []float64
}

// newRowView transposes dt's columns.
func newRowView(dt *Data) *rowView {
	rv := &rowView{ptr: make([]int64, dt.rows+1), col: make([]int32, len(dt.rowIdx)), val: make([]float64, len(dt.rowIdx))}
	for _, i := range dt.rowIdx {
		rv.ptr[i+1]++
	}
	for i := range dt.rows {
		rv.ptr[i+1] += rv.ptr[i]
	}
	next := make([]int64, dt.rows)
	copy(next, rv.ptr[:dt.rows])
	for k := range dt.cols {
		for e := dt.starts[k]; e < dt.starts[k+1]; e++ {
			i := dt.rowIdx[e]
			p := next[i]
			next[i]++
			rv.col[p] = int32(k)
			rv.val[p] = dt.val[e]
		}
	}
	return rv
}

// Newton is the dense proximal Newton of one worker, reused for each
// subproblem.
type Newton struct {
	sub
	rv       *rowView
	logistic bool
	n        int
	w, g, d  []float64 // per coordinate: w, ∇L, the direction δ
	hd       []float64 // Hδ
	h        []float64 // n×n, lower triangle filled, then mirrored
	z, zd    []float64 // per row: y_i wᵀx_i and y_i δᵀx_i
	dz       []float64 // per row: ∂L/∂z_i
	dd       []float64 // per row: ∂²L/∂z_i²
	innerMax int
	wtBuf    []float64
	done     <-chan struct{}
	// svc takes -s 5's first sweep: liblinear's ‖∇^S F(0)‖₁ for -s 5 is
	// the sum of its violations, each before its step (SVC.EndBatch),
	// smaller than the value at 0 and so a stricter rule.
	svc *SVC
}

// NewNewton returns the dense Newton of dt (rows its row view).
func NewNewton(dt *Data, rv *rowView, logistic, unreg bool, drv *solver.Tuning, tu *Tuning) *Newton {
	n := len(dt.cols)
	var svc *SVC
	if !logistic {
		svc = NewSVC(dt, unreg, drv, tu)
	}
	return &Newton{svc: svc, sub: newSub(dt, unreg), rv: rv, logistic: logistic, n: n,
		w: make([]float64, n), g: make([]float64, n), d: make([]float64, n), hd: make([]float64, n),
		h: make([]float64, n*n), z: make([]float64, dt.rows), zd: make([]float64, dt.rows),
		dz: make([]float64, dt.rows), dd: make([]float64, dt.rows), innerMax: DefaultMaxEpochs}
}

// W returns the weights per feature (the bias last), valid until the next
// call.
func (s *Newton) W() []float64 { return s.features(func(k int) float64 { return s.w[k] }) }

// loss returns C_i·ℓ(z) and, with deriv, sets dz and dd of row i.
func (s *Newton) loss(i int, z float64, deriv bool) float64 {
	c := s.c(i)
	if s.logistic {
		e := fmath.Exp(-math.Abs(z))
		if deriv {
			p := 1 / (1 + e)
			if z >= 0 {
				s.dz[i] = -c * e * p // −C·σ(−z)
			} else {
				s.dz[i] = -c * p
			}
			s.dd[i] = c * e * p * p
		}
		return c * (max(-z, 0) + fmath.Log1p(e))
	}
	b := 1 - z
	if deriv {
		s.dz[i], s.dd[i] = 0, 0
		if b > 0 {
			s.dz[i], s.dd[i] = -2*c*b, 2*c
		}
	}
	if b > 0 {
		return c * b * b
	}
	return 0
}

// reg is ‖w‖₁ without the free bias.
func (s *Newton) reg(w []float64) float64 {
	var r compsum.Sum
	for k, x := range w {
		if int32(k) != s.free {
			r.Add(math.Abs(x))
		}
	}
	return r.Value()
}

// NewtonResult is what Train reports.
type NewtonResult struct {
	Steps      int64 // inner coordinate steps
	Newton     int   // outer iterations
	Converged  bool
	Capped     bool
	Cancelled  bool
	Stuck      bool // the line search found no decrease
	Viol, Obj  float64
	Init, Tol  float64
	Operations int64
}

// Train solves the subproblem in which the examples labelled pos are
// positive with cost cp and the others negative with cost cn from w = 0,
// with liblinear's tolerance eps; done cancels it.
func (s *Newton) Train(label []float64, pos, cp, cn, eps float64, maxIter int, done <-chan struct{}, progress func(iter int, viol, obj float64)) NewtonResult {
	s.reset(label, pos, cp, cn)
	s.done = done
	clear(s.w)
	clear(s.z)
	var res NewtonResult
	var lsum compsum.Sum
	for i := range s.z {
		lsum.Add(s.loss(i, 0, true))
	}
	obj := lsum.Value()
	held := false // the rule held at the last iterate
	if s.svc != nil {
		// liblinear's first sweep, whose point Newton starts from.
		ops := s.svc.Ops
		s.svc.Reset(label, pos, cp, cn, eps)
		th := solver.Thresholds{Max: math.Inf(1), Min: math.Inf(-1)}
		for k := range s.n {
			s.svc.Step(int32(k), -1, th)
			res.Steps++
		}
		s.svc.EndBatch(s.n, false)
		s.Ops += s.svc.Ops - ops
		s.init = s.svc.Init()
		s.tol = eps * s.TolScale() * s.init
		res.Init, res.Tol = s.init, s.tol
		for k := range s.w {
			s.w[k] = s.svc.co[k].w
		}
		for i, b := range s.svc.b {
			s.z[i] = 1 - b
			s.loss(i, s.z[i], true)
		}
		obj = s.svc.Objective()
	}
	for {
		select {
		case <-done:
			res.Cancelled = true
		default:
		}
		if res.Cancelled {
			break
		}
		// ∇L and the violations at w.
		var gn compsum.Sum
		for k := range s.n {
			idx, val := s.column(int32(k))
			var g float64
			for e, i := range idx {
				g += float64(val[e] * s.dz[i])
			}
			s.Ops += int64(len(idx))
			s.g[k] = g
			gn.Add(violation(s.w[k], g, int32(k) == s.free))
		}
		gnorm := gn.Value()
		if res.Newton == 0 && s.svc == nil {
			s.init = gnorm
			s.tol = eps * s.TolScale() * gnorm
			res.Init, res.Tol = s.init, s.tol
		}
		res.Viol, res.Obj = gnorm, obj
		if progress != nil && res.Newton > 0 {
			progress(res.Newton, s.Relative(gnorm), obj)
		}
		// The rule must hold at two iterates in a row: where H is nearly
		// singular (one-hot groups, whose columns sum to a constant) ‖∇^S F‖₁
		// falls below the tolerance one step before F stops falling fast.
		if gnorm <= s.tol {
			if held || gnorm == 0 {
				res.Converged = true
				break
			}
			held = true
		} else {
			held = false
		}
		if res.Newton >= maxIter {
			res.Capped = true
			break
		}
		res.Newton++
		s.hessian()
		res.Steps += s.solveModel(gnorm)
		var ok bool
		if obj, ok = s.lineSearch(obj); !ok {
			// No decrease along δ: converged if the rule held at w.
			res.Converged = held
			res.Stuck = !held
			break
		}
	}
	res.Operations = s.Ops
	return res
}

// hessian forms H = Σ_i dd_i x_i x_iᵀ + νI from the rows whose dd_i is
// not 0, and mirrors its lower triangle.
func (s *Newton) hessian() {
	n := s.n
	clear(s.h)
	for i, di := range s.dd {
		if di == 0 {
			continue
		}
		a, b := s.rv.ptr[i], s.rv.ptr[i+1]
		dense.AddOuter(s.h, n, di, s.rv.col[a:b], s.rv.val[a:b])
		s.Ops += (b - a) * (b - a + 1) / 2
	}
	for j := range n {
		s.h[j*n+j] += nu
		for k := range j {
			s.h[k*n+j] = s.h[j*n+k]
		}
	}
}

// solveModel minimises q(w + δ) over δ by cyclic coordinate descent on H
// until a sweep's violations, each before its step, add up to at most
// innerForcing times the outer violation gnorm, or innerMax sweeps; it
// returns the steps (0 sweeps if done is closed). An inexact Newton
// method: the model need not be solved much better than F's own
// optimality at w.
func (s *Newton) solveModel(gnorm float64) int64 {
	n := s.n
	clear(s.d)
	clear(s.hd)
	tol := innerForcing * gnorm
	var steps int64
	for range s.innerMax {
		select {
		case <-s.done:
			return steps
		default:
		}
		var sum float64
		for k := range n {
			hk := s.h[k*n : k*n+n]
			free := int32(k) == s.free
			u := s.w[k] + s.d[k]
			G := s.g[k] + s.hd[k]
			v := violation(u, G, free)
			if v == 0 {
				continue
			}
			sum += v
			h := hk[k]
			var z float64
			switch {
			case free:
				z = -G / h
			case G+1 < h*u:
				z = -(G + 1) / h
			case G-1 > h*u:
				z = -(G - 1) / h
			default:
				z = -u
			}
			if z == 0 {
				continue
			}
			steps++
			s.d[k] += z
			for j, x := range hk {
				s.hd[j] += float64(z * x)
			}
		}
		s.Ops += int64(n) * int64(n)
		if sum <= tol {
			break
		}
	}
	return steps
}

// lineSearch moves w along δ by t = 1, ½, … until F decreases by at least
// σ·t·Δ, Δ = gᵀδ + ‖w + δ‖₁ − ‖w‖₁; it returns the new F and false, w
// unchanged, if no halving does.
func (s *Newton) lineSearch(obj float64) (float64, bool) {
	clear(s.zd)
	for k, dk := range s.d {
		if dk == 0 {
			continue
		}
		idx, val := s.column(int32(k))
		for e, i := range idx {
			s.zd[i] += float64(dk * val[e])
		}
		s.Ops += int64(len(idx))
	}
	reg0 := s.reg(s.w)
	var delta float64
	for k, dk := range s.d {
		delta += float64(s.g[k] * dk)
	}
	wt := s.wt()
	for k := range wt {
		wt[k] = s.w[k] + s.d[k]
	}
	delta += s.reg(wt) - reg0
	t := 1.0
	for range maxLineSearch {
		for k := range wt {
			wt[k] = s.w[k] + float64(t*s.d[k])
		}
		var l compsum.Sum
		for i, z := range s.z {
			l.Add(s.loss(i, z+float64(t*s.zd[i]), false))
		}
		s.Ops += int64(len(s.z))
		f := l.Value() + s.reg(wt)
		if f-obj <= float64(sigma*t*delta) {
			copy(s.w, wt)
			for i := range s.z {
				s.z[i] += float64(t * s.zd[i])
				s.loss(i, s.z[i], true)
			}
			return f, true
		}
		t *= 0.5
	}
	return obj, false
}

// wt returns scratch of n float64s (the trial point).
func (s *Newton) wt() []float64 {
	if cap(s.wtBuf) < s.n {
		s.wtBuf = make([]float64, s.n)
	}
	return s.wtBuf[:s.n]
}
