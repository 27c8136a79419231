package lasso

import (
	"math"
	"math/big"
	"testing"

	dataio "github.com/acfcd/acfcd/io"
	solver "github.com/acfcd/acfcd/solver"
)

// The covariance (Gram) mode solves the same problem as the plain
// updates: along a path on a dense low-d problem and on a sparse one, both
// with an intercept and columns whose means are far from 0, the two reach
// the same objective to 1e-9 relative, and the KKT violations recomputed
// in exact arithmetic from the weights are within the tolerance. The
// Gram mode must actually have run (its cost rule is not forced).
func TestLassoGramMatchesPlain(t *testing.T) {
	tune := solver.DefaultTuning()
	for _, c := range []struct {
		name      string
		d         *dataio.Dataset
		intercept bool
	}{
		{"dense low-d", regression(61, 600, 12, 8, 1, 0.5, 3, 1.5), true},
		{"sparse", regression(62, 500, 40, 12, 0.25, 0.3, 1, 0.8), true},
		{"sparse, no intercept", regression(63, 500, 40, 12, 0.25, 0.3, 1, 0.8), false},
	} {
		pr, err := NewData(c.d, c.intercept, false)
		if err != nil {
			t.Fatal(err)
		}
		exact := newCentred(c.d, c.intercept)
		lams := Sequence(pr.LambdaMax(1), 12, 1e-3)
		type point struct {
			w   []float64
			obj float64
		}
		run := func(gram bool) ([]point, *Problem) {
			lt := DefaultTuning()
			lt.LassoGram = gram
			s := New(pr, 1, &tune, &lt)
			var pts []point
			for k, lam := range lams {
				eps := 1e-8 * lam
				s.SetLambda(lam, s.rule(eps, 0, 0))
				f := s.Fit(solver.Config{Selection: solver.Auto, MaxEpochs: 1 << 20, Tuning: &tune}, uint64(k+1))
				if !f.Converged {
					t.Fatalf("%s, gram %v, λ %d: not converged", c.name, gram, k)
				}
				if !(s.PassViol <= eps) {
					t.Fatalf("%s, gram %v, λ %d: reported violation %g above %g", c.name, gram, k, s.PassViol, eps)
				}
				// The violation recomputed from the weights alone.
				viol := 0.0
				for j, rho := range exact.rho(exact.residual(s.w)) {
					viol = max(viol, kktViolation(s.w[j], rho, lam))
				}
				if viol > 2*eps {
					t.Errorf("%s, gram %v, λ %d: exact KKT violation %g, tolerance %g", c.name, gram, k, viol, eps)
				}
				f64, _ := exact.objective(s.w, lam).Float64()
				pts = append(pts, point{append([]float64(nil), s.w...), f64})
			}
			return pts, s
		}
		g, gs := run(true)
		p, ps := run(false)
		if len(gs.g.col) == 0 || gs.g.gops == 0 {
			t.Errorf("%s: the Gram mode never ran (%d columns, %d operations)", c.name, len(gs.g.col), gs.g.gops)
		}
		if len(ps.g.col) != 0 || ps.g.gops != 0 {
			t.Errorf("%s: LassoGram off, yet %d columns", c.name, len(ps.g.col))
		}
		if gs.Ops >= ps.Ops {
			t.Logf("%s: Gram mode %d operations, plain %d", c.name, gs.Ops, ps.Ops)
		}
		for k := range lams {
			a, b := exact.objective(g[k].w, lams[k]), exact.objective(p[k].w, lams[k])
			rel, _ := new(big.Float).Quo(new(big.Float).Sub(a, b), b).Float64()
			if math.Abs(rel) > 1e-9 {
				t.Errorf("%s, λ %d: Gram objective %.15g, plain %.15g (relative %.3g)", c.name, k, g[k].obj, p[k].obj, rel)
			}
		}
	}
}

// The Gram identities give the ρ_j, ‖r‖² and rᵀy_c that the residual
// gives: a full pass by the columns and one from the data agree.
func TestLassoGramPass(t *testing.T) {
	tune := solver.DefaultTuning()
	d := regression(64, 300, 10, 6, 1, 0.5, 2, 2)
	pr, err := NewData(d, true, false)
	if err != nil {
		t.Fatal(err)
	}
	lt := DefaultTuning()
	s := New(pr, 1, &tune, &lt)
	s.SetLambda(0.01*pr.LambdaMax(1), s.rule(0, 0, 0))
	if f := s.Fit(solver.Config{Selection: solver.Cyclic, MaxEpochs: 1 << 20, Tuning: &tune}, 1); !f.Converged {
		t.Fatal("not converged")
	}
	var sup []int32
	for _, j := range s.cols {
		if s.w[j] != 0 && !s.hasCol(j) {
			sup = append(sup, j)
		}
	}
	if !s.buildCols(sup) {
		t.Fatal("cancelled")
	}
	if ran, _ := s.gramPass(nil); !ran {
		t.Fatal("the Gram pass did not run")
	}
	rho := append([]float64(nil), s.rho...)
	rr, ry := s.rr, s.ry
	s.resetResidual()
	for _, j := range s.cols {
		idx, val := s.column(j)
		want := s.corr(j, idx, val)
		if math.Abs(rho[j]-want) > 1e-9*(math.Abs(s.xty[j])+1) {
			t.Errorf("ρ_%d: Gram %.15g, residual %.15g", j, rho[j], want)
		}
	}
	if math.Abs(rr-s.rr) > 1e-9*s.nullDev || math.Abs(ry-s.ry) > 1e-9*s.nullDev {
		t.Errorf("‖r‖², rᵀy: Gram %.15g, %.15g; residual %.15g, %.15g", rr, ry, s.rr, s.ry)
	}
}

// Under glmnet's rule at thresh 1e-10 the Gram mode, like the plain
// updates, stops within 1e-9 of the optimum.
func TestLassoGramThresh(t *testing.T) {
	tune := solver.DefaultTuning()
	d := regression(65, 800, 15, 10, 1, 0.5, 2, 1)
	pr, err := NewData(d, true, false)
	if err != nil {
		t.Fatal(err)
	}
	exact := newCentred(d, true)
	lams := Sequence(pr.LambdaMax(1), 10, 1e-3)
	fit := func(gram bool, thresh float64) (objs []*big.Float, cols int) {
		lt := DefaultTuning()
		lt.LassoGram = gram
		s := New(pr, 1, &tune, &lt)
		for k, lam := range lams {
			s.SetLambda(lam, s.rule(0, 0, thresh))
			if f := s.Fit(solver.Config{Selection: solver.Auto, MaxEpochs: 1 << 20, Tuning: &tune}, uint64(k+1)); !f.Converged {
				t.Fatalf("gram %v, thresh %g, λ %d: not converged", gram, thresh, k)
			}
			objs = append(objs, exact.objective(s.w, lam))
		}
		return objs, len(s.g.col)
	}
	opt, _ := fit(false, 1e-16)
	g, cols := fit(true, 1e-10)
	p, _ := fit(false, 1e-10)
	if cols == 0 {
		t.Error("the Gram mode never ran")
	}
	for k := range lams {
		eg, _ := new(big.Float).Quo(new(big.Float).Sub(g[k], opt[k]), opt[k]).Float64()
		ep, _ := new(big.Float).Quo(new(big.Float).Sub(p[k], opt[k]), opt[k]).Float64()
		if eg > 1e-9 || ep > 1e-9 { // thresh 1e-10 of the null deviance
			t.Errorf("λ %d: excess Gram %.3g, plain %.3g", k, eg, ep)
		}
	}
}
