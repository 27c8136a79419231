package primal

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/acfcd/acfcd/internal/dense"
	"github.com/acfcd/acfcd/kernel"
)

// TestHessian checks the formed H = I + Σ D_i x_i x_iᵀ (the bias's 1
// left out with a free bias) against brute force, on rows with unsorted
// and repeated indices, float32 values, with and without a bias; and on
// sorted data the same bits whether one goroutine forms it or four.
func TestHessian(t *testing.T) {
	d := messyRows(false) // the brute force's values (exact in float32 too)
	for _, f32 := range []bool{false, true} {
		for _, bias := range []float64{-1, 0.5} {
			for _, free := range []bool{false, true} {
				if free && bias < 0 {
					continue
				}
				p := problem(t, messyRows(f32), SquaredHinge, 1, 1, bias, nil, 0)
				p.FreeBias = free
				r := rand.New(rand.NewPCG(1, 2))
				for i := range p.dc {
					p.dc[i] = r.Float64() * 3
				}
				p.dc[1] = 0
				if !p.formHessian() {
					t.Fatal("cancelled without Poll")
				}
				dim := d.Features + 1
				for c := 0; c < dim; c++ {
					for j := 0; j <= c; j++ {
						var want float64
						if j == c && (c < d.Features || !free) {
							want = 1
						}
						for i := 0; i < d.Rows; i++ {
							x := denseRow(d, i, bias)
							want += p.dc[i] * x[j] * x[c]
						}
						if got := p.h[c*dim+j]; math.Abs(got-want) > 1e-12*(1+math.Abs(want)) {
							t.Errorf("f32=%v bias=%v free=%v: H[%d][%d] = %v, want %v", f32, bias, free, c, j, got, want)
						}
					}
				}
			}
		}
	}
	d = overlapping(3, 500, 40, 0.5, 0.1, 2)
	one := problem(t, d, Logistic, 1, 2, 1, nil, 0)
	tune := DefaultTuning()
	tune.HessianParallelOps = 0
	four := problem(t, d, Logistic, 1, 2, 1, &tune, 3)
	for _, p := range []*Problem{one, four} {
		for j := range p.W {
			p.W[j] = math.Sin(float64(j))
		}
		p.SetMargins()
		p.SetGradient()
		p.formHessian()
	}
	for k := range one.h {
		if math.Float64bits(one.h[k]) != math.Float64bits(four.h[k]) {
			t.Fatalf("H entry %d: %v on one goroutine, %v on four", k, one.h[k], four.h[k])
		}
	}
	four.hessianSplit(4)
	if s := four.split; s[0] != 0 || s[4] != four.Dim() || !(s[1] <= s[2] && s[2] <= s[3]) {
		t.Errorf("split %v", s)
	}
}

// TestHessianIncremental: for the squared hinge, a formation after one
// where few D_i changed adds only the changes (fewer operations) and
// gives the matrix a fresh formation gives, up to rounding.
func TestHessianIncremental(t *testing.T) {
	d := overlapping(3, 500, 40, 0.5, 0.1, 2)
	for _, spare := range []int{0, 3} {
		tune := DefaultTuning()
		tune.HessianParallelOps = 0
		p := problem(t, d, SquaredHinge, 1, 2, 1, &tune, spare)
		fresh := problem(t, d, SquaredHinge, 1, 2, 1, &tune, spare)
		for i := range p.dc {
			p.dc[i] = float64(1 + i%2)
		}
		p.formHessian()
		for i := range p.dc {
			if i%7 == 0 {
				p.dc[i] = 0
			}
		}
		copy(fresh.dc, p.dc)
		ops := p.Ops
		p.formHessian()
		fresh.formHessian()
		if p.Ops-ops >= fresh.Ops {
			t.Errorf("spare %d: the update took %d operations, a fresh formation %d", spare, p.Ops-ops, fresh.Ops)
		}
		dim := p.Dim()
		for c := 0; c < dim; c++ {
			for j := 0; j <= c; j++ {
				if got, want := p.h[c*dim+j], fresh.h[c*dim+j]; math.Abs(got-want) > 1e-12*(1+math.Abs(want)) {
					t.Fatalf("spare %d: H[%d][%d] = %v updated, %v fresh", spare, c, j, got, want)
				}
			}
		}
	}
}

// TestHessianVector checks Hv = v + Σ D_i (x_iᵀv) x_i and the
// preconditioner's diag(H) against brute force, on rows with unsorted and
// repeated indices and float32 values.
func TestHessianVector(t *testing.T) {
	d := messyRows(false) // the brute force's values (exact in float32 too)
	for _, f32 := range []bool{false, true} {
		for _, bias := range []float64{-1, 0.5} {
			p := problem(t, messyRows(f32), SquaredHinge, 1, 1, bias, nil, 0)
			p.newCG()
			r := rand.New(rand.NewPCG(1, 2))
			for i := range p.dc {
				p.dc[i] = r.Float64() * 3
			}
			p.dc[1] = 0
			v := make([]float64, p.Dim())
			for j := range v {
				v[j] = r.NormFloat64()
			}
			p.precondition()
			out := make([]float64, p.Dim())
			p.hv(v, out)
			dim := d.Features + 1
			want := append([]float64(nil), v...)
			diag := make([]float64, dim)
			for j := range diag {
				diag[j] = 1
			}
			for i := 0; i < d.Rows; i++ {
				x := denseRow(d, i, bias)
				xv := dense.Dot(x, v)
				for j := range x {
					want[j] += p.dc[i] * xv * x[j]
				}
				// diag(H) as the preconditioner sums it: per stored value
				// (a repeated index counts its values' squares).
				for k := d.RowPtr[i]; k < d.RowPtr[i+1]; k++ {
					diag[d.Index[k]] += p.dc[i] * d.Value[k] * d.Value[k]
				}
				if bias >= 0 {
					diag[d.Features] += p.dc[i] * bias * bias
				}
			}
			for j := range want {
				if math.Abs(out[j]-want[j]) > 1e-12*(1+math.Abs(want[j])) {
					t.Errorf("f32=%v bias=%v: (Hv)[%d] = %v, want %v", f32, bias, j, out[j], want[j])
				}
				if m := (1 - pcgMix) + pcgMix*diag[j]; math.Abs(p.cg.m[j]-m) > 1e-12*m {
					t.Errorf("f32=%v bias=%v: M[%d] = %v, want %v", f32, bias, j, p.cg.m[j], m)
				}
			}
		}
	}
}

// TestOnesRows: on all-ones data the passes that skip the values give
// kernel.Dot's and kernel.Axpy's bits, for every row length.
func TestOnesRows(t *testing.T) {
	v := make([]float64, 40)
	for j := range v {
		v[j] = math.Sin(float64(j)) * math.Exp(float64(j%7))
	}
	for n := 0; n <= len(v); n++ {
		idx := make([]int32, n)
		one := make([]float64, n)
		for k := range idx {
			idx[k] = int32(k * 37 % len(v))
			one[k] = 1
		}
		if a, b := dotOnes(idx, v), kernel.Dot(idx, one, v); math.Float64bits(a) != math.Float64bits(b) {
			t.Errorf("%d elements: %v, kernel.Dot %v", n, a, b)
		}
	}
	d := overlapping(7, 50, 30, 0.4, 0.1, 1)
	for k := range d.Value {
		d.Value[k] = 1
	}
	tune := DefaultTuning()
	ones := problem(t, d, SquaredHinge, 1, 1, 1, &tune, 0)
	tune2 := tune
	tune2.BinaryRows = false
	vals := problem(t, d, SquaredHinge, 1, 1, 1, &tune2, 0)
	for _, p := range []*Problem{ones, vals} {
		for j := range p.W {
			p.W[j] = math.Cos(float64(j))
		}
		p.SetMargins()
		p.SetGradient()
	}
	if ones.binary != 1 || vals.binary != -1 {
		t.Fatalf("binary %d and %d", ones.binary, vals.binary)
	}
	for i := range ones.z {
		if math.Float64bits(ones.z[i]) != math.Float64bits(vals.z[i]) {
			t.Fatalf("margin %d: %v skipping the values, %v reading them", i, ones.z[i], vals.z[i])
		}
	}
	for j := range ones.g {
		if math.Float64bits(ones.g[j]) != math.Float64bits(vals.g[j]) {
			t.Fatalf("gradient %d: %v skipping the values, %v reading them", j, ones.g[j], vals.g[j])
		}
	}
}
