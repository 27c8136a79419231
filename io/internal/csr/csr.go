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
	Line   int // 1-based; 0: the input as a whole
	Column int // 1-based byte column; 0 when it does not apply
	Msg    string
	Hint   Hint
}

func (e *ParseError) Error() string { return e.Message(GoName) }

// Message is the error's text with the option of its hint named by name.
func (e *ParseError) Message(name func(option, value string) string) string {
	msg := e.Msg + e.Hint.Render(name)
	switch {
	case e.Line == 0:
		return fmt.Sprintf("%s: %s", e.File, msg)
	case e.Column > 0:
		return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Column, msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, msg)
}

// Hint names, in an error's message, the option that decided a refusal
// (a field of dataio.Options, "Options.MaxFeatures") and how it helps,
// so that a program and a command line can each say it in their words:
// "(Options.MaxFeatures = 5 reads this file)" and "(--max-features 5
// reads this file)".
type Hint struct {
	Option string // the option's Go name; "" for no hint
	Value  string // the value it would take, or ""
	Text   string // the advice, with %s where the option goes ("" is just "%s")
}

// Render returns the hint as " (advice)" with the option named by name,
// or "" without an option.
func (h Hint) Render(name func(option, value string) string) string {
	if h.Option == "" {
		return ""
	}
	text := h.Text
	if text == "" {
		text = "%s"
	}
	return " (" + fmt.Sprintf(text, name(h.Option, h.Value)) + ")"
}

// CapHint is the hint of an index beyond Options.MaxFeatures: the cap
// that reads it, features.
func CapHint(features int64) Hint {
	return Hint{Option: "Options.MaxFeatures", Value: strconv.FormatInt(features, 10), Text: "%s reads this file"}
}

// GoName names an option as a program sets it: "Options.MaxFeatures",
// with a value "Options.MaxFeatures = 5".
func GoName(option, value string) string {
	if value == "" {
		return option
	}
	return option + " = " + value
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

// Digits shows a run of digits for a message: whole up to 24 of them,
// else its first 20 and its length, so that a 10 MB index makes a short
// line.
func Digits(d []byte) string {
	if len(d) <= 24 {
		return string(d)
	}
	return fmt.Sprintf("%s... (%d digits)", d[:20], len(d))
}

// StringView views b as a string without copying, for strconv calls that
// do not keep their argument.
func StringView(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}
