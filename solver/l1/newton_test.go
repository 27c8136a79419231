package l1

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/acfcd/acfcd/internal/tune"
	dataio "github.com/acfcd/acfcd/io"
)

// correlated returns rows×feats dense data whose features share three
// factors (the valleys coordinate descent crawls along), labelled ±1 by a
// noisy linear rule.
func correlated(seed uint64, rows, feats int) *dataio.Dataset {
	r := rand.New(rand.NewPCG(seed, 9))
	load := make([][3]float64, feats)
	for j := range load {
		for f := range load[j] {
			load[j][f] = r.NormFloat64()
		}
	}
	truth := make([]float64, feats)
	for j := range truth {
		truth[j] = r.NormFloat64()
	}
	d := &dataio.Dataset{Rows: rows, Features: feats, RowPtr: make([]int64, 1, rows+1)}
	for range rows {
		var f [3]float64
		for k := range f {
			f[k] = r.NormFloat64()
		}
		var z float64
		for j := range feats {
			x := 0.3*r.NormFloat64() + load[j][0]*f[0] + load[j][1]*f[1] + load[j][2]*f[2]
			d.Index = append(d.Index, int32(j))
			d.Value = append(d.Value, x/4)
			z += truth[j] * x
		}
		y := 1.0
		if z+2*r.NormFloat64() < 0 {
			y = -1
		}
		d.Label = append(d.Label, y)
		d.RowPtr = append(d.RowPtr, int64(len(d.Index)))
	}
	return d
}

// TestDefaultsNearOptimum: at the defaults, on dense correlated features
// (not small: the rule is not tightened), -s 5 and 6 stop within 1e-3
// relative of F's minimum (a tight solve), where coordinate descent (the
// dense path off) stops on the slow descent above it, at liblinear's rule
// all the same.
func TestDefaultsNearOptimum(t *testing.T) {
	d := correlated(1, 5000, 16)
	cd := DefaultTuning()
	cd.L1DenseEpochs = 0
	cdCtx := tune.With(context.Background(), &cd)
	var worstCD float64
	for _, logistic := range problems {
		for _, c := range []float64{1, 100} {
			p := params{logistic: logistic, c: c}
			objective := func(ctx context.Context, eps float64) float64 {
				q := p
				q.eps = eps
				m, res, err := Train(ctx, d, q.spec())
				if err != nil {
					t.Fatal(err)
				}
				if !res.Converged {
					t.Fatalf("-s %s C=%g eps %g: not converged", flag(logistic), c, eps)
				}
				f, _, _ := l1Eval(d, m, 0, p)
				return f
			}
			best := objective(context.Background(), 1e-6)
			got := objective(context.Background(), 0)
			if rel := (got - best) / best; rel > 1e-3 {
				t.Errorf("-s %s C=%g: F %.8g at the defaults, %.3g above the minimum %.8g", flag(logistic), c, got, rel, best)
			}
			relCD := (objective(cdCtx, 0) - best) / best
			worstCD = max(worstCD, relCD)
			t.Logf("-s %s C=%g: defaults %.3g above the minimum, coordinate descent %.3g", flag(logistic), c, (got-best)/best, relCD)
		}
	}
	if worstCD <= 1e-3 {
		t.Errorf("coordinate descent stops within %.3g of the minimum everywhere: the data no longer exercises the path", worstCD)
	}
}

// TestDenseNewtonOptions: dense Newton with a bias, an unregularised bias
// (-R) and -wi weights reaches the minimum that coordinate descent finds
// at a tight tolerance, and liblinear's rule holds at its model.
func TestDenseNewtonOptions(t *testing.T) {
	d := correlated(2, 3000, 12)
	cd := DefaultTuning()
	cd.L1DenseEpochs = 0
	cdCtx := tune.With(context.Background(), &cd)
	def := DefaultTuning()
	if s := (params{}).spec(); !useDense(d, NewData(d, 1), &s, &def) {
		t.Fatal("the data does not take dense Newton")
	}
	for _, logistic := range problems {
		for _, p := range []params{
			{logistic: logistic, c: 10},
			{logistic: logistic, c: 10, bias: 1},
			{logistic: logistic, c: 10, bias: 1, free: true},
			{logistic: logistic, c: 10, bias: 1, weights: map[float64]float64{1: 3}},
		} {
			m, res, err := Train(context.Background(), d, p.spec())
			if err != nil {
				t.Fatal(err)
			}
			f, gnorm, gnorm0 := l1Eval(d, m, 0, p)
			q := p
			q.eps = 1e-6
			mt, _, err := Train(cdCtx, d, q.spec())
			if err != nil {
				t.Fatal(err)
			}
			best, _, _ := l1Eval(d, mt, 0, p)
			name := flag(logistic)
			if !res.Converged || (f-best)/best > 1e-3 || math.Abs(res.Objective-f) > 1e-9*f {
				t.Errorf("-s %s %+v: converged %v, F %.10g (reported %.10g), the minimum %.10g", name, p, res.Converged, f, res.Objective, best)
			}
			// -s 6's ‖∇^S F(0)‖₁ is the value at 0 (-s 5's, its first sweep's).
			if res.Violation > DefaultEps || logistic && gnorm > DefaultEps*tolScale(d, m, 0)*gnorm0*(1+1e-9) {
				t.Errorf("-s %s %+v: violation %.3g, ‖∇^S F‖₁ %.3g", name, p, res.Violation, gnorm)
			}
		}
	}
}
