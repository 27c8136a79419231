// Package solver trains sparse linear models by coordinate descent.
package solver

// Model is a trained linear model in liblinear's layout, so that it can be
// written in liblinear's text model format and read back by liblinear-predict.
type Model struct {
	// SolverType is liblinear's name for the problem, e.g.
	// "L2R_L2LOSS_SVC_DUAL" (-s 1), "L2R_L1LOSS_SVC_DUAL" (-s 3),
	// "L2R_LR_DUAL" (-s 7).
	SolverType string
	// Labels are the class labels in liblinear's order (nil for regression).
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
}
