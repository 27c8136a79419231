// Package model holds a trained sparse linear model, predicts with it, and
// reads and writes it in liblinear's text model format.
//
// # Models
//
// A Model is liblinear's struct model in Go: the solver type that trained
// it (by its liblinear name, e.g. "L2R_L2LOSS_SVC_DUAL"), the class labels,
// the number of features, the bias, and the weights, stored feature-major
// as in liblinear's file: W[j*NrW+c] is the weight of feature j (0-based)
// in weight vector c.
//
// How many weight vectors a model keeps depends on what it predicts:
//
//   - a classifier with k > 2 classes keeps one vector per class and
//     predicts the label of the largest decision value;
//   - a classifier with two classes keeps one vector and predicts Labels[0]
//     when its decision value is positive, else Labels[1]; the multi-class
//     SVMs (MCSVM_CS, acfcd's MCSVM_WW) keep two vectors even then;
//   - a regression model keeps one vector, no labels, and predicts its
//     decision value;
//   - a one-class model (ONECLASS_SVM) keeps one vector and an offset Rho,
//     and predicts +1 when w·x − Rho > 0, else −1.
//
// SolverTypes lists every solver type with what it predicts, its -s flag,
// whether Probability applies, and the first liblinear release that reads
// it; LookupSolverType and SolverTypeByFlag find one by name or by flag.
// This table is the one place where acfcd names its solver types.
//
// # Loading, saving and predicting
//
//	m, err := model.LoadModel("heart_scale.model") // or ReadModel(r, name)
//	if err != nil {
//		return err
//	}
//	label := m.Predict(idx, val)
//	err = m.Save("copy.model") // or m.WriteTo(w)
//
// An example is a sparse row: idx holds 0-based feature indices (a libsvm
// file's index − 1) and val their values; the products are summed in the
// order given (liblinear's is ascending index). Features the model
// does not know (index ≥ NumFeature) are ignored, as liblinear-predict
// ignores them; the bias feature is added by the model, not by the caller.
// Predict returns a class label, a real value or ±1 (see above); Decision
// writes liblinear's decision values, one per weight vector; Probability
// writes class probabilities for the logistic regressions (L2R_LR, L1R_LR,
// L2R_LR_DUAL), as liblinear-predict -b 1 computes them.
//
// Prediction repeats liblinear's arithmetic: the same order of summation
// and every product rounded before it is added, so decision values are
// bit for bit those of liblinear-predict built for amd64 (a C compiler
// that fuses multiply-adds, as on arm64, may differ in the last bits).
//
// # Concurrency
//
// A Model is read-only once it is trained or loaded: Decision, Predict and
// Probability may then be called from any number of goroutines at once,
// and none of them allocates, whatever the number of classes. Changing a
// field while another goroutine predicts is a data race.
//
// # The file format
//
// A model file is text: a header of "key value" lines, a line "w", and one
// line of NrW weights per feature, plus one for the bias weights when
// bias ≥ 0:
//
//	solver_type L2R_LR
//	nr_class 3
//	label 1 2 3
//	nr_feature 2
//	bias 1
//	w
//	0.5 -0.25 0
//	1.5 0 -2
//	0.125 0.25 -0.375
//
// Regression and one-class models have "nr_class 2" and no label line;
// one-class models add "rho VALUE". Class labels are integers in the int32
// range (liblinear keeps them as C ints), and every number must be finite.
//
// Save and WriteTo write exactly what liblinear's save_model writes for
// the same model: counts and labels as %d, the bias, rho and weights as
// %.17g (each weight followed by a space), byte for byte as liblinear
// 2.21 to 2.50 write them. Save replaces a regular file atomically, so a
// reader sees the old or the new model, never a part; Partial is not
// stored.
//
// LoadModel and ReadModel read files of any liblinear release (older ones
// wrote %.16g, which reads back the same way liblinear reads it) as well
// as ours. They are strict where liblinear is lenient: header lines in any
// order but each once, counts and labels in range, the number of weights
// as the header says, nothing after the last row but blank lines; CRLF
// line ends are accepted. Errors name the file and line ("FILE:LINE: what
// is wrong"). Hostile files cannot make them panic, nor allocate more
// than a small multiple of the file's size: counts are checked before
// anything is allocated, and the weights grow only as their lines arrive.
//
// # Which liblinear reads our files
//
// liblinear's load_model (and so liblinear-predict and its Python and
// MATLAB interfaces) reads a saved file if it knows the file's solver
// type: SolverType.Since is the first release that does — 1.4 for the
// classifiers of -s 0 to 6 (MCSVM_CS already in 1.34), 1.7 for
// L2R_LR_DUAL, 1.9 for the regressions, 2.40 for ONECLASS_SVM. Releases
// before 2.21 read our %.17g numbers as well. acfcd's own solver types,
// MCSVM_WW and LASSO, are read by acfcd only; liblinear rejects them as
// an unknown solver type. The tests check all of this against
// liblinear-tools 2.3.0 when it is installed.
package model
