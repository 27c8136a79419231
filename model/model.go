package model

import (
	"fmt"
	"math"

	"github.com/acfcd/acfcd/internal/fmath"
)

// Model is a trained linear model in liblinear's layout, so that it can be
// written in liblinear's text model format and read back by liblinear-predict.
//
// A Model is read-only once trained or loaded; its prediction methods
// (Decision, Predict, Probability) are then safe for concurrent use and do
// not allocate.
type Model struct {
	// SolverType is the file's solver_type, liblinear's name for the
	// problem, e.g. "L2R_L2LOSS_SVC_DUAL" (-s 1), "L2R_L1LOSS_SVC_DUAL"
	// (-s 3), "L2R_LR_DUAL" (-s 7); LookupSolverType describes it. It is
	// kept as the name, so that files round-trip exactly.
	SolverType string
	// Labels are the distinct class labels in liblinear's order (nil for
	// regression and one-class models), not one per example as a
	// Dataset's Label. liblinear stores them as C ints, so they must
	// be integers in the int32 range for Save.
	Labels []float64
	// NumFeature is the number of features, not counting the bias feature.
	NumFeature int
	// Bias is liblinear's -B: < 0 means no bias feature; otherwise every
	// example gets an extra feature of this value, with its weight last.
	Bias float64
	// NrW is the number of weight vectors: 1 for binary problems and
	// regression, len(Labels) for one-vs-rest multi-class.
	NrW int
	// W holds the weights feature-major as in liblinear's file:
	// W[j*NrW+c] is the weight of feature j (0-based) for class c; with a
	// bias, row NumFeature holds the bias weights.
	W []float64
	// Partial marks a model that was not trained to convergence (cancelled
	// or stopped at the epoch cap). It is not written to the file.
	Partial bool
	// Rho is the offset of a one-class SVM (liblinear ≥ 2.40, solver_type
	// ONECLASS_SVM, the file's "rho" line): its decision value is
	// w·x − Rho. It is 0 for every other solver type.
	Rho float64
}

// IsClassifier reports whether the model predicts class labels (false for
// regression and one-class models, which predict a real value and ±1).
func (m *Model) IsClassifier() bool {
	if s := lookup(m.SolverType); s != nil {
		return s.Kind == Classifier
	}
	return len(m.Labels) > 0
}

// NNZ returns the number of non-zero weights, bias weights included.
func (m *Model) NNZ() int {
	n := 0
	for _, v := range m.W {
		if v != 0 {
			n++
		}
	}
	return n
}

// Decision writes the NrW decision values of the example x = (idx, val)
// (0-based feature indices) into out[:NrW]: out[c] = w_c·x + Bias·w_bias,c,
// the bias term only when Bias ≥ 0, and minus Rho for a one-class model.
// These are liblinear's dec_values. As liblinear-predict does, features
// with an index ≥ NumFeature (or negative) are ignored. Products are
// rounded before they are added, in liblinear's order, so the values are
// bit-identical to liblinear's on machines where its C compiler does not
// fuse multiply-adds (amd64; an arm64 build of liblinear may differ in the
// last bits). It panics, saying which argument is short, if
// len(val) < len(idx) or len(out) < NrW.
func (m *Model) Decision(idx []int32, val []float64, out []float64) {
	nrw := m.NrW
	if len(val) < len(idx) {
		shortValues("Decision", val, idx)
	}
	if len(out) < nrw {
		panic(fmt.Sprintf("model: Model.Decision: out has room for %d values, the model has %d weight vectors", len(out), nrw))
	}
	out = out[:nrw]
	if nrw == 1 {
		out[0] = m.dec1(idx, val)
		return
	}
	clear(out)
	m.accumulate(idx, val, 0, out)
}

// shortValues is the panic of a row with fewer values than indices, a
// bug of the caller's as an index out of range is. Kept out of line, so
// that Predict's hot path stays as short as before the check.
//
//go:noinline
func shortValues(method string, val []float64, idx []int32) {
	panic(fmt.Sprintf("model: Model.%s: %d values for %d indices (val must be at least as long as idx)", method, len(val), len(idx)))
}

// dec1 is Decision for NrW = 1.
//
// The order of summation is liblinear's predict_values: 0, then each
// product in the order of x, then the bias feature (liblinear-predict
// appends it to x as the last node), then − rho. float64(a*b) rounds each
// product to float64 before the addition: the Go spec lets the compiler
// fuse x*y + z into one FMA (on arm64, ppc64le, s390x) unless the product
// is converted explicitly, and a fused sum would differ in the last bits.
func (m *Model) dec1(idx []int32, val []float64) float64 {
	val = val[:len(idx)]
	w := m.W
	nf := uint32(m.NumFeature)
	s := 0.0
	for k, j := range idx {
		if uint32(j) < nf {
			s += float64(w[j] * val[k])
		}
	}
	if m.Bias >= 0 {
		s += float64(w[m.NumFeature] * m.Bias)
	}
	return s - m.Rho
}

// accumulate adds to d[c] the decision value of class c0+c, for
// c < len(d), bias included. Each d[c] gets its products in the order of
// x, as liblinear's loop (features outer, classes inner) adds them, rounded
// as in dec1; blocking the classes does not change any single sum.
func (m *Model) accumulate(idx []int32, val []float64, c0 int, d []float64) {
	val = val[:len(idx)]
	nrw := m.NrW
	w := m.W
	nf := uint32(m.NumFeature)
	for k, j := range idx {
		if uint32(j) >= nf {
			continue
		}
		row := w[int(j)*nrw+c0:][:len(d)]
		v := val[k]
		for c := range d {
			d[c] += float64(row[c] * v)
		}
	}
	if b := m.Bias; b >= 0 {
		row := w[m.NumFeature*nrw+c0:][:len(d)]
		for c := range d {
			d[c] += float64(row[c] * b)
		}
	}
}

// predictBlock is how many classes Predict scores per pass over x; their
// decision values live in a stack array, so Predict never allocates.
const predictBlock = 64

// Predict returns liblinear's prediction for the example x = (idx, val):
// for two classes with one weight vector (and for MCSVM_CS with two
// classes, as liblinear does) Labels[0] if the decision value is > 0, else
// Labels[1]; otherwise the label of the largest decision value (the first
// on ties); for regression the decision value; for a one-class model +1 if
// w·x − Rho > 0, else −1. It does not allocate, whatever the number of
// classes. A nil or zero Model predicts NaN; m must otherwise pass Check.
// Predict panics, naming both lengths, if len(val) < len(idx): the two
// slices of one row are the caller's to keep together.
func (m *Model) Predict(idx []int32, val []float64) float64 {
	if m == nil {
		return math.NaN()
	}
	if len(val) < len(idx) {
		shortValues("Predict", val, idx)
	}
	nrw := m.NrW
	if nrw == 1 {
		d := m.dec1(idx, val)
		switch {
		case len(m.Labels) == 2:
			if d > 0 {
				return m.Labels[0]
			}
			return m.Labels[1]
		case len(m.Labels) == 1:
			return m.Labels[0]
		case m.SolverType == "ONECLASS_SVM":
			if d > 0 {
				return 1
			}
			return -1
		}
		return d
	}
	if len(m.Labels) == 2 && m.SolverType == "MCSVM_CS" {
		// liblinear's predict_values decides two classes by dec_values[0]
		// alone, also for Crammer–Singer (whose w_1 = −w_0).
		var d [2]float64
		m.accumulate(idx, val, 0, d[:])
		if d[0] > 0 {
			return m.Labels[0]
		}
		return m.Labels[1]
	}
	var buf [predictBlock]float64
	best, bestC := 0.0, -1
	for c0 := 0; c0 < nrw; c0 += predictBlock {
		d := buf[:min(predictBlock, nrw-c0)]
		clear(d)
		m.accumulate(idx, val, c0, d)
		for c, v := range d {
			if bestC < 0 || v > best {
				best, bestC = v, c0+c
			}
		}
	}
	if bestC < 0 || bestC >= len(m.Labels) {
		return math.NaN() // a zero or malformed Model (see Check)
	}
	return m.Labels[bestC]
}

// Probability writes liblinear's probability estimates for the example
// x = (idx, val) into out[:len(Labels)], in the order of Labels, for a
// logistic regression model (L2R_LR, L1R_LR, L2R_LR_DUAL), as liblinear's
// predict_probability: with two classes p = 1/(1+exp(−dec)) and 1 − p;
// otherwise the one-vs-rest sigmoids normalised to sum 1. It returns an
// error for other models or if out is too short, and does not allocate. As
// Predict, it panics if len(val) < len(idx).
func (m *Model) Probability(idx []int32, val []float64, out []float64) error {
	if len(val) < len(idx) {
		shortValues("Probability", val, idx)
	}
	s := lookup(m.SolverType)
	if s == nil || !s.Probabilistic {
		return fmt.Errorf("model: probability estimates need a logistic regression model (L2R_LR, L1R_LR or L2R_LR_DUAL), not %s", m.SolverType)
	}
	nc := len(m.Labels)
	if nc == 0 || m.NrW != s.WeightVectors(nc) {
		return fmt.Errorf("model: malformed %s model: %d labels, %d weight vectors", m.SolverType, nc, m.NrW)
	}
	if len(out) < nc {
		return fmt.Errorf("model: Probability needs room for %d classes, got %d", nc, len(out))
	}
	out = out[:nc]
	m.Decision(idx, val, out)
	for c := range m.NrW {
		out[c] = 1 / (1 + fmath.Exp(-out[c]))
	}
	if nc == 2 {
		out[1] = 1 - out[0]
		return nil
	}
	sum := 0.0
	for _, p := range out {
		sum += p
	}
	for c := range out {
		out[c] /= sum
	}
	return nil
}
