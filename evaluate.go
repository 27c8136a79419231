package acfcd

import (
	"errors"
	"fmt"

	dataio "github.com/acfcd/acfcd/io"
)

// Evaluation is how a model predicts a dataset, as liblinear-predict
// reports it.
type Evaluation struct {
	Rows      int
	Predicted []float64 // each example's prediction, in row order
	// Classifiers: the examples predicted right and their percentage.
	Correct  int
	Accuracy float64
	// Regression (the SVRs, the LASSO): the mean squared error and the
	// squared correlation coefficient of predictions and labels
	// (liblinear's "Squared correlation coefficient", r²).
	MSE, R2 float64
}

// Evaluate predicts every example of d with m. The data must hold float64
// values (read without Options.Float32). Features beyond the model's are
// ignored and labels the model does not know count as errors, as with
// liblinear-predict.
func Evaluate(m *Model, d *Dataset) (*Evaluation, error) {
	if m == nil || d == nil {
		return nil, errors.New("evaluate: nil model or dataset")
	}
	if err := m.Check(); err != nil {
		return nil, fmt.Errorf("evaluate: %w", err)
	}
	if err := d.Check(); err != nil {
		return nil, fmt.Errorf("evaluate: %w", err)
	}
	if d.Value == nil && d.Rows > 0 {
		return nil, &DataError{Msg: d.Source + ": prediction needs float64 values", Hint: dataio.Hint{Option: "Options.Float32", Text: "read without %s"}}
	}
	e := &Evaluation{Rows: d.Rows, Predicted: make([]float64, d.Rows)}
	for i := 0; i < d.Rows; i++ {
		idx, val := d.Row(i)
		y := m.Predict(idx, val)
		e.Predicted[i] = y
		if y == d.Label[i] {
			e.Correct++
		}
	}
	if d.Rows == 0 {
		return e, nil
	}
	e.Accuracy = 100 * float64(e.Correct) / float64(d.Rows)
	e.MSE, e.R2 = regressionStats(e.Predicted, d.Label)
	return e, nil
}

// regressionStats returns the mean squared error of the predictions pred
// of the labels y, and their squared correlation coefficient, with
// liblinear's sums in its order (predict.c, and train.c for -v).
func regressionStats(pred, y []float64) (mse, r2 float64) {
	var sq, sp, st, spp, stt, spt float64
	for i, v := range pred {
		t := y[i]
		sq += float64((v - t) * (v - t))
		sp += v
		st += t
		spp += float64(v * v)
		stt += float64(t * t)
		spt += float64(v * t)
	}
	n := float64(len(pred))
	mse = sq / n
	r2 = (float64(n*spt) - float64(sp*st)) * (float64(n*spt) - float64(sp*st)) /
		((float64(n*spp) - float64(sp*sp)) * (float64(n*stt) - float64(st*st)))
	return mse, r2
}
