package acfcd

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/acfcd/acfcd/internal/synth"
	dataio "github.com/acfcd/acfcd/io"
)

// dualProblems are the problems trained by dual coordinate descent, and
// dualSelections the selections they all take.
var (
	dualProblems   = []Problem{SquaredHingeDual, HingeDual, LogisticDual}
	dualSelections = []Selection{Uniform, Shrink, ACF, ACFShrink}
)

// namedProblem is a dataset with the settings the training tests use on it.
type namedProblem struct {
	name    string
	d       *dataio.Dataset
	bias    float64
	weights map[float64]float64
	c       float64
}

func testProblems() []namedProblem {
	return []namedProblem{
		{"noisy-binary", synth.Classes(synth.ClassesConfig{Seed: 1, Rows: 300, Feats: 40, Density: 0.2, Labels: []float64{-1, 1}, Noise: 0.15}), -1, nil, 1},
		{"separable-binary-bias", synth.Classes(synth.ClassesConfig{Seed: 2, Rows: 250, Feats: 30, Density: 0.3, Labels: []float64{1, -1}}), 1, nil, 10},
		{"weighted-labels-2-5", synth.Classes(synth.ClassesConfig{Seed: 3, Rows: 200, Feats: 25, Density: 0.25, Labels: []float64{2, 5}, Noise: 0.05, Empty: 3}), 0.5, map[float64]float64{5: 3, 2: 0.5}, 2},
		{"four-class", synth.Classes(synth.ClassesConfig{Seed: 4, Rows: 400, Feats: 50, Density: 0.15, Labels: []float64{3, 1, 4, 2}, Noise: 0.1}), 1, map[float64]float64{4: 2}, 1},
	}
}

// mustTrain trains d with p and fails t on an error.
func mustTrain(t *testing.T, d *dataio.Dataset, p Params) (*Model, *Result) {
	t.Helper()
	return mustTrainCtx(t, context.Background(), d, p)
}

// mustTrainCtx is mustTrain under ctx.
func mustTrainCtx(t *testing.T, ctx context.Context, d *dataio.Dataset, p Params) (*Model, *Result) {
	t.Helper()
	m, res, err := Train(ctx, d, p)
	if err != nil {
		t.Fatalf("Train(%+v): %v", p, err)
	}
	return m, res
}

// loadText writes text to a file called name in a fresh folder and loads
// it with opt.
func loadText(t *testing.T, name, text string, opt dataio.Options) *dataio.Dataset {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := dataio.Load(path, opt)
	if err != nil {
		t.Fatal(err)
	}
	return d
}
