package l1

import (
	"context"
	"strings"
	"testing"

	"github.com/acfcd/acfcd/internal/synth"
	dataio "github.com/acfcd/acfcd/io"
)

// hugeRows is 60 separable rows with two features of about scale, read
// from libsvm text.
func hugeRows(t *testing.T, scale float64) *dataio.Dataset {
	t.Helper()
	d, err := dataio.Read(strings.NewReader(synth.ScaledText(60, scale, 1, 1, true)), "huge.svm", dataio.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// Weights of about 1/x fell below liblinear's cut of steps |d| < 1e-12,
// and from 1e153 -s 5's second derivative overflowed: both stayed at
// w = 0 (50% training accuracy) until the epoch cap. Any scale must
// separate the rows as at 1.
func TestHugeValues(t *testing.T) {
	for _, logistic := range problems {
		for _, scale := range []float64{1, 1e20, 1e150, 1e153} {
			d := hugeRows(t, scale)
			m, res, err := train(context.Background(), d, params{logistic: logistic})
			if err != nil {
				t.Fatalf("-s %s at %g: %v", flag(logistic), scale, err)
			}
			right := 0
			for i := 0; i < d.Rows; i++ {
				if m.Predict(d.Row(i)) == d.Label[i] {
					right++
				}
			}
			if right != d.Rows || !res.Converged || res.HitEpochCap {
				t.Errorf("-s %s at %g: training accuracy %d/%d, converged %v, epoch cap %v, violation %g",
					flag(logistic), scale, right, d.Rows, res.Converged, res.HitEpochCap, res.Violation)
			}
		}
	}
}
