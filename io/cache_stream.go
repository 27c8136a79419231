package dataio

import "github.com/acfcd/acfcd/io/internal/cache"

// CacheStreamOptions shape a cache written by WriteCacheStream.
type CacheStreamOptions struct {
	// Features is the least feature count the header records. The header
	// records the largest of Features, 1 + the largest index written and
	// the Features of every dataset passed to WriteRows; with 0 it counts
	// features as the text readers do.
	Features int
	// Float32 stores values as float32 (WriteRow rejects a value beyond
	// float32's range).
	Float32 bool
	// KnownShape says that Rows and NNZ are the exact totals that will be
	// written. Every section is then written in place in the final file,
	// so the data is written once; more rows or non-zeros than declared
	// are refused, and WriteCacheStream fails if fewer arrived. Without
	// it the Index, Value and Label sections go to temporary files beside
	// the cache and are copied into place at the end, so the data is
	// written twice (on Linux the copy stays in the kernel).
	KnownShape bool
	Rows       int
	NNZ        int64
}

// CacheStreamWriter writes a binary cache row by row in O(1) memory (a few
// MiB of buffers); WriteCacheStream hands one to its fill function. Rows
// are checked as WriteCache checks a dataset; a row that fails the check
// is refused with an error and nothing of it is written, so fill may go on.
// An I/O error is final: every later call returns it. A CacheStreamWriter
// is not safe for concurrent use and must not be used after fill returns.
// It writes no QID section.
type CacheStreamWriter struct {
	w *cache.StreamWriter
}

// WriteCacheStream writes a binary cache to path from the rows that fill
// passes to the writer, and returns what WriteCache would have written
// for the same rows, byte for byte. The cache appears at path only when
// fill returns nil and everything was written, atomically as with
// WriteCache (internal/atomicfile: a temporary file in the same directory,
// fsync, rename, fsync of the directory). When fill fails or panics, or
// writing fails, every temporary file is removed and an existing file at
// path is left untouched.
func WriteCacheStream(path string, opt CacheStreamOptions, fill func(w *CacheStreamWriter) error) error {
	return cache.WriteStream(path, cache.StreamOptions(opt), func(w *cache.StreamWriter) error {
		return fill(&CacheStreamWriter{w: w})
	})
}

// Rows is the number of rows written so far.
func (w *CacheStreamWriter) Rows() int { return w.w.Rows() }

// NNZ is the number of non-zeros written so far.
func (w *CacheStreamWriter) NNZ() int64 { return w.w.NNZ() }

// WriteRow appends one row: its label, its 0-based feature indices
// (strictly increasing) and their values.
func (w *CacheStreamWriter) WriteRow(label float64, index []int32, value []float64) error {
	return w.w.WriteRow(label, index, value)
}

// WriteRows appends every row of d, which must be a valid dataset (as
// WriteCache requires) without QID. d.Features counts as declared
// features (see CacheStreamOptions.Features).
func (w *CacheStreamWriter) WriteRows(d *Dataset) error {
	return w.w.WriteRows(matrixOf(d))
}
