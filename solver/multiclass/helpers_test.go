package multiclass

import (
	"cmp"
	"context"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/acfcd/acfcd/internal/procs"
	"github.com/acfcd/acfcd/internal/synth"
	"github.com/acfcd/acfcd/internal/tune"
	dataio "github.com/acfcd/acfcd/io"
	"github.com/acfcd/acfcd/model"
	solver "github.com/acfcd/acfcd/solver"
	"github.com/acfcd/acfcd/solver/dcd"
	"github.com/acfcd/acfcd/solver/dual"
	"github.com/acfcd/acfcd/solver/fit"
)

// classData draws rows with about density·feats entries each (values
// uniform in [−1, 1]); the class of a row is the argmax of K random linear
// scores, or with probability noise a random one. The first empty rows
// have no entries. The labels are the class indices.
func classData(seed uint64, rows, feats, K int, density, noise float64, empty int) (*dataio.Dataset, []int32) {
	r := rand.New(rand.NewPCG(seed, 41))
	score := make([][]float64, feats)
	for j := range score {
		score[j] = make([]float64, K)
		for c := range score[j] {
			score[j][c] = r.NormFloat64()
		}
	}
	d := &dataio.Dataset{Rows: rows, Features: feats, RowPtr: []int64{0}, Value: []float64{}}
	class := make([]int32, rows)
	dec := make([]float64, K)
	for i := range rows {
		clear(dec)
		for j := 0; j < feats && i >= empty; j++ {
			if r.Float64() < density {
				v := 2*r.Float64() - 1
				d.Index, d.Value = append(d.Index, int32(j)), append(d.Value, v)
				for c := range dec {
					dec[c] += v * score[j][c]
				}
			}
		}
		for c := range dec {
			if dec[c] > dec[class[i]] {
				class[i] = int32(c)
			}
		}
		if r.Float64() < noise {
			class[i] = int32(r.IntN(K))
		}
		d.Label = append(d.Label, float64(class[i]))
		d.RowPtr = append(d.RowPtr, int64(len(d.Index)))
	}
	return d, class
}

// wwCase is a problem of the block-step test and the scale of its C.
type wwCase struct {
	name  string
	d     *dataio.Dataset
	class []int32
	c     float64
}

// wwCases are K = 3, 4, 5, 5 classes, with empty rows in two.
func wwCases() []wwCase {
	mk := func(name string, seed uint64, rows, feats, K int, density, noise float64, empty int, c float64) wwCase {
		d, class := classData(seed, rows, feats, K, density, noise, empty)
		return wwCase{name, d, class, c}
	}
	return []wwCase{
		mk("three-class", 11, 300, 40, 3, 0.2, 0.1, 0, 1),
		mk("four-class-empty-rows", 12, 350, 30, 4, 0.25, 0.05, 4, 10),
		mk("five-class", 13, 400, 60, 5, 0.1, 0.15, 0, 0.3),
		mk("five-class-empty-rows", 14, 250, 20, 5, 0.3, 0.2, 5, 2),
	}
}

// refW is W(α) from the dual formula with plain loops: example i adds
// Σ_c α_ic·x_i to its class's vector and −α_ic·x_i to class c's; the bias
// row NF (bias ≥ 0) likewise with the value bias.
func refW(d *dataio.Dataset, class []int32, alpha []float64, K int, bias float64) []float64 {
	W := make([]float64, (d.Features+1)*K)
	for i := 0; i < d.Rows; i++ {
		y := int(class[i])
		for c := 0; c < K; c++ {
			a := alpha[i*K+c]
			if c == y || a == 0 {
				continue
			}
			for k := d.RowPtr[i]; k < d.RowPtr[i+1]; k++ {
				j := int(d.Index[k])
				W[j*K+y] += a * value(d, k)
				W[j*K+c] -= a * value(d, k)
			}
			if bias >= 0 {
				W[d.Features*K+y] += a * bias
				W[d.Features*K+c] -= a * bias
			}
		}
	}
	return W
}

// refDec is the K decision values of row i under W with plain loops (W
// has the bias row NF when bias ≥ 0).
func refDec(d *dataio.Dataset, W []float64, K int, bias float64, i int) []float64 {
	dec := make([]float64, K)
	for c := range dec {
		for k := d.RowPtr[i]; k < d.RowPtr[i+1]; k++ {
			dec[c] += value(d, k) * W[int(d.Index[k])*K+c]
		}
		if bias >= 0 {
			dec[c] += bias * W[d.Features*K+c]
		}
	}
	return dec
}

// csRefW is W(α) = Σ_i α_i^m x_i with plain loops, feature-major, the bias
// row NF with the value bias (≥ 0).
func csRefW(d *dataio.Dataset, alpha []float64, K int, bias float64) []float64 {
	W := make([]float64, (d.Features+1)*K)
	for i := 0; i < d.Rows; i++ {
		for c := 0; c < K; c++ {
			a := alpha[i*K+c]
			for k := d.RowPtr[i]; k < d.RowPtr[i+1]; k++ {
				W[int(d.Index[k])*K+c] += a * value(d, k)
			}
			if bias >= 0 {
				W[d.Features*K+c] += a * bias
			}
		}
	}
	return W
}

// value is the value of d's stored non-zero k, float64 or float32.
func value(d *dataio.Dataset, k int64) float64 {
	if d.Value != nil {
		return d.Value[k]
	}
	return float64(d.Value32[k])
}

// trainCase is a problem of the tests of Train: its data, its bias (−1:
// none), its C and its -wi weights.
type trainCase struct {
	name    string
	d       *dataio.Dataset
	bias    float64
	c       float64
	weights map[float64]float64
}

// trainCases are K = 3, 4, 5 and 5 classes: with empty rows and a bias,
// with weights (one of them of label 42, which does not occur), and with
// empty rows and no bias.
func trainCases() []trainCase {
	return []trainCase{
		{"three-class", synth.Classes(synth.ClassesConfig{Seed: 11, Rows: 300, Feats: 40, Density: 0.2, Labels: []float64{1, 2, 3}, Noise: 0.1}), -1, 1, nil},
		{"four-class-bias", synth.Classes(synth.ClassesConfig{Seed: 12, Rows: 350, Feats: 30, Density: 0.25, Labels: []float64{4, 3, 2, 1}, Noise: 0.05, Empty: 4}), 1, 10, nil},
		{"five-class-weighted", synth.Classes(synth.ClassesConfig{Seed: 13, Rows: 400, Feats: 60, Density: 0.1, Labels: []float64{-2, 0, 5, 7, 9}, Noise: 0.15}), 0.5, 0.3, map[float64]float64{5: 3, 9: 0.5, 42: 2}},
		{"five-class-empty-rows-nobias", synth.Classes(synth.ClassesConfig{Seed: 14, Rows: 250, Feats: 20, Density: 0.3, Labels: []float64{1, 2, 3, 4, 5}, Noise: 0.2, Empty: 5}), -1, 2, nil},
	}
}

// resolved is s with the zero fields filled in as acfcd.Train fills them
// in before it calls Train: C 1, Seed 1 (acfcd.DefaultSeed), the
// problem's default selection for Auto (ACF for Weston–Watkins, ACFShrink
// for Crammer–Singer), Bias −1 (none) for a bias ≤ 0, and a pool of the
// processors beyond the caller's.
func resolved(s Spec) Spec {
	if s.C == 0 {
		s.C = 1
	}
	if s.Seed == 0 {
		s.Seed = 1
	}
	if s.Select == solver.Auto {
		s.Select = solver.ACF
		if s.Crammer {
			s.Select = solver.ACFShrink
		}
	}
	if !(s.Bias > 0) {
		s.Bias = -1
	}
	if s.Pool == nil {
		s.Pool = procs.NewPool(runtime.GOMAXPROCS(0) - 1)
	}
	return s
}

// train trains d with Train under ctx and resolved(s), failing t on an
// error.
func mustTrain(t testing.TB, ctx context.Context, d *dataio.Dataset, s Spec) (*model.Model, *fit.Result) {
	t.Helper()
	m, res, err := Train(ctx, d, resolved(s))
	if err != nil {
		t.Fatalf("Train(%+v): %v", s, err)
	}
	return m, res
}

// duals are the final duals of a training, with each example's class
// index and each class's C, derived from the model's labels and the Spec.
type duals struct {
	alpha []float64
	class []int32
	ub    []float64
}

// trainDuals trains d with Train under resolved(s) and returns, besides
// the model and result, the final duals of that training.
func trainDuals(t testing.TB, d *dataio.Dataset, s Spec) (*model.Model, *fit.Result, duals) {
	t.Helper()
	m, res, prob, err := train(context.Background(), d, resolved(s))
	if err != nil {
		t.Fatalf("Train(%+v): %v", s, err)
	}
	ex := prob.base()
	return m, res, duals{alpha: ex.Alpha, class: ex.class, ub: ex.ub}
}

// hingeDuals returns the duals β and the weights w (bias last) of the
// binary hinge-loss SVM (-s 3) on d under s (resolved; two classes),
// trained as package dual's Train trains it without finishers and pushes
// (NoFallback): package dcd's problem for liblinear's subproblem with
// class 0 positive, its seed, the tolerance eps/2 (tightened on a small
// problem) and the full pass's repair of the largest violations.
func hingeDuals(t testing.TB, d *dataio.Dataset, s fit.Spec) (beta, w []float64) {
	t.Helper()
	ctx := context.Background()
	labels, _, err := fit.CheckClassification(d, &s, false)
	if err != nil {
		t.Fatal(err)
	}
	subs, _ := fit.Subproblems(labels, &s)
	if len(subs) != 1 {
		t.Fatalf("%d subproblems, want the one of two classes", len(subs))
	}
	sp := subs[0]
	eps := cmp.Or(s.Eps, dual.DefaultEps) / 2 * s.Small(ctx, d.NNZ())
	dt := tune.Get(ctx, dcd.DefaultTuning)
	sh := dcd.NewData(d, s.Bias, dt)
	dp := dcd.New(sh, dcd.L1SVM, eps, nil, s.Pool, tune.Get(ctx, solver.DefaultTuning), dt)
	obj := dp.Reset(labels[sp.Class], sp.Cp, sp.Cn)
	cfg := s.Config(ctx, sp.Seed, eps, cmp.Or(s.MaxEpochs, dual.DefaultMaxEpochs), solver.RepairMax, 2*sh.NNZ())
	cfg.EarlyCheck = true
	r := solver.NewRun(dp, cfg)
	r.Obj = obj
	if converged, _ := r.Settle(dp, r.Converge(sp.Seed)); !converged {
		t.Fatalf("the binary dual did not converge: %d steps, violation %g", r.Steps, dp.PassViol)
	}
	return dp.Alpha, dp.W
}
