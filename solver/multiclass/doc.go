// Package multiclass holds the multi-class SVMs trained by dual subspace
// descent over examples: every coordinate of the driver (package solver)
// is one example, and a step optimises its block of K dual variables
// exactly. WW is the Weston–Watkins SVM (ww.go), CS the
// Crammer–Singer SVM of liblinear's -s 4 (cs.go); both keep the K weight
// vectors feature-major, W[j·K + c], so that one pass over a row reads or
// updates all classes, and share the full KKT pass (examples.go). Train
// trains either (train.go).
package multiclass
