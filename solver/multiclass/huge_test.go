package multiclass

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	dataio "github.com/acfcd/acfcd/io"
	"github.com/acfcd/acfcd/model"
	"github.com/acfcd/acfcd/solver/fit"
)

// scaledClasses is a separable three-class problem of 90 rows, two
// features of about scale, read from libsvm text.
func scaledClasses(t *testing.T, scale float64) *dataio.Dataset {
	t.Helper()
	r := rand.New(rand.NewPCG(3, 4))
	var b strings.Builder
	for i := range 90 {
		y := i % 3
		x1, x2 := -(1 + r.Float64()), -(1 + r.Float64())
		if y == 0 {
			x1 = -x1
		}
		if y == 1 {
			x2 = -x2
		}
		fmt.Fprintf(&b, "%d 1:%.6e 2:%.6e\n", y+1, x1*scale, x2*scale)
	}
	d, err := dataio.Read(strings.NewReader(b.String()), "classes.svm", dataio.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// trainingRight counts the rows of d that m predicts as labelled.
func trainingRight(m *model.Model, d *dataio.Dataset) int {
	right := 0
	for i := 0; i < d.Rows; i++ {
		if m.Predict(d.Row(i)) == d.Label[i] {
			right++
		}
	}
	return right
}

// Crammer–Singer's α_i^{y_i} is about 1/‖x_i‖², far below C: computed as
// C + (t_y − C) it lost its bits: these classes stopped at the epoch cap
// with about 65% training accuracy from 1e100 up (a two-class problem
// from 1e10 up). Any scale must separate them as at 1.
func TestCSHugeValues(t *testing.T) {
	for _, scale := range []float64{1, 1e10, 1e100, 1e153} {
		d := scaledClasses(t, scale)
		m, res := mustTrain(t, context.Background(), d, Spec{Spec: fit.Spec{C: 1}, Crammer: true})
		if right := trainingRight(m, d); right != d.Rows || !res.Converged || res.HitEpochCap {
			t.Errorf("scale %g: training accuracy %d/%d, converged %v, epoch cap %v, violation %g after %d epochs",
				scale, right, d.Rows, res.Converged, res.HitEpochCap, res.Violation, res.Epochs)
		}
	}
}
