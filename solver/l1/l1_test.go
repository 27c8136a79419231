package l1

import (
	"math"
	"math/rand/v2"
	"testing"

	dataio "github.com/acfcd/acfcd/io"
	solver "github.com/acfcd/acfcd/solver"
)

// randData returns ℓ rows of n features with about density·n non-zeros
// each, labels ±1.
func randData(seed uint64, rows, n int, density float64) *dataio.Dataset {
	r := rand.New(rand.NewPCG(seed, 5))
	d := &dataio.Dataset{Rows: rows, Features: n, RowPtr: []int64{0}}
	for range rows {
		for j := range n {
			if r.Float64() < density {
				d.Index = append(d.Index, int32(j))
				d.Value = append(d.Value, 4*r.Float64()-2)
			}
		}
		d.RowPtr = append(d.RowPtr, int64(len(d.Index)))
		d.Label = append(d.Label, float64(1-2*r.IntN(2)))
	}
	return d
}

func TestPosBits(t *testing.T) {
	for _, c := range []struct{ x, pos, mask float64 }{
		{2.5, 2.5, 1}, {math.SmallestNonzeroFloat64, math.SmallestNonzeroFloat64, 1}, {0, 0, 0},
		{math.Copysign(0, -1), 0, 0}, {-3, 0, 0}, {math.Inf(1), math.Inf(1), 1}, {math.Inf(-1), 0, 0},
	} {
		if p, m := pos(c.x), posMask(c.x); p != c.pos || math.Signbit(p) || m != c.mask {
			t.Errorf("pos(%g) = %g, posMask = %g; want %g, %g", c.x, p, m, c.pos, c.mask)
		}
	}
}

// svcObjective recomputes F(w) of an SVC from its data and w.
func svcObjective(d *dataio.Dataset, s *SVC, unreg bool, bias float64) float64 {
	var f float64
	w := s.W()
	for i := range d.Rows {
		var z float64
		for k := d.RowPtr[i]; k < d.RowPtr[i+1]; k++ {
			z += w[d.Index[k]] * d.Value[k]
		}
		if bias > 0 {
			z += w[d.Features] * bias
		}
		if t := 1 - d.Label[i]*z; t > 0 {
			c := s.cn
			if d.Label[i] > 0 {
				c = s.cp
			}
			f += c * t * t
		}
	}
	for j, wj := range w {
		if !(unreg && j == d.Features) {
			f += math.Abs(wj)
		}
	}
	return f
}

// TestSVCGains: every step's gain is the decrease of F, and its loops in
// both forms (branching on the sign of b_i or not) agree; the steps
// with the weights both equal and not.
func TestSVCGains(t *testing.T) {
	d := randData(1, 60, 12, 0.4)
	tune, lt := solver.DefaultTuning(), DefaultTuning()
	for _, cs := range [][2]float64{{1, 1}, {3, 0.5}} {
		for _, unreg := range []bool{false, true} {
			s := NewSVC(NewData(d, 1), unreg, &tune, &lt)
			f := s.Reset(d.Label, 1, cs[0], cs[1], 0.01)
			if want := svcObjective(d, s, unreg, 1); math.Abs(f-want) > 1e-12*want {
				t.Fatalf("F(0) = %g, want %g", f, want)
			}
			r := rand.New(rand.NewPCG(2, 3))
			for step := range 200 {
				k := int32(r.IntN(s.Len()))
				j := s.cols[k]
				idx, val := s.column(k)
				g1, h1 := s.grad(idx, val)
				s.fewInside = !s.fewInside
				g2, h2 := s.grad(idx, val)
				if math.Abs(g1-g2) > 1e-12*(1+math.Abs(g1)) || math.Abs(h1-h2) > 1e-12*(1+h1) || s.slope(idx, val) != g2 || s.curvature(idx, val) != h2 {
					t.Fatalf("step %d: grad %g %g and %g %g in the two forms", step, g1, h1, g2, h2)
				}
				_, gain, _ := s.Step(k, -1, solver.Thresholds{Max: math.Inf(1), Min: math.Inf(-1)})
				after := svcObjective(d, s, unreg, 1)
				if gain < 0 || math.Abs((f-after)-gain) > 1e-9*f {
					t.Fatalf("step %d on feature %d: gain %g, F went from %g to %g", step, j, gain, f, after)
				}
				f = after
			}
		}
	}
}

// TestInnerGains: every inner step of LR's newGLMNET decreases its
// quadratic model by its gain, recomputed from the model's definition.
func TestInnerGains(t *testing.T) {
	d := randData(4, 50, 10, 0.5)
	tune, lt := solver.DefaultTuning(), DefaultTuning()
	s := NewLR(NewData(d, 1), true, &tune, &lt)
	s.Reset(d.Label, 1, 2, 1)
	s.outer(math.Inf(1))
	copy(s.wpd, s.w)
	in := &inner{s}
	// q(u) = gᵀδ + ½ δᵀ(XᵀDX + νI)δ + ‖u‖₁, δ = u − w, bias free.
	q := func() float64 {
		var v float64
		for _, j := range s.ws {
			dj := s.wpd[j] - s.w[j]
			v += float64(s.grad[j]*dj) + float64(0.5*nu*dj*dj)
			if j != s.free {
				v += math.Abs(s.wpd[j])
			}
		}
		for i := range s.row {
			v += 0.5 * s.row[i].d * s.row[i].s * s.row[i].s
		}
		return v
	}
	before := q()
	r := rand.New(rand.NewPCG(5, 6))
	for step := range 100 {
		k := int32(r.IntN(in.Len()))
		_, gain, _ := in.Step(k, -1, solver.Thresholds{Max: math.Inf(1), Min: math.Inf(-1)})
		after := q()
		if gain < 0 || math.Abs((before-after)-gain) > 1e-9*(1+math.Abs(before)) {
			t.Fatalf("step %d: gain %g, q went from %g to %g", step, gain, before, after)
		}
		before = after
	}
	if !s.lineSearch() {
		t.Fatal("no step along the inner solution decreases F")
	}
}
