package acfcd

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

// Evaluate predicts every example of d with m. Float32 values (read with
// Options.Float32) are converted to float64 row by row, exactly, so the
// predictions are those of the float64 data. Features beyond the model's are
// ignored and labels the model does not know count as errors, as with
// liblinear-predict.
func Evaluate(m *Model, d *Dataset) (*Evaluation, error) {
	v := NewEvaluator(m)
	pred, err := v.Add(d, nil)
	if err != nil {
		return nil, err
	}
	e := v.Evaluation()
	e.Predicted = pred
	return e, nil
}

// regressionStats returns the mean squared error of the predictions pred
// of the labels y, and their squared correlation coefficient, with
// liblinear's sums in its order (predict.c, and train.c for -v).
func regressionStats(pred, y []float64) (mse, r2 float64) {
	var s regressionSums
	for i, v := range pred {
		s.add(v, y[i])
	}
	return s.stats(len(pred))
}
