package acfcd

import (
	"errors"
	"fmt"
)

// Evaluator evaluates a model on a dataset that comes in blocks of rows,
// in order (those of Scan): each row is predicted as by Evaluate, and the
// sums are Evaluate's in its order, so that the Evaluation is bit for bit
// Evaluate's on the whole dataset. Its memory does not grow with the rows.
type Evaluator struct {
	m       *Model
	checked bool // m passed its check
	e       Evaluation
	sums    regressionSums
}

// NewEvaluator returns an Evaluator of m; the first Add checks m.
func NewEvaluator(m *Model) *Evaluator { return &Evaluator{m: m} }

// Add predicts every row of d, the next block, with Evaluate's checks and
// errors, and returns pred with the predictions appended.
func (v *Evaluator) Add(d *Dataset, pred []float64) ([]float64, error) {
	m := v.m
	if m == nil || d == nil {
		return pred, errors.New("evaluate: nil model or dataset")
	}
	if !v.checked {
		if err := m.Check(); err != nil {
			return pred, fmt.Errorf("evaluate: %w", err)
		}
		v.checked = true
	}
	if err := d.Check(); err != nil {
		return pred, fmt.Errorf("evaluate: %w", err)
	}
	if pred == nil {
		pred = make([]float64, 0, d.Rows)
	}
	var buf []float64 // float32 rows as float64, reused: exact, so the predictions are the float64 copy's
	for i := 0; i < d.Rows; i++ {
		idx, val := d.RowTo(i, buf)
		buf = val
		y := m.Predict(idx, val)
		pred = append(pred, y)
		if y == d.Label[i] {
			v.e.Correct++
		}
		v.sums.add(y, d.Label[i])
	}
	v.e.Rows += d.Rows
	return pred, nil
}

// Evaluation is the evaluation of the rows added so far, without
// Predicted (Add returned them).
func (v *Evaluator) Evaluation() *Evaluation {
	e := v.e
	if e.Rows > 0 {
		e.Accuracy = 100 * float64(e.Correct) / float64(e.Rows)
		e.MSE, e.R2 = v.sums.stats(e.Rows)
	}
	return &e
}

// regressionSums are liblinear's sums for the mean squared error and the
// squared correlation coefficient (predict.c, and train.c for -v), added
// one example at a time in its order.
type regressionSums struct {
	sq, sp, st, spp, stt, spt float64
}

// add adds the prediction p of label t.
func (s *regressionSums) add(p, t float64) {
	s.sq += float64((p - t) * (p - t))
	s.sp += p
	s.st += t
	s.spp += float64(p * p)
	s.stt += float64(t * t)
	s.spt += float64(p * t)
}

// stats returns the mean squared error and the squared correlation
// coefficient of the n examples added.
func (s *regressionSums) stats(rows int) (mse, r2 float64) {
	n := float64(rows)
	mse = s.sq / n
	r2 = (float64(n*s.spt) - float64(s.sp*s.st)) * (float64(n*s.spt) - float64(s.sp*s.st)) /
		((float64(n*s.spp) - float64(s.sp*s.sp)) * (float64(n*s.stt) - float64(s.st*s.st)))
	return mse, r2
}
