package primal

import (
	"fmt"
	"math"
	"testing"

	"github.com/acfcd/acfcd/internal/dense"
	dataio "github.com/acfcd/acfcd/io"
)

// gradient recomputes ∇f(w) from the definition, independently of the
// package (the conventions of objective).
func gradient(d *dataio.Dataset, loss Loss, cn, cp, bias float64, free bool, w []float64) []float64 {
	nf := d.Features
	g := append([]float64(nil), w...)
	if free {
		g[nf] = 0
	}
	for i := range d.Rows {
		x := denseRow(d, i, bias)
		var wx float64
		for j := range x {
			wx += w[j] * x[j]
		}
		var coef float64 // ∂(C_i ℓ_i)/∂(wᵀx_i)
		switch loss {
		case Logistic, SquaredHinge:
			y, c := -1.0, cn
			if d.Label[i] > 0 {
				y, c = 1, cp
			}
			z := y * wx
			if loss == Logistic {
				coef = -c * y / (1 + math.Exp(z))
			} else if z < 1 {
				coef = -2 * c * y * (1 - z)
			}
		case SquaredTube:
			r := wx - d.Label[i]
			if r > 0.1 {
				coef = 2 * cp * (r - 0.1)
			} else if r < -0.1 {
				coef = 2 * cp * (r + 0.1)
			}
		}
		for j := range x {
			g[j] += coef * x[j]
		}
	}
	return g
}

func norm(v []float64) float64 { return math.Sqrt(dense.Dot(v, v)) }

var losses = []Loss{Logistic, SquaredHinge, SquaredTube}

// TestNewtonOptimal: dense Newton and Newton-CG reach the minimum of every
// loss, with and without a bias, the bias weight free or not: the
// gradient recomputed independently at the returned w is below 1e-6 of
// its norm at w = 0, the objective recomputed independently is the one
// the problem reports, and the two methods agree on it.
func TestNewtonOptimal(t *testing.T) {
	for _, loss := range losses {
		for _, bias := range []float64{-1, 1} {
			for _, free := range []bool{false, true} {
				if free && bias < 0 {
					continue
				}
				name := fmt.Sprintf("loss=%d/bias=%v/free=%v", loss, bias, free)
				d := overlapping(11, 300, 10, 0.6, 0.2, 2)
				if loss == SquaredTube {
					d = targets(d, 3)
				}
				const cn, cp = 3, 5
				g0 := norm(gradient(d, loss, cn, cp, bias, free, make([]float64, d.Features+1)))
				var fs [2]float64
				for k, dense := range []bool{true, false} {
					tune := DefaultTuning()
					if !dense {
						tune.NewtonDenseMax = 1
					}
					p := problem(t, d, loss, cn, cp, bias, &tune, 1)
					p.FreeBias = free
					if p.DenseNewton() != dense {
						t.Fatalf("%s: dense %v", name, p.DenseNewton())
					}
					stop := func(_ int, _, gnorm float64) bool { return gnorm <= 1e-9*g0 }
					var iters int
					if dense {
						var ok bool
						iters, ok = p.Newton(100, 0, stop)
						if !ok {
							t.Fatalf("%s: Cholesky failed", name)
						}
					} else {
						iters, _ = p.NewtonCG(1000, 0, stop)
					}
					g := gradient(d, loss, cn, cp, bias, free, p.W)
					if gn := norm(g); !(gn <= 1e-6*g0) {
						t.Errorf("%s dense=%v: ‖∇f‖ = %.3g after %d iterations, ‖∇f(0)‖ = %.3g", name, dense, gn, iters, g0)
					}
					if free && math.Abs(g[d.Features]) > 1e-6*g0 {
						t.Errorf("%s: the bias weight's gradient is %.3g", name, g[d.Features])
					}
					f := objective(d, loss, cn, cp, bias, free, p.W)
					if got := p.Objective(); math.Abs(got-f) > 1e-9*f {
						t.Errorf("%s dense=%v: objective %.15g, recomputed %.15g", name, dense, got, f)
					}
					fs[k] = f
				}
				if math.Abs(fs[0]-fs[1]) > 1e-9*fs[0] {
					t.Errorf("%s: dense Newton ends at f = %.15g, Newton-CG at %.15g", name, fs[0], fs[1])
				}
			}
		}
	}
}

// TestFreeBiasLeftOut: with a free bias weight, the optimum moves when
// the bias weight's regulariser goes, and its gradient there is zero
// without the ½b² term (but not with it).
func TestFreeBiasLeftOut(t *testing.T) {
	d := overlapping(5, 400, 6, 0.8, 0.1, 1)
	for i := range d.Label { // a shifted problem: the bias matters
		if i%3 == 0 {
			d.Label[i] = 1
		}
	}
	for _, loss := range []Loss{Logistic, SquaredHinge} {
		var b [2]float64
		for k, free := range []bool{false, true} {
			const c = 0.01 // the regulariser matters
			p := problem(t, d, loss, c, c, 1, nil, 0)
			p.FreeBias = free
			p.Newton(100, 0, func(_ int, _, gnorm float64) bool { return gnorm < 1e-12 })
			b[k] = p.W[d.Features]
			withReg := gradient(d, loss, c, c, 1, false, p.W)[d.Features]
			without := gradient(d, loss, c, c, 1, true, p.W)[d.Features]
			if free && (math.Abs(without) > 1e-6 || math.Abs(withReg) < 1e-3) || !free && math.Abs(withReg) > 1e-6 {
				t.Errorf("loss %d free=%v: the bias weight's gradient %.3g with ½b², %.3g without", loss, free, withReg, without)
			}
		}
		if math.Abs(b[0]-b[1]) < 1e-2 {
			t.Errorf("loss %d: the bias weight %v regularised and %v free", loss, b[0], b[1])
		}
	}
}

// TestNewtonCancel: a cancelled Newton method stops at the poll that
// reports it, in either method.
func TestNewtonCancel(t *testing.T) {
	d := overlapping(11, 300, 10, 0.6, 0.2, 2)
	for _, dense := range []bool{true, false} {
		tune := DefaultTuning()
		if !dense {
			tune.NewtonDenseMax = 1
		}
		p := problem(t, d, Logistic, 100, 100, 1, &tune, 0)
		polls := 0
		p.Poll = func() bool { polls++; return polls > 2 }
		var iters int
		if dense {
			iters, _ = p.Newton(100, 0, nil)
		} else {
			iters, _ = p.NewtonCG(100, 0, nil)
		}
		if !p.Cancelled() || polls != 3 || iters > 2 {
			t.Errorf("dense=%v: cancelled %v after %d polls, %d iterations", dense, p.Cancelled(), polls, iters)
		}
	}
}

// TestNewtonPolish: once a loose stopping rule holds, Polish's one more
// step along the last factor brings every loss far closer to the optimum
// (its excess over f* at least ten times smaller), where the rule still
// holds by the gradient recomputed independently.
func TestNewtonPolish(t *testing.T) {
	for _, loss := range losses {
		d := overlapping(7, 500, 12, 0.7, 0.3, 2)
		if loss == SquaredTube {
			d = targets(d, 5)
		}
		const cn, cp, bias = 2, 4, 1
		g0 := norm(gradient(d, loss, cn, cp, bias, false, make([]float64, d.Features+1)))
		run := func(polish bool, rel float64) (f float64, steps int) {
			p := problem(t, d, loss, cn, cp, bias, nil, 0)
			p.Polish = polish
			steps, _ = p.Newton(100, 0, func(_ int, _, gnorm float64) bool { return gnorm <= rel*g0 })
			if gn := norm(gradient(d, loss, cn, cp, bias, false, p.W)); !(gn <= rel*g0) {
				t.Errorf("loss %d polish=%v: ‖∇f‖ = %.3g above the rule's %.3g", loss, polish, gn, rel*g0)
			}
			f = objective(d, loss, cn, cp, bias, false, p.W)
			if got := p.Objective(); math.Abs(got-f) > 1e-9*f {
				t.Errorf("loss %d polish=%v: objective %.15g, recomputed %.15g", loss, polish, got, f)
			}
			return f, steps
		}
		opt, _ := run(false, 1e-12)
		const loose = 0.05
		plain, n0 := run(false, loose)
		polished, n1 := run(true, loose)
		t.Logf("loss %d: f* %.15g, excess %.3g after %d steps, %.3g polished (%d)", loss, opt, plain-opt, n0, polished-opt, n1)
		if !(polished-opt <= 0.1*(plain-opt)) || n1 != n0+1 {
			t.Errorf("loss %d: excess over f* = %.15g: %.3g after %d steps, %.3g with Polish after %d", loss, opt, plain-opt, n0, polished-opt, n1)
		}
	}
}

// TestNewtonDropSum: with DropSum the logistic loss's Newton steps leave
// out of H the rows of least D_i‖x_i‖² (at most DropSum in all, and the
// next power of two would exceed it) and still reach the minimum: the
// gradient recomputed independently is below 1e-6 of its norm at w = 0,
// and f agrees with the full Hessian's to 1e-12.
func TestNewtonDropSum(t *testing.T) {
	d := overlapping(12, 400, 10, 0.6, 0.05, 3)
	const cn, cp = 100, 100
	g0 := norm(gradient(d, Logistic, cn, cp, 1, false, make([]float64, d.Features+1)))
	var fs [2]float64
	for k, drop := range []float64{0, 1} {
		p := problem(t, d, Logistic, cn, cp, 1, nil, 1)
		p.DropSum = drop
		left := 0
		stop := func(_ int, _, gnorm float64) bool {
			if drop > 0 {
				// The level the next formation uses, checked against the
				// rows' D_i‖x_i‖² recomputed.
				level := p.dropLevel()
				var out, next float64
				for i, di := range p.dc {
					v := di * sqNorm(denseRow(d, i, 1))
					if v < level {
						out += v
						left++
					} else if v < 2*level {
						next += v
					}
				}
				if out > drop || out+next <= drop && next > 0 {
					t.Errorf("level %g leaves out %g, the next power of two %g more (DropSum %g)", level, out, next, drop)
				}
			}
			return gnorm <= 1e-9*g0
		}
		if _, ok := p.Newton(100, 0, stop); !ok {
			t.Fatalf("DropSum %g: Cholesky failed", drop)
		}
		if gn := norm(gradient(d, Logistic, cn, cp, 1, false, p.W)); !(gn <= 1e-6*g0) {
			t.Errorf("DropSum %g: ‖∇f‖ = %.3g, ‖∇f(0)‖ = %.3g", drop, gn, g0)
		}
		fs[k] = objective(d, Logistic, cn, cp, 1, false, p.W)
		if drop > 0 && left == 0 {
			t.Errorf("DropSum %g left no row out: the test is void", drop)
		}
	}
	if math.Abs(fs[0]-fs[1]) > 1e-12*fs[0] {
		t.Errorf("f = %.15g with the full Hessian, %.15g with DropSum", fs[0], fs[1])
	}
}

// TestMaxRowDot: max_i |vᵀx_i| (bias included) against dense rows.
func TestMaxRowDot(t *testing.T) {
	for _, d := range []*dataio.Dataset{overlapping(13, 300, 7, 0.5, 0.1, 2), messyRows(false), messyRows(true)} {
		p := problem(t, d, Logistic, 1, 1, 1, nil, 1)
		v := make([]float64, d.Features+1)
		for j := range v {
			v[j] = float64(j%5) - 1.7
		}
		var want float64
		for i := range d.Rows {
			x := denseRow(d, i, 1)
			var s float64
			for j := range x {
				s += x[j] * v[j]
			}
			want = max(want, math.Abs(s))
		}
		if got := p.MaxRowDot(v); math.Abs(got-want) > 1e-12*want {
			t.Errorf("MaxRowDot = %.15g, want %.15g", got, want)
		}
	}
}

func sqNorm(x []float64) float64 { return dense.Dot(x, x) }

// TestRayScale: a W several times too long is moved to the minimiser of f
// along its ray (∇fᵀW ≈ 0 there, recomputed independently, and f lower),
// one only slightly too long is left alone, and Newton from the scaled
// point still reaches the minimum.
func TestRayScale(t *testing.T) {
	d := overlapping(14, 400, 10, 0.6, 0.05, 3)
	const c = 100
	g0 := norm(gradient(d, Logistic, c, c, 1, false, make([]float64, d.Features+1)))
	opt := problem(t, d, Logistic, c, c, 1, nil, 1)
	if _, ok := opt.Newton(100, 0, func(_ int, _, g float64) bool { return g <= 1e-9*g0 }); !ok {
		t.Fatal("Cholesky failed")
	}
	for _, k := range []float64{1.2, 8} {
		p := problem(t, d, Logistic, c, c, 1, nil, 1)
		p.RayMax = 0.5
		for j, v := range opt.W {
			p.W[j] = k * v
		}
		w0 := append([]float64(nil), p.W...)
		f0 := objective(d, Logistic, c, c, 1, false, w0)
		p.SetMargins()
		ww := dense.Dot(p.W, p.W)
		ww1, f1 := p.rayScale(ww, p.Objective())
		beta := p.W[0] / w0[0]
		if k < 2 {
			if beta != 1 || ww1 != ww {
				t.Errorf("W %.1f× the optimum: scaled by %g", k, beta)
			}
			continue
		}
		if !(beta <= 0.5) {
			t.Fatalf("W %.1f× the optimum: scaled by %g, want ≤ 0.5", k, beta)
		}
		if f := objective(d, Logistic, c, c, 1, false, p.W); math.Abs(f-f1) > 1e-9*f || !(f < f0) {
			t.Errorf("f = %.15g at βW (reported %.15g), %.15g at W", f, f1, f0)
		}
		slope := func(w []float64) float64 { return dense.Dot(gradient(d, Logistic, c, c, 1, false, w), w0) }
		if s, s0 := slope(p.W), slope(w0); !(math.Abs(s) <= 0.05*math.Abs(s0)) {
			t.Errorf("∇fᵀW = %.3g at βW, %.3g at W", s, s0)
		}
		if _, ok := p.Newton(100, 0, func(_ int, _, g float64) bool { return g <= 1e-9*g0 }); !ok {
			t.Fatal("Cholesky failed")
		}
		if gn := norm(gradient(d, Logistic, c, c, 1, false, p.W)); !(gn <= 1e-6*g0) {
			t.Errorf("‖∇f‖ = %.3g after Newton from βW", gn)
		}
	}
}
