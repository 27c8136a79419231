package acfcd

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acfcd/acfcd/internal/mix"
	"github.com/acfcd/acfcd/kernel"
)

var updateModels = flag.Bool("update-models", false, "rewrite "+modelHashes)

// modelHashes holds the SHA-256 of each model file of TestSameModelEverywhere.
// One file for every architecture, kernel and build: .ci/run runs the test
// with each kernel (ACFCD_KERNEL), with -tags purego and on arm64 under
// qemu, so all of them are held to the same bytes.
const modelHashes = "testdata/models.sha256"

// exactData returns a dataset whose every number is exact in float64 on any
// CPU: values k/8 with k in [-24, 24] \ {0}, integer true weights, so
// the scores that choose the labels are exact sums (a fused multiply-add
// could not change them). With classes == 0 the label is the score itself
// (a regression target), with 2 it is ±1, else the argmax class 1..classes.
// Every tenth label is replaced by a random one.
func exactData(seed uint64, rows, feats, perRow, classes int) *Dataset {
	h := seed
	next := func() uint64 { h = mix.Splitmix64(h); return h }
	k := max(classes, 1)
	truth := make([]float64, k*feats)
	for i := range truth {
		truth[i] = float64(int(next()%7) - 3)
	}
	d := &Dataset{Rows: rows, Features: feats, RowPtr: make([]int64, 1, rows+1)}
	for i := 0; i < rows; i++ {
		var cols []int32
		for len(cols) < min(perRow, feats) {
			if j := int32(next() % uint64(feats)); !slices.Contains(cols, j) {
				cols = append(cols, j)
			}
		}
		slices.Sort(cols)
		score := make([]float64, k)
		for _, j := range cols {
			v := float64(int(next()%48)-24) / 8
			if v == 0 {
				v = 3.125
			}
			d.Index = append(d.Index, j)
			d.Value = append(d.Value, v)
			for c := range score {
				score[c] += v * truth[c*feats+int(j)]
			}
		}
		d.RowPtr = append(d.RowPtr, int64(len(d.Index)))
		noisy := next()%10 == 0
		switch {
		case classes == 0:
			y := score[0]
			if noisy {
				y += float64(int(next()%9)-4) / 4
			}
			d.Label = append(d.Label, y)
		case classes == 2:
			y := 1.0
			if score[0] < 0 || (score[0] == 0 && i%2 == 0) {
				y = -1
			}
			if noisy {
				y = -y
			}
			d.Label = append(d.Label, y)
		default:
			best := 0
			for c := range score {
				if score[c] > score[best] {
					best = c
				}
			}
			if noisy {
				best = int(next() % uint64(classes))
			}
			d.Label = append(d.Label, float64(best+1))
		}
	}
	return d
}

// to32 returns d with its values stored as float32 (exact for k/8).
func to32(d *Dataset) *Dataset {
	c := *d
	c.Value32 = make([]float32, len(d.Value))
	for k, v := range d.Value {
		c.Value32[k] = float32(v)
	}
	c.Value = nil
	return &c
}

// sameModelRun is one training run of TestSameModelEverywhere.
type sameModelRun struct {
	name     string
	data     *Dataset
	p        Params
	path     int  // > 0: TrainPath with this many λ, the last model
	fallback bool // the run must reach a fallback (false: must not)
}

func sameModelRuns() []sameModelRun {
	text := exactData(1, 400, 3000, 14, 2) // sparse, high-dimensional
	low := exactData(2, 600, 8, 6, 2)      // dense, low-dimensional: the fallbacks
	multi := exactData(3, 300, 500, 20, 3) // three classes
	reg := exactData(4, 300, 200, 10, 0)   // regression targets
	var runs []sameModelRun
	add := func(name string, d *Dataset, p Params) {
		if p.Seed == 0 {
			p.Seed = 7
		}
		runs = append(runs, sameModelRun{name: name, data: d, p: p})
	}
	for _, s := range []Problem{SquaredHingeDual, HingeDual, LogisticDual} {
		for _, sel := range []Selection{ACFShrink, ACF, Uniform, Shrink} {
			add(fmt.Sprintf("s=%s/%s/C=1", s.Flag(), sel), text, Params{Problem: s, C: 1, Select: sel})
		}
		add(fmt.Sprintf("s=%s/C=100/B=1", s.Flag()), text, Params{Problem: s, C: 100, Bias: 1})
		add(fmt.Sprintf("s=%s/float32", s.Flag()), to32(text), Params{Problem: s, C: 10})
		add(fmt.Sprintf("s=%s/one-vs-rest", s.Flag()), multi, Params{Problem: s, C: 1, Bias: 1})
		add(fmt.Sprintf("s=%s/low-d/C=1000/no-fallback", s.Flag()), low, Params{Problem: s, C: 1000, Eps: 1e-3, NoFallback: true, MaxEpochs: 300})
		add(fmt.Sprintf("s=%s/low-d/C=1000/fallback", s.Flag()), low, Params{Problem: s, C: 1000, Eps: 1e-3, Bias: 1, Weights: map[float64]float64{-1: 2}})
		runs[len(runs)-1].fallback = true
	}
	add("s=5/acf", text, Params{Problem: L1SquaredHinge, C: 1, Select: ACF})
	add("s=5/shrink/B=1/w", text, Params{Problem: L1SquaredHinge, C: 4, Select: Shrink, Bias: 1, Weights: map[float64]float64{-1: 2}})
	add("s=5/one-vs-rest/float32", to32(multi), Params{Problem: L1SquaredHinge, C: 1, Select: ACFShrink})
	add("s=6/acf/B=1/R", text, Params{Problem: L1Logistic, C: 2, Bias: 1, UnregularizedBias: true, Select: ACF})
	add("s=6/uniform/one-vs-rest", multi, Params{Problem: L1Logistic, C: 1, Select: Uniform})
	add("ww/acf", multi, Params{Problem: WestonWatkins, C: 1})
	add("ww/uniform/C=10", multi, Params{Problem: WestonWatkins, C: 10, Select: Uniform, Bias: 1})
	add("cs/acf+shrink", multi, Params{Problem: CrammerSinger, C: 1})
	add("cs/acf/C=10/B=1", multi, Params{Problem: CrammerSinger, C: 10, Select: ACF, Bias: 1})
	add("cs/shrink/float32", to32(multi), Params{Problem: CrammerSinger, C: 1, Select: Shrink, Weights: map[float64]float64{2: 3}})
	for _, sel := range []Selection{ACF, Uniform, Cyclic} {
		add("lasso/"+sel.String(), reg, Params{Problem: Lasso, Lambda: 5, Select: sel})
	}
	// The default sweeps reg's short columns in cyclic order; the /acf
	// runs are ACF's (its warm-up in working-set order).
	add("lasso/intercept/gap", reg, Params{Problem: Lasso, Lambda: 2, Intercept: true, GapTol: 1e-6})
	add("lasso/intercept/gap/acf", reg, Params{Problem: Lasso, Lambda: 2, Intercept: true, GapTol: 1e-6, Select: ACF})
	add("lasso/path", reg, Params{Problem: Lasso})
	runs[len(runs)-1].path = 6
	add("lasso/path/acf", reg, Params{Problem: Lasso, Select: ACF})
	runs[len(runs)-1].path = 6
	lowReg := exactData(5, 600, 8, 6, 0)
	for _, sel := range []Selection{ACFShrink, ACF, Uniform, Shrink} {
		add("s=12/"+sel.String(), reg, Params{Problem: SquaredSVRDual, C: 1, Select: sel})
		add("s=13/"+sel.String(), reg, Params{Problem: SVRDual, C: 1, P: 0.5, Select: sel, Bias: 1})
		add("s=21/"+sel.String(), text, Params{Problem: OneClassSVM, Nu: 0.3, Select: sel})
	}
	add("s=12/low-d/C=1000/fallback", lowReg, Params{Problem: SquaredSVRDual, C: 1000, Bias: 1})
	runs[len(runs)-1].fallback = true
	add("s=21/float32", to32(text), Params{Problem: OneClassSVM, Nu: 0.05, Eps: 1e-4})
	// The primal Newton solvers: dense steps from the start (low), after
	// a Newton-CG iteration (sums: rows of running sums, correlated), or
	// Newton-CG alone (wide, multi).
	wide := exactData(6, 800, 120, 60, 2)
	sums := exactData(6, 800, 30, 30, 2)
	for i := 0; i < sums.Rows; i++ {
		var v float64 // sums of multiples of 1/8: exact
		for k := sums.RowPtr[i]; k < sums.RowPtr[i+1]; k++ {
			v += sums.Value[k]
			sums.Value[k] = v
		}
	}
	for _, s := range []Problem{LogisticPrimal, SquaredHingePrimal} {
		add(fmt.Sprintf("s=%s/low-d", s.Flag()), low, Params{Problem: s, C: 1, Bias: 1})
		add(fmt.Sprintf("s=%s/low-d/C=1000", s.Flag()), low, Params{Problem: s, C: 1000, Eps: 1e-6})
		add(fmt.Sprintf("s=%s/sums", s.Flag()), sums, Params{Problem: s, C: 10})
		add(fmt.Sprintf("s=%s/wide", s.Flag()), wide, Params{Problem: s, C: 1})
		add(fmt.Sprintf("s=%s/one-vs-rest", s.Flag()), multi, Params{Problem: s, C: 1})
	}
	add("s=11/low-d", lowReg, Params{Problem: SquaredSVRPrimal, C: 10, Bias: 1})
	return runs
}

// TestSameModelEverywhere trains a fixed set of runs (-s 1, 3 and 7 with
// each selection, a bias, float32 values, one-vs-rest, with and without
// the fallbacks; -s 5 and 6; the Weston–Watkins and Crammer–Singer SVMs;
// the LASSO and its path; -s 12, 13 and 21 with each selection, -s 12's
// Newton switch; -s 0, 2 and 11 with dense and Newton-CG steps) and
// compares each model file's SHA-256 with modelHashes: the same seed must
// give the same bytes on every CPU, architecture and build.
// go test -run TestSameModelEverywhere -update-models rewrites the file.
func TestSameModelEverywhere(t *testing.T) {
	want := map[string]string{}
	if !*updateModels {
		f, err := os.Open(modelHashes)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if fs := strings.Fields(sc.Text()); len(fs) == 2 {
				want[fs[1]] = fs[0]
			}
		}
		f.Close()
	}
	var out strings.Builder
	ctx := context.Background()
	for _, r := range sameModelRuns() {
		var m *Model
		var res *Result
		var err error
		if r.path > 0 {
			var pts []PathPoint
			pts, err = TrainPath(ctx, r.data, r.p, r.path, 0.05)
			if err == nil {
				last := pts[len(pts)-1]
				m, res = last.Model, &Result{Epochs: last.Epochs, Operations: last.Iterations}
			}
		} else {
			m, res, err = Train(ctx, r.data, r.p)
		}
		if err != nil {
			t.Fatalf("%s: %v", r.name, err)
		}
		if fb := res.NewtonSteps > 0; fb != r.fallback {
			t.Errorf("%s: %d fallback iterations, want a fallback: %v", r.name, res.NewtonSteps, r.fallback)
		}
		var buf bytes.Buffer
		if _, err := m.WriteTo(&buf); err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(buf.Bytes())
		got := hex.EncodeToString(sum[:])
		fmt.Fprintf(&out, "%s  %s\n", got, r.name)
		if !*updateModels && got != want[r.name] {
			t.Errorf("%s (kernel %s): model sha256 %s, want %s; %d epochs, %d operations",
				r.name, kernel.Name(), got, want[r.name], res.Epochs, res.Operations)
		}
	}
	if *updateModels {
		if err := os.MkdirAll(filepath.Dir(modelHashes), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(modelHashes, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
