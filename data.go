package acfcd

import (
	"io"

	dataio "github.com/acfcd/acfcd/io"
	"github.com/acfcd/acfcd/model"
)

type (
	// Dataset is a sparse matrix in CSR form with one label per row
	// (Label[i] is row i's class or target; a Model's Labels are its
	// classes). Its fields and methods are documented in package dataio
	// (go doc github.com/acfcd/acfcd/io.Dataset): Check, Row (float64
	// values), RowTo (float64 or float32 values), NNZ, Subset, CSC,
	// KeepCSC, Where and Close.
	Dataset = dataio.Dataset
	// Options control how data is read; the zero value reads 1-based
	// libsvm text into float64 values.
	Options = dataio.Options
	// Model is a trained linear model in liblinear's layout (Labels are
	// its classes in liblinear's order, not a Dataset's per-row Label).
	// Its fields and methods are documented in package model (go doc
	// github.com/acfcd/acfcd/model.Model): Predict, Decision and
	// Probability (allocation-free, safe for concurrent use), Save,
	// SaveContext, WriteTo, Check, IsClassifier and NNZ.
	Model = model.Model
)

// Load reads a data file: libsvm text (plain, .gz or .bz2; memory-mapped
// and parsed in parallel when it is a regular file), NDJSON or a binary
// cache written by WriteCache; "-" reads standard input. The format is
// detected from the first bytes. Errors name the file, line and column.
// Close the dataset when done (it may be a mapped cache).
func Load(path string, opt Options) (*Dataset, error) { return dataio.Load(path, opt) }

// Read reads a data stream as Load does; name labels its errors.
func Read(r io.Reader, name string, opt Options) (*Dataset, error) {
	return dataio.Read(r, name, opt)
}

// Scan reads a data file as Load does and hands its rows to fn in blocks,
// in order, in bounded memory (see dataio.Scan); first is the number of
// rows before the block, which is valid only during the call.
func Scan(path string, opt Options, fn func(first int, block *Dataset) error) error {
	return dataio.Scan(path, opt, fn)
}

// WriteCache writes d as a binary cache that Load maps without parsing
// (versioned and checksummed), atomically: a reader sees the old file or
// the whole new one.
func WriteCache(path string, d *Dataset) error { return dataio.WriteCache(path, d) }

// LoadModel reads a model in liblinear's text format (acfcd's or
// liblinear's).
func LoadModel(path string) (*Model, error) { return model.LoadModel(path) }

// ReadModel reads a model in liblinear's text format from r; name labels
// its errors.
func ReadModel(r io.Reader, name string) (*Model, error) { return model.ReadModel(r, name) }
