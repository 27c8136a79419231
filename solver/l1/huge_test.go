package l1

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	dataio "github.com/acfcd/acfcd/io"
)

// hugeRows is 60 separable rows with two features of about scale, read
// from libsvm text.
func hugeRows(t *testing.T, scale float64) *dataio.Dataset {
	t.Helper()
	r := rand.New(rand.NewPCG(1, 1))
	var b strings.Builder
	for i := range 60 {
		y := float64(2*(i%2) - 1)
		fmt.Fprintf(&b, "%+g 1:%.6e 2:%.6e\n", y, y*(1+r.Float64())*scale, (2*r.Float64()-1)*scale)
	}
	d, err := dataio.Read(strings.NewReader(b.String()), "huge.svm", dataio.Options{})
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
				a, b := d.RowPtr[i], d.RowPtr[i+1]
				if m.Predict(d.Index[a:b], d.Value[a:b]) == d.Label[i] {
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
