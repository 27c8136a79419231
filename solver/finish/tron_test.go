package finish

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/acfcd/acfcd/solver/dual"
)

// TestTronHessianVector checks Hv = v + Σ D_i (x_iᵀv) x_i and the
// preconditioner's diag(H) against brute force, on rows with unsorted and
// repeated indices and float32 values.
func TestTronHessianVector(t *testing.T) {
	d := messyRows(false) // the brute force's values (exact in float32 too)
	for _, f32 := range []bool{false, true} {
		for _, bias := range []float64{-1, 0.5} {
			x := newFixture(t, messyRows(f32), dual.L2SVM, 1, 1e-3, bias, nil, true)
			nt := x.f.newNewton()
			nt.newTron()
			r := rand.New(rand.NewPCG(1, 2))
			for i := range nt.dcoef {
				nt.dcoef[i] = r.Float64() * 3
			}
			nt.dcoef[1] = 0
			v := make([]float64, nt.dim)
			for j := range v {
				v[j] = r.NormFloat64()
			}
			nt.precondition()
			out := make([]float64, nt.dim)
			nt.hv(v, out)
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
					want[j] += nt.dcoef[i] * xv * x[j]
				}
				// diag(H) as the preconditioner sums it: per stored value
				// (a repeated index counts its values' squares).
				for k := d.RowPtr[i]; k < d.RowPtr[i+1]; k++ {
					diag[d.Index[k]] += nt.dcoef[i] * d.Value[k] * d.Value[k]
				}
				if bias >= 0 {
					diag[d.Features] += nt.dcoef[i] * bias * bias
				}
			}
			for j := range want {
				if math.Abs(out[j]-want[j]) > 1e-12*(1+math.Abs(want[j])) {
					t.Errorf("f32=%v bias=%v: (Hv)[%d] = %v, want %v", f32, bias, j, out[j], want[j])
				}
				if m := (1 - pcgMix) + pcgMix*diag[j]; math.Abs(nt.tr.m[j]-m) > 1e-12*m {
					t.Errorf("f32=%v bias=%v: M[%d] = %v, want %v", f32, bias, j, nt.tr.m[j], m)
				}
			}
		}
	}
}
