package dataio

import (
	"fmt"

	"github.com/acfcd/acfcd/io/internal/csr"
)

// The NDJSON reader and the cache (io/internal/ndjson, io/internal/cache)
// cannot import this package, so they read into and write from a
// csr.Matrix: the arrays of a Dataset without its io-only fields. These
// conversions copy slice headers, never the data.

// datasetOf is m as a Dataset read from source.
func datasetOf(m *csr.Matrix, source string) *Dataset {
	return &Dataset{
		Rows:       m.Rows,
		Features:   m.Features,
		RowPtr:     m.RowPtr,
		Index:      m.Index,
		Value:      m.Value,
		Value32:    m.Value32,
		Label:      m.Label,
		QID:        m.QID,
		Source:     source,
		InputBytes: m.InputBytes,
	}
}

// matrixOf is d's arrays as a Matrix, or nil for a nil d.
func matrixOf(d *Dataset) *csr.Matrix {
	if d == nil {
		return nil
	}
	return &csr.Matrix{
		Rows:       d.Rows,
		Features:   d.Features,
		RowPtr:     d.RowPtr,
		Index:      d.Index,
		Value:      d.Value,
		Value32:    d.Value32,
		Label:      d.Label,
		QID:        d.QID,
		InputBytes: d.InputBytes,
	}
}

// readerOptions is opt as the readers in io/internal take it.
func readerOptions(opt Options) csr.Options {
	return csr.Options{
		ZeroBased:   opt.ZeroBased,
		Float32:     opt.Float32,
		KeepQID:     opt.KeepQID,
		Threads:     opt.Threads,
		MaxFeatures: opt.MaxFeatures,
	}
}

// publicError gives a reader's error this package's types, with the same
// text: *ParseError for a *csr.ParseError (a cache's is the whole file's),
// and an error wrapping ErrNoData for a *csr.NoDataError.
func publicError(err error) error {
	switch e := err.(type) {
	case *csr.ParseError:
		return (*ParseError)(e)
	case *csr.NoDataError:
		return fmt.Errorf("%s: %s: %w", e.Name, e.What, ErrNoData)
	}
	return err
}
