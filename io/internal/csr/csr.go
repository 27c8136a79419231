// Package csr is what the readers under io share: the CSR arrays a reader
// produces and the cache writer consumes (Matrix), the options a reader
// takes, the errors it reports, and the invariants a valid matrix meets
// (Check). Package io turns a Matrix into its Dataset by copying the slice
// headers, never the data.
package csr

import (
	"fmt"
	"math"
	"strconv"
	"unsafe"
)

// Matrix is a sparse matrix in CSR form with one label per row, laid out
// as dataio.Dataset: row i holds Index[RowPtr[i]:RowPtr[i+1]] (0-based,
// strictly increasing) and the matching values; exactly one of Value and
// Value32 is non-nil.
type Matrix struct {
	Rows       int
	Features   int
	RowPtr     []int64
	Index      []int32
	Value      []float64
	Value32    []float32
	Label      []float64
	QID        []int64
	InputBytes int64 // bytes of input read: decompressed text, or a cache file's size
}

// Options are the parts of dataio.Options a reader uses.
type Options struct {
	ZeroBased   bool
	Float32     bool
	KeepQID     bool
	Threads     int // 0 means runtime.GOMAXPROCS(0)
	MaxFeatures int // 0 means MaxFeatures
}

// MaxFeatures is the most features a text reader accepts, so that both a
// 0-based index and the feature count fit in int32.
const MaxFeatures = math.MaxInt32

// IndexLimit bounds the feature count of a valid matrix: every index is an
// int32 below the count, so at most 2^31 (untyped: compared as uint64 and
// int64).
const IndexLimit = 1 << 31

// ParseError locates a problem in a text input; its text is that of
// dataio.ParseError, which package io turns it into.
type ParseError struct {
	File   string
	Line   int // 1-based
	Column int // 1-based byte column; 0 when it does not apply
	Msg    string
}

func (e *ParseError) Error() string {
	if e.Column > 0 {
		return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Column, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

// NoDataError reports an input without rows as "Name: What: no data".
// Package io turns it into an error with the same text that wraps
// dataio.ErrNoData, which this package cannot name.
type NoDataError struct {
	Name string // the input
	What string // what it held instead, e.g. "empty file"
}

func (e *NoDataError) Error() string { return e.Name + ": " + e.What + ": no data" }

// Quote formats a token for an error message, shortened if long.
func Quote(tok []byte) string {
	const max = 40
	if len(tok) > max {
		return strconv.Quote(string(tok[:max])) + "..."
	}
	return strconv.Quote(string(tok))
}

// StringView views b as a string without copying, for strconv calls that
// do not keep their argument.
func StringView(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}
