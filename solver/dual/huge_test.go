package dual

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	dataio "github.com/acfcd/acfcd/io"
	"github.com/acfcd/acfcd/model"
	"github.com/acfcd/acfcd/solver/fit"
)

// hugeRows is 60 rows with two features of about scale, read from libsvm
// text: separable classes ±1 for a classifier, targets of their sign and
// size 1 to 2 for a regression, or for the one-class SVM one cloud
// beside the origin.
func hugeRows(t *testing.T, k Kind, scale float64) *dataio.Dataset {
	t.Helper()
	r := rand.New(rand.NewPCG(1, 1))
	if k == OneClass {
		r = rand.New(rand.NewPCG(3, 1)) // an optimum with free α_i
	}
	var b strings.Builder
	for i := range 60 {
		y := float64(2*(i%2) - 1)
		var x1, x2 float64
		if k == OneClass {
			x1, x2 = 0.3+r.Float64(), 2*r.Float64()-1
		} else {
			x1, x2 = y*(1+r.Float64()), 2*r.Float64()-1
		}
		label := y
		if k == L2LossSVR || k == L1LossSVR {
			label = y * (1 + r.Float64())
		}
		fmt.Fprintf(&b, "%.6f 1:%.6e 2:%.6e\n", label, x1*scale, x2*scale)
	}
	d, err := dataio.Read(strings.NewReader(b.String()), "huge.svm", dataio.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// trainOK is train on d under s, failing t on an error.
func trainOK(t *testing.T, d *dataio.Dataset, s Spec) (*model.Model, *fit.Result) {
	t.Helper()
	m, res, err := train(context.Background(), d, s)
	if err != nil {
		t.Fatalf("-s %s: %v", flag(s.Kind), err)
	}
	return m, res
}

// rightOn counts the rows of d that m predicts as labelled.
func rightOn(m *model.Model, d *dataio.Dataset) int {
	right := 0
	for i := range d.Rows {
		idx, val := d.Row(i)
		if m.Predict(idx, val) == d.Label[i] {
			right++
		}
	}
	return right
}

// The logistic dual started at liblinear's α_i = 1e-8, a margin of 1e292
// at values of 1e150, where the optimal α_i are about 1/‖x_i‖²: w kept
// the rounding of that start and ended at 22% training accuracy at the
// epoch cap. Any scale must separate the rows as at 1.
func TestLRDualHugeValues(t *testing.T) {
	for _, scale := range []float64{1, 1e150, 1e153} {
		d := hugeRows(t, LR, scale)
		m, res := trainOK(t, d, Spec{Kind: LR})
		if right := rightOn(m, d); right != d.Rows || !res.Converged || res.HitEpochCap {
			t.Errorf("scale %g: training accuracy %d/%d, converged %v, epoch cap %v, violation %g",
				scale, right, d.Rows, res.Converged, res.HitEpochCap, res.Violation)
		}
	}
}

// The β_i of -s 12, about 1/‖x_i‖², fell below liblinear's cut of steps
// |d| < 1e-12: the dual never moved (no support vectors) and only the
// primal Newton finisher gave the model. Any scale must give the dual
// support vectors and the mean squared error of scale 1 (to 1%).
func TestSVRHugeValues(t *testing.T) {
	mse := func(m *model.Model, d *dataio.Dataset) float64 {
		var s float64
		for i := range d.Rows {
			idx, val := d.Row(i)
			e := m.Predict(idx, val) - d.Label[i]
			s += float64(e * e)
		}
		return s / float64(d.Rows)
	}
	m1, _ := trainOK(t, hugeRows(t, L2LossSVR, 1), Spec{Kind: L2LossSVR})
	want := mse(m1, hugeRows(t, L2LossSVR, 1))
	for _, scale := range []float64{1e150, 1e153} {
		d := hugeRows(t, L2LossSVR, scale)
		m, res := trainOK(t, d, Spec{Kind: L2LossSVR})
		if got := mse(m, d); !(math.Abs(got-want) <= 0.01*want) || res.SupportVectors == 0 || !res.Converged {
			t.Errorf("scale %g: mean squared error %g (at 1: %g), %d support vectors, converged %v, violation %g",
				scale, got, want, res.SupportVectors, res.Converged, res.Violation)
		}
	}
}

// The one-class SVM's tolerances are absolute on gradients wᵀx_i of the
// size of ‖x‖²: at values of 1e150 their rounding alone exceeded them and
// the run stopped at the epoch cap. It must converge and predict as at
// scale 1, but on rows at the decision boundary.
func TestOneClassHugeValues(t *testing.T) {
	d1 := hugeRows(t, OneClass, 1)
	m1, _ := trainOK(t, d1, Spec{Kind: OneClass})
	for _, scale := range []float64{1e150} {
		d := hugeRows(t, OneClass, scale)
		m, res := trainOK(t, d, Spec{Kind: OneClass})
		differ := 0
		for i := range d.Rows {
			idx1, val1 := d1.Row(i)
			var dec float64
			for k, j := range idx1 {
				dec += float64(m1.W[j] * val1[k])
			}
			idx, val := d.Row(i)
			if math.Abs(dec-m1.Rho) > 1e-9*math.Abs(m1.Rho) && (m.Predict(idx, val) > 0) != (m1.Predict(idx1, val1) > 0) {
				differ++
			}
		}
		if differ != 0 || !res.Converged || res.HitEpochCap {
			t.Errorf("scale %g: %d predictions differ from scale 1's, converged %v, epoch cap %v, violation %g",
				scale, differ, res.Converged, res.HitEpochCap, res.Violation)
		}
	}
}

// At values of 3e153, ½‖w‖² overflows: -s 21 reported Objective +Inf
// and a NaN gap as converged. It must refuse, naming the largest value.
func TestOneClassOverflowRefused(t *testing.T) {
	d := hugeRows(t, OneClass, 3e153)
	_, _, err := train(context.Background(), d, Spec{Kind: OneClass})
	want := "huge.svm: example 9: feature 1 value 3.866917e+153: the one-class SVM's objective ½‖w‖² is +Inf, outside the float64 range; " +
		"scale the features down (to about [-1, 1]) or use a smaller C"
	if err == nil || err.Error() != want {
		t.Errorf("error %v\nwant %s", err, want)
	}
}
