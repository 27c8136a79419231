package primal

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/acfcd/acfcd/internal/procs"
	"github.com/acfcd/acfcd/kernel"
)

// TestAddOuter: the four-row scatter into the lower triangle gives
// exactly the sums of one term at a time, for every row length (float64
// and float32 values), split into row ranges anywhere, and with all-ones
// values through AddOuterOnes.
func TestAddOuter(t *testing.T) {
	const dim = 23
	seed := uint64(1)
	next := func() uint64 {
		seed = seed*6364136223846793005 + 1442695040888963407
		return seed >> 33
	}
	ref := make([]float64, dim*dim)
	got := make([]float64, dim*dim)
	got32 := make([]float64, dim*dim)
	split := make([]float64, dim*dim)
	refOnes, ones := make([]float64, dim*dim), make([]float64, dim*dim)
	for r := range 400 {
		var idx []int32
		var x, one []float64
		var x32 []float32
		for j := range dim {
			if int(next()%dim) < r%(dim+1) {
				idx = append(idx, int32(j))
				v := float64(float32(float64(next()%2000)/1000 - 1 + 1e-3))
				x, x32, one = append(x, v), append(x32, float32(v)), append(one, 1)
			}
		}
		di := float64(next()%1000+1) / 997
		for q, c := range idx {
			for p := 0; p <= q; p++ {
				ref[int(c)*dim+int(idx[p])] += float64(di * x[p] * x[q]) // unfused
				refOnes[int(c)*dim+int(idx[p])] += di
			}
		}
		AddOuter(got, dim, di, idx, x)
		AddOuter(got32, dim, di, idx, x32)
		mid := int(next() % uint64(len(idx)+1))
		addOuterRows(split, dim, di, idx, x, mid, len(idx))
		addOuterRows(split, dim, di, idx, x, 0, mid)
		AddOuterOnes(ones, dim, di, idx)
	}
	for k := range ref {
		if got[k] != ref[k] || got32[k] != ref[k] || split[k] != ref[k] {
			t.Fatalf("entry %d: %v (float32 %v, split %v), want %v", k, got[k], got32[k], split[k], ref[k])
		}
		if ones[k] != refOnes[k] {
			t.Fatalf("entry %d of the all-ones sums: %v, want %v", k, ones[k], refOnes[k])
		}
		if r, c := k/dim, k%dim; c > r && got[k] != 0 {
			t.Fatalf("entry (%d, %d) above the diagonal: %v", r, c, got[k])
		}
	}
}

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

// TestCholesky: the blocked factorisation gives the bits of the plain
// row-by-row one, on one goroutine or several, solves the system, refuses a matrix that is not
// positive definite and stops when poll says so.
func TestCholesky(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, dim := range []int{1, 5, 16, 37} {
		// H = AAᵀ + I, lower triangle
		a := make([]float64, dim*dim)
		for k := range a {
			a[k] = r.NormFloat64()
		}
		h := make([]float64, dim*dim)
		for c := 0; c < dim; c++ {
			for j := 0; j <= c; j++ {
				h[c*dim+j] = dot(a[c*dim:(c+1)*dim], a[j*dim:(j+1)*dim])
			}
			h[c*dim+c]++
		}
		full := append([]float64(nil), h...)
		ref := append([]float64(nil), h...)
		for j := 0; j < dim; j++ { // the plain method
			rj := ref[j*dim : j*dim+j+1]
			rj[j] = math.Sqrt(rj[j] - dot4(rj[:j], rj[:j]))
			inv := 1 / rj[j]
			for k := j + 1; k < dim; k++ {
				rk := ref[k*dim : k*dim+j+1]
				rk[j] = (rk[j] - dot4(rk[:j], rj[:j])) * inv
			}
		}
		par := append([]float64(nil), h...)
		if !Cholesky(h, dim, nil, nil, 0) || !Cholesky(par, dim, nil, procs.NewPool(3), 0) {
			t.Fatalf("dim %d: failed on a positive definite matrix", dim)
		}
		for k := range h {
			if math.Float64bits(h[k]) != math.Float64bits(par[k]) {
				t.Fatalf("dim %d: entry %d %v on one goroutine, %v on several", dim, k, h[k], par[k])
			}
		}
		for c := 0; c < dim; c++ {
			for j := 0; j <= c; j++ {
				if math.Float64bits(h[c*dim+j]) != math.Float64bits(ref[c*dim+j]) {
					t.Fatalf("dim %d: L[%d][%d] = %v, want %v", dim, c, j, h[c*dim+j], ref[c*dim+j])
				}
			}
		}
		b := make([]float64, dim)
		for j := range b {
			b[j] = r.NormFloat64()
		}
		x := make([]float64, dim)
		CholSolve(h, dim, -1, b, x)
		for c := 0; c < dim; c++ {
			var hx float64
			for j := 0; j < dim; j++ {
				hx += full[max(c, j)*dim+min(c, j)] * x[j]
			}
			if math.Abs(hx+b[c]) > 1e-10 {
				t.Errorf("dim %d: (Hx + b)[%d] = %g", dim, c, hx+b[c])
			}
		}
		if dim > 1 {
			full[dim+1] = -1 // not positive definite
			if Cholesky(full, dim, nil, nil, 0) {
				t.Errorf("dim %d: factored a matrix that is not positive definite", dim)
			}
		}
	}
	const dim = 400
	h := make([]float64, dim*dim)
	for j := range dim {
		h[j*dim+j] = 1
	}
	polls := 0
	if Cholesky(h, dim, func() bool { polls++; return true }, nil, 0) || polls != 1 {
		t.Errorf("cancelled factorisation: polled %d times, want 1 and false", polls)
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
				xv := dot(x, v)
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
