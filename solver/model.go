// Package solver trains sparse linear models by coordinate descent.
package solver

import (
	"fmt"
	"math"
)

// Model is a trained linear model in liblinear's layout, so that it can be
// written in liblinear's text model format and read back by liblinear-predict.
//
// A Model is read-only once trained or loaded; its prediction methods
// (Decision, Predict, Probability) are then safe for concurrent use and do
// not allocate.
type Model struct {
	// SolverType is liblinear's name for the problem, e.g.
	// "L2R_L2LOSS_SVC_DUAL" (-s 1), "L2R_L1LOSS_SVC_DUAL" (-s 3),
	// "L2R_LR_DUAL" (-s 7). See the table in modelSolvers; "MCSVM_WW" is
	// acfcd's own Weston–Watkins multi-class SVM.
	SolverType string
	// Labels are the class labels in liblinear's order (nil for regression
	// and one-class models). liblinear stores them as C ints, so they must
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

// modelKind says what a solver type predicts.
type modelKind uint8

const (
	modelClassifier modelKind = iota // class labels
	modelRegression                  // real values, no label line
	modelOneClass                    // ±1, no label line, a rho line
)

// modelSolver describes one solver_type of liblinear's model files.
type modelSolver struct {
	name     string
	code     int // liblinear-train -s number; -1 for acfcd's own solvers
	kind     modelKind
	prob     bool   // logistic regression: Probability applies
	perClass bool   // one weight vector per class even for two classes
	since    string // first liblinear whose load_model knows it ("" = none)
}

// modelSolvers lists the solver types of liblinear 2.3.0 and 2.50 (the
// names of linear.cpp's solver_type_table), plus acfcd's own MCSVM_WW.
//
// MCSVM_WW (the Weston–Watkins multi-class SVM) stores one weight vector
// per class (NrW = nr_class, also for two classes) and predicts the
// argmax, like MCSVM_CS. liblinear-predict does not know the name and
// refuses such files ("unknown solver type"); acfcd reads them.
var modelSolvers = []modelSolver{
	{"L2R_LR", 0, modelClassifier, true, false, "1.0"},
	{"L2R_L2LOSS_SVC_DUAL", 1, modelClassifier, false, false, "1.0"},
	{"L2R_L2LOSS_SVC", 2, modelClassifier, false, false, "1.0"},
	{"L2R_L1LOSS_SVC_DUAL", 3, modelClassifier, false, false, "1.0"},
	{"MCSVM_CS", 4, modelClassifier, false, true, "1.0"},
	{"L1R_L2LOSS_SVC", 5, modelClassifier, false, false, "1.0"},
	{"L1R_LR", 6, modelClassifier, true, false, "1.0"},
	{"L2R_LR_DUAL", 7, modelClassifier, true, false, "1.0"},
	{"L2R_L2LOSS_SVR", 11, modelRegression, false, false, "1.9"},
	{"L2R_L2LOSS_SVR_DUAL", 12, modelRegression, false, false, "1.9"},
	{"L2R_L1LOSS_SVR_DUAL", 13, modelRegression, false, false, "1.9"},
	{"ONECLASS_SVM", 21, modelOneClass, false, false, "2.40"},
	{"MCSVM_WW", -1, modelClassifier, false, true, ""},
	{"LASSO", -1, modelRegression, false, false, ""}, // acfcd's L1 least squares; intercept as bias weight
}

// lookupSolver returns the description of a solver type, or nil.
func lookupSolver(name string) *modelSolver {
	for i := range modelSolvers {
		if modelSolvers[i].name == name {
			return &modelSolvers[i]
		}
	}
	return nil
}

// nrW is liblinear's number of weight vectors for nrClass classes.
func (s *modelSolver) nrW(nrClass int) int {
	if s.kind != modelClassifier {
		return 1
	}
	if nrClass == 2 && !s.perClass {
		return 1
	}
	return nrClass
}

// IsClassifier reports whether the model predicts class labels (false for
// regression and one-class models, which predict a real value and ±1).
func (m *Model) IsClassifier() bool {
	if s := lookupSolver(m.SolverType); s != nil {
		return s.kind == modelClassifier
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
// last bits). It panics if len(out) < NrW or len(val) < len(idx).
func (m *Model) Decision(idx []int32, val []float64, out []float64) {
	nrw := m.NrW
	out = out[:nrw]
	if nrw == 1 {
		out[0] = m.dec1(idx, val)
		return
	}
	clear(out)
	m.accumulate(idx, val, 0, out)
}

// dec1 is Decision for NrW = 1.
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
// c < len(d), bias included.
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

// modelPredictBlock is how many classes Predict scores per pass over x; their
// decision values live in a stack array, so Predict never allocates.
const modelPredictBlock = 64

// Predict returns liblinear's prediction for the example x = (idx, val):
// for two classes with one weight vector (and for MCSVM_CS with two
// classes, as liblinear does) Labels[0] if the decision value is > 0, else
// Labels[1]; otherwise the label of the largest decision value (the first
// on ties); for regression the decision value; for a one-class model +1 if
// w·x − Rho > 0, else −1. It does not allocate, whatever the number of
// classes.
func (m *Model) Predict(idx []int32, val []float64) float64 {
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
	var buf [modelPredictBlock]float64
	best, bestC := 0.0, -1
	for c0 := 0; c0 < nrw; c0 += modelPredictBlock {
		d := buf[:min(modelPredictBlock, nrw-c0)]
		clear(d)
		m.accumulate(idx, val, c0, d)
		for c, v := range d {
			if bestC < 0 || v > best {
				best, bestC = v, c0+c
			}
		}
	}
	return m.Labels[bestC]
}

// Probability writes liblinear's probability estimates for the example
// x = (idx, val) into out[:len(Labels)], in the order of Labels, for a
// logistic regression model (L2R_LR, L1R_LR, L2R_LR_DUAL), as liblinear's
// predict_probability: with two classes p = 1/(1+exp(−dec)) and 1 − p;
// otherwise the one-vs-rest sigmoids normalised to sum 1. It returns an
// error for other models or if out is too short, and does not allocate.
func (m *Model) Probability(idx []int32, val []float64, out []float64) error {
	s := lookupSolver(m.SolverType)
	if s == nil || !s.prob {
		return fmt.Errorf("solver: probability estimates need a logistic regression model (L2R_LR, L1R_LR or L2R_LR_DUAL), not %s", m.SolverType)
	}
	nc := len(m.Labels)
	if nc == 0 || m.NrW != s.nrW(nc) {
		return fmt.Errorf("solver: malformed %s model: %d labels, %d weight vectors", m.SolverType, nc, m.NrW)
	}
	if len(out) < nc {
		return fmt.Errorf("solver: Probability needs room for %d classes, got %d", nc, len(out))
	}
	out = out[:nc]
	m.Decision(idx, val, out)
	for c := range m.NrW {
		out[c] = 1 / (1 + math.Exp(-out[c]))
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
