package primal

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/acfcd/acfcd/internal/synth"
	dataio "github.com/acfcd/acfcd/io"
	"github.com/acfcd/acfcd/model"
)

// hugeData is a separable two-feature problem of 60 rows whose values are
// about scale: y·[1, 2]·scale and [−1, 1]·scale, read from libsvm text.
func hugeData(t *testing.T, scale float64) *dataio.Dataset {
	t.Helper()
	d, err := dataio.Read(strings.NewReader(synth.ScaledText(60, scale, 1, 2, false)), "huge.svm", dataio.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// accuracy is m's training accuracy on d, and for the regression the
// mean squared error.
func accuracy(d *dataio.Dataset, m *model.Model) (acc, mse float64) {
	for i := 0; i < d.Rows; i++ {
		p := m.Predict(d.Row(i))
		if p == d.Label[i] {
			acc++
		}
		mse += float64((p - d.Label[i]) * (p - d.Label[i]))
	}
	return acc / float64(d.Rows), mse / float64(d.Rows)
}

// Values of 1e153 have finite squares, but ‖∇f(0)‖² and Σ D_i x_i x_iᵀ
// overflow: the solvers stopped at w = 0 with a violation of NaN. They
// must reach the models of the same data at 1e150, which do not overflow.
func TestHugeValues(t *testing.T) {
	for _, loss := range []Loss{Logistic, SquaredHinge, SquaredTube} {
		t.Run(flags[loss], func(t *testing.T) {
			ref, _ := mustTrain(t, context.Background(), hugeData(t, 1e150), params{loss: loss})
			refAcc, refMSE := accuracy(hugeData(t, 1e150), ref)
			d := hugeData(t, 1e153)
			m, res := mustTrain(t, context.Background(), d, params{loss: loss})
			if !res.Converged || !(res.Violation <= res.Eps) {
				t.Errorf("converged %v at violation %g (eps %g)", res.Converged, res.Violation, res.Eps)
			}
			acc, mse := accuracy(d, m)
			if loss != SquaredTube && (acc != 1 || refAcc != 1) {
				t.Errorf("training accuracy %g at 1e153, %g at 1e150; want 1", acc, refAcc)
			}
			if loss == SquaredTube && !(math.Abs(mse-refMSE) <= 1e-6*refMSE) {
				t.Errorf("mean squared error %g at 1e153, %g at 1e150", mse, refMSE)
			}
		})
	}
}

// At C = 1e300, ‖∇f(0)‖ itself overflows: an error that names the data's
// largest value, not a model.
func TestHugeValuesRefused(t *testing.T) {
	for _, loss := range []Loss{Logistic, SquaredHinge, SquaredTube} {
		_, _, err := Train(context.Background(), hugeData(t, 1e150), params{loss: loss, c: 1e300}.spec())
		want := "huge.svm: example 35: feature 1 value 1.995956e+150: the primal Newton method's ‖∇f(0)‖ is +Inf at C = 1e+300, " +
			"outside the float64 range; scale the features down (to about [-1, 1]) or use a smaller C"
		if err == nil || err.Error() != want {
			t.Errorf("-s %s: error %v\nwant %s", flags[loss], err, want)
		}
	}
}
