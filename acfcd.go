// Package acfcd trains sparse linear models — linear SVMs and logistic
// regression — by dual coordinate descent whose coordinate frequencies adapt
// online (ACF: Glasmachers & Dogan, "Coordinate Descent with Online
// Adaptation of Coordinate Frequencies"). Models use liblinear's file format.
//
// The library API is small:
//
//	d, err := acfcd.Load("train.svm", acfcd.Options{})
//	m, res, err := acfcd.Train(ctx, d, acfcd.Params{Solver: 1, C: 1, Bias: -1})
//	label := m.Predict(idx, val)
//	err = m.Save("train.model")
//
// The pieces live in subpackages: io (readers, package dataio), kernel
// (sparse kernels), acf (preferences and scheduler) and solver.
package acfcd

import (
	"context"

	dataio "github.com/acfcd/acfcd/io"
	"github.com/acfcd/acfcd/solver"
)

type (
	// Dataset is a sparse matrix in CSR form with one label per row.
	Dataset = dataio.Dataset
	// Options control how data files are read.
	Options = dataio.Options
	// Model is a trained linear model in liblinear's layout.
	Model = solver.Model
	// Params choose the problem, its constants and the coordinate selection.
	Params = solver.Params
	// Result reports how training went.
	Result = solver.Result
	// Progress is passed to Params.Progress during training.
	Progress = solver.Progress
)

// Load reads a libsvm text file (plain, .gz or .bz2), an NDJSON file or a
// binary cache; "-" reads standard input.
func Load(path string, opt Options) (*Dataset, error) { return dataio.Load(path, opt) }

// Train fits a model. When ctx is cancelled it returns the model reached so
// far with Model.Partial and Result.Cancelled set.
func Train(ctx context.Context, d *Dataset, p Params) (*Model, *Result, error) {
	return solver.Train(ctx, d, p)
}

// LoadModel reads a model in liblinear's text format (ours or liblinear's).
func LoadModel(path string) (*Model, error) { return solver.LoadModel(path) }
