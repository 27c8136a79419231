package model

import "strconv"

// Kind says what a model predicts.
type Kind uint8

const (
	// Classifier models predict one of their class labels.
	Classifier Kind = iota
	// Regression models predict a real value. Their files have no label
	// line (and nr_class 2, as liblinear writes it).
	Regression
	// OneClass models (outlier detection) predict +1 or −1. Their files
	// have no label line and a rho line.
	OneClass
)

// String returns "classifier", "regression" or "one-class".
func (k Kind) String() string {
	switch k {
	case Classifier:
		return "classifier"
	case Regression:
		return "regression"
	case OneClass:
		return "one-class"
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// SolverType describes one solver_type name of liblinear's model files:
// what the model predicts, how its weights are laid out, and which
// programs read it.
type SolverType struct {
	// Name is the solver_type line of the model file and the value of
	// Model.SolverType, e.g. "L2R_L2LOSS_SVC_DUAL".
	Name string
	// Flag is the -s value that trains this type: liblinear-train's
	// number ("0" to "21"), or acfcd's own name for its own types ("ww",
	// "lasso").
	Flag string
	// Kind is what the model predicts.
	Kind Kind
	// Probabilistic reports whether Model.Probability applies (the
	// logistic regressions).
	Probabilistic bool
	// PerClass reports whether the model keeps one weight vector per class
	// even for two classes (the multi-class SVMs). Other classifiers keep
	// a single vector for two classes.
	PerClass bool
	// Since is the first liblinear release whose load_model knows the name
	// (e.g. "1.4", "2.40"), or "" for acfcd's own types, which no liblinear
	// reads.
	Since string
}

// Liblinear reports whether liblinear knows the type (Since is set), so
// that liblinear-predict of a recent enough release reads its files.
func (s SolverType) Liblinear() bool { return s.Since != "" }

// WeightVectors returns liblinear's number of weight vectors (Model.NrW)
// for a model of this type with nrClass classes: nrClass, except 1 for
// two classes unless PerClass, and 1 for regression and one-class models.
func (s SolverType) WeightVectors(nrClass int) int {
	if s.Kind != Classifier {
		return 1
	}
	if nrClass == 2 && !s.PerClass {
		return 1
	}
	return nrClass
}

// solverTypes is the table behind SolverTypes: liblinear's solver types in
// the order of linear.cpp's solver_type_table (the same names in 2.3.0 and
// 2.50), then acfcd's own.
//
// The Since versions come from the solver_type_table of each tagged
// release in liblinear's repository: the L2R_/L1R_ names replaced
// L2_LR, L2LOSS_SVM_DUAL, ... in 1.4; MCSVM_CS is already in 1.34, the
// oldest tag, and may be older.
//
// MCSVM_WW (Weston–Watkins) keeps one weight vector per class and predicts
// the argmax, like MCSVM_CS. LASSO is L1-regularised least squares, its
// intercept stored as the bias weight. liblinear-predict refuses both
// ("unknown solver type").
var solverTypes = [...]SolverType{
	{Name: "L2R_LR", Flag: "0", Kind: Classifier, Probabilistic: true, Since: "1.4"},
	{Name: "L2R_L2LOSS_SVC_DUAL", Flag: "1", Kind: Classifier, Since: "1.4"},
	{Name: "L2R_L2LOSS_SVC", Flag: "2", Kind: Classifier, Since: "1.4"},
	{Name: "L2R_L1LOSS_SVC_DUAL", Flag: "3", Kind: Classifier, Since: "1.4"},
	{Name: "MCSVM_CS", Flag: "4", Kind: Classifier, PerClass: true, Since: "1.34"},
	{Name: "L1R_L2LOSS_SVC", Flag: "5", Kind: Classifier, Since: "1.4"},
	{Name: "L1R_LR", Flag: "6", Kind: Classifier, Probabilistic: true, Since: "1.4"},
	{Name: "L2R_LR_DUAL", Flag: "7", Kind: Classifier, Probabilistic: true, Since: "1.7"},
	{Name: "L2R_L2LOSS_SVR", Flag: "11", Kind: Regression, Since: "1.9"},
	{Name: "L2R_L2LOSS_SVR_DUAL", Flag: "12", Kind: Regression, Since: "1.9"},
	{Name: "L2R_L1LOSS_SVR_DUAL", Flag: "13", Kind: Regression, Since: "1.9"},
	{Name: "ONECLASS_SVM", Flag: "21", Kind: OneClass, Since: "2.40"},
	{Name: "MCSVM_WW", Flag: "ww", Kind: Classifier, PerClass: true},
	{Name: "LASSO", Flag: "lasso", Kind: Regression},
}

// SolverTypes returns every solver type acfcd reads and writes: liblinear's
// in the order of its -s numbers, then acfcd's own. The slice is a copy.
func SolverTypes() []SolverType {
	s := solverTypes
	return s[:]
}

// LookupSolverType returns the solver type with the given file name (the
// solver_type line, case-sensitive as liblinear reads it).
func LookupSolverType(name string) (SolverType, bool) {
	if s := lookup(name); s != nil {
		return *s, true
	}
	return SolverType{}, false
}

// SolverTypeByFlag returns the solver type that -s flag trains: "0" to
// "21" as liblinear-train numbers them, "ww" or "lasso" for acfcd's own.
// The flag must be written as liblinear prints it ("1", not "01").
func SolverTypeByFlag(flag string) (SolverType, bool) {
	for i := range solverTypes {
		if solverTypes[i].Flag == flag {
			return solverTypes[i], true
		}
	}
	return SolverType{}, false
}

// lookup returns the table entry named name, or nil. Prediction calls it,
// so it neither copies nor allocates.
func lookup(name string) *SolverType {
	for i := range solverTypes {
		if solverTypes[i].Name == name {
			return &solverTypes[i]
		}
	}
	return nil
}
