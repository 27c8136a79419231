// Package dataio reads training data into compressed sparse row (CSR) form:
// libsvm/svmlight text (memory-mapped or streamed, parsed in parallel),
// NDJSON, and acfcd's own binary cache, which loads by mmap with no parsing.
//
// The import path ends in /io; the package is named dataio so that it does
// not shadow the standard library's io in files that use both.
//
// # libsvm text
//
// One example per line:
//
//	<label> [qid:<n>] <index>:<value> <index>:<value> ... [# comment]
//
// where
//
//   - label is a decimal float such as 1, +1, -1, 1.0, -1e0 or 0.25.
//   - index is a decimal integer, at least 1 (at least 0 with
//     Options.ZeroBased; it is stored 0-based either way); leading zeros
//     are allowed, signs are not. Indices must increase strictly within a
//     line. Features is 1 + the largest 0-based index; at most
//     math.MaxInt32 features, or Options.MaxFeatures when set.
//   - value is any float strconv.ParseFloat accepts (decimal, exponent,
//     hex), but not NaN or ±Inf, or a value that overflows float64 (or
//     float32 with Options.Float32). Plain decimals are converted without
//     strconv, with bit-identical results.
//   - qid:<n> (an int64) may come once, directly after the label. It is
//     ignored unless Options.KeepQID is set; then Dataset.QID holds one
//     entry per row (0 for rows without one), or stays nil when the input
//     has no qid: at all.
//   - Tokens are separated by spaces or tabs (also CR, VT, FF; several in
//     a row are fine). '#' starts a comment running to the end of the line,
//     anywhere on it. Lines end in LF or CRLF; the last may lack its line
//     end. Blank and comment-only lines are skipped and are not rows; a
//     line with only a label is a row without features.
//
// Any other text is an error, reported as a *ParseError with the line and
// byte column of the first problem in the file. An input without any row
// is an error wrapping ErrNoData.
package dataio

import (
	"errors"
	"fmt"
	"runtime"

	"github.com/acfcd/acfcd/io/internal/csr"
)

// Dataset is a sparse matrix in CSR form with one label per row.
//
// Row i holds Index[RowPtr[i]:RowPtr[i+1]] (0-based feature numbers,
// strictly increasing) and the matching values. Exactly one of Value and
// Value32 is non-nil (Value32 when loaded with Options.Float32).
type Dataset struct {
	Rows     int
	Features int // number of columns: 1 + the largest 0-based index seen
	RowPtr   []int64
	Index    []int32
	Value    []float64
	Value32  []float32
	Label    []float64 // row i's class or target (a model's Labels are instead its distinct classes)
	QID      []int64   // per row, only with Options.KeepQID and when the input had qid: tokens

	Source     string // what was read: a path, "stdin", ...
	InputBytes int64  // bytes of text parsed (decompressed), or the cache file's size

	// MaxFeatures is the Options.MaxFeatures the dataset was read with (0:
	// none). It records that the caller declared up to that many features
	// intended: the solvers then allocate dense per-feature arrays of that
	// size without the memory guard they apply to feature counts far beyond
	// what the data holds (see the solver package).
	MaxFeatures int

	release func() error              // unmaps a cache file the slices point into
	locate  func(row int) (int, bool) // row → 1-based line in Source, when it can be found
	keep    *keptCSC                  // KeepCSC's, nil unless asked for
	closed  bool                      // Close released the mapped cache the slices were in
	first   int                       // rows of Source before row 0 (a Scan block)
}

// Check returns an error when d breaks what a Dataset promises (see the
// type): slice lengths that match Rows, row offsets from 0 that never
// decrease and end at the length of Index and of the values, indices
// strictly increasing within a row and below Features,
// finite values and labels. Load and Read return datasets that pass; the
// solvers and Evaluate check what a program built itself. Rows are
// numbered from 0 in the message, as in the slices, or located by Where
// when d has a Source.
func (d *Dataset) Check() error {
	if d == nil {
		return errors.New("malformed dataset: nil")
	}
	if d.closed {
		return fmt.Errorf("%s: the dataset was closed: Close released the memory-mapped cache that held it", d.Source)
	}
	m := matrixOf(d)
	if n := len(d.RowPtr); n == d.Rows+1 && d.Rows >= 0 {
		nnz := d.RowPtr[d.Rows]
		if nnz == 0 && d.Value == nil && d.Value32 == nil {
			m.Value = []float64{} // no non-zeros may come without values
		}
	}
	err := csr.Check(m, runtime.GOMAXPROCS(0))
	var re *csr.RowError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &re) && d.Source != "":
		return fmt.Errorf("%s: %s", d.Where(re.Row), re.Msg) // the file's line where it can be found
	}
	return fmt.Errorf("malformed dataset: %w", err)
}

// NNZ is the number of stored non-zeros.
func (d *Dataset) NNZ() int64 { return d.RowPtr[d.Rows] }

// Row returns the indices and float64 values of row i, d's own slices
// (capped, so that an append copies). It panics, naming the reason, if i
// is not in [0, Rows) or the dataset holds float32 values (read with
// Options.Float32); RowTo reads either kind.
func (d *Dataset) Row(i int) ([]int32, []float64) {
	if uint(i) >= uint(d.Rows) || d.Value == nil && d.Value32 != nil {
		d.rowPanic("Row", i)
	}
	a, b := d.RowPtr[i], d.RowPtr[i+1]
	return d.Index[a:b:b], d.Value[a:b:b]
}

// RowTo returns the indices and values of row i as float64, for float64
// and float32 datasets alike: float64 values are d's own slice, float32
// ones are converted (exactly) into buf, which is grown only if it is too
// short, so that a loop passing back what RowTo returned does not
// allocate per row. Treat the values as read-only. It panics, naming i,
// if i is not in [0, Rows).
func (d *Dataset) RowTo(i int, buf []float64) ([]int32, []float64) {
	if uint(i) >= uint(d.Rows) {
		d.rowPanic("RowTo", i)
	}
	a, b := d.RowPtr[i], d.RowPtr[i+1]
	if d.Value32 == nil {
		return d.Index[a:b:b], d.Value[a:b:b]
	}
	buf = buf[:0]
	for _, v := range d.Value32[a:b] {
		buf = append(buf, float64(v))
	}
	return d.Index[a:b:b], buf
}

// rowPanic is the panic of Row and RowTo: a bad row number is the
// caller's bug, as an index out of range of a slice is.
func (d *Dataset) rowPanic(method string, i int) {
	if uint(i) >= uint(d.Rows) {
		panic(fmt.Sprintf("dataio: Dataset.%s: row %d out of range [0, %d)", method, i, d.Rows))
	}
	panic(fmt.Sprintf("dataio: Dataset.%s: row %d: the dataset holds float32 values; use RowTo", method, i))
}

// Close releases a memory-mapped cache. The slices must not be used after:
// Close sets them to nil, and the solvers, Evaluate and Check then say
// that the dataset was closed. It is safe to call on any dataset, more
// than once; one that maps nothing stays usable.
func (d *Dataset) Close() error {
	if d.release == nil {
		return nil
	}
	f := d.release
	d.release = nil
	d.closed = true
	d.RowPtr, d.Index, d.Value, d.Value32, d.Label, d.QID = nil, nil, nil, nil, nil, nil
	return f()
}

// Options control how data is read. The zero value reads 1-based libsvm
// text, float64 values, and drops qid: tokens.
type Options struct {
	ZeroBased bool   // indices in the file start at 0 instead of 1
	Float32   bool   // store values as float32 (half the value memory)
	KeepQID   bool   // keep qid:N tokens in Dataset.QID instead of ignoring them
	Threads   int    // parser goroutines; 0 means runtime.GOMAXPROCS(0)
	Format    string // "" (detect), "libsvm", "ndjson" or "cache"
	// MaxFeatures caps the feature count a file may declare by its indices;
	// 0 means the int32 limit. A larger index is an error, not an allocation.
	MaxFeatures int
	// MaxLine is the longest line, in bytes, a stream (standard input, a
	// pipe, a compressed file) may have; 0 or less means DefaultMaxLine. A longer
	// line, or a NUL byte, stops the stream with an error naming the line.
	MaxLine int
	// NoBlankLines makes blank and comment-only lines of text input errors
	// (FILE:LINE), so that row i is line i+1: predictions written one per
	// line then line up with the input's lines.
	NoBlankLines bool
	// MaxRatio is the most a gzip or bzip2 input may expand, as a multiple
	// of its compressed size (of the bytes read so far, for a stream of
	// unknown size); 0 or less means DefaultMaxRatio. Text beyond it (and
	// beyond 1 MiB) stops the input with an error naming the file, so that
	// a small compressed file cannot fill memory.
	MaxRatio int
}

// OptionError is an Options field no read can honour. Message names the
// option in the caller's words, as Hint.Render does.
type OptionError struct {
	Option, Value, Reason string
}

func (e *OptionError) Error() string { return e.Message(GoName) }

// Message is the error's text with its option named by name.
func (e *OptionError) Message(name func(option, value string) string) string {
	return name(e.Option, e.Value) + ": " + e.Reason
}

// ParseError locates a problem in an input. Where an option of Options
// decides it (a cap, a limit, the base of the indices), Hint names that
// option, so that the message tells how to read the input after all.
type ParseError struct {
	File   string
	Line   int // 1-based; 0: the input as a whole
	Column int // 1-based byte column; 0 when it does not apply
	Msg    string
	Hint   Hint
}

// Hint names the option of Options behind a refusal (see ParseError).
type Hint = csr.Hint

// GoName names an option as a program sets it, for Hint.Render.
func GoName(option, value string) string { return csr.GoName(option, value) }

func (e *ParseError) Error() string { return e.Message(GoName) }

// LimitError is an input stopped at a limit of Options, which Hint names
// (the reader's error wraps it with the input's name).
type LimitError struct {
	Msg  string
	Hint Hint
}

func (e *LimitError) Error() string { return e.Message(GoName) }

// Message is the error's text with the option of its hint named by name.
func (e *LimitError) Message(name func(option, value string) string) string {
	return e.Msg + e.Hint.Render(name)
}

// Message is the error's text with the option of its hint named by name
// (acfcd train gives its flags).
func (e *ParseError) Message(name func(option, value string) string) string {
	return (*csr.ParseError)(e).Message(name)
}
