package dense

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/acfcd/acfcd/internal/procs"
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
		AddOuterRows(split, dim, di, idx, x, mid, len(idx))
		AddOuterRows(split, dim, di, idx, x, 0, mid)
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
				h[c*dim+j] = Dot(a[c*dim:(c+1)*dim], a[j*dim:(j+1)*dim])
			}
			h[c*dim+c]++
		}
		full := append([]float64(nil), h...)
		ref := append([]float64(nil), h...)
		for j := 0; j < dim; j++ { // the plain method
			rj := ref[j*dim : j*dim+j+1]
			rj[j] = math.Sqrt(rj[j] - Dot4(rj[:j], rj[:j]))
			inv := 1 / rj[j]
			for k := j + 1; k < dim; k++ {
				rk := ref[k*dim : k*dim+j+1]
				rk[j] = (rk[j] - Dot4(rk[:j], rj[:j])) * inv
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
