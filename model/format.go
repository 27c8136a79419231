package model

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"

	"github.com/acfcd/acfcd/internal/atomicfile"
)

// liblinear's text model format, as written by save_model in linear.cpp
// (identical from liblinear 2.21 to 2.50; 2.20 and older wrote %.16g):
//
//	solver_type L2R_L2LOSS_SVC_DUAL     name from solver_type_table
//	nr_class 2                          "%d"; 2 for regression and one-class
//	label 1 -1                          " %d" per class; only with labels
//	nr_feature 5                        "%d"
//	bias -1                             "%.17g"
//	rho 0.5                             "%.17g"; ONECLASS_SVM only (≥ 2.40)
//	w
//	0.25 \n                             per row: NrW × ("%.17g" + " "), "\n"
//
// with nr_feature rows, plus one for the bias weights when bias ≥ 0.
// Go's strconv 'g' format with precision 17 prints finite doubles exactly
// as C's %.17g (same digits, trailing zeros dropped, exponent switch at
// 1e-5 and 1e17, two-digit exponents), so the files are byte-identical.

// Limits checked before anything is allocated for a model file.
const (
	maxClasses = 1_000_000     // nr_class
	maxFeature = math.MaxInt32 // nr_feature: liblinear reads it with %d
)

// check reports why m cannot be written as a liblinear model file.
// Check returns an error when m cannot be used, saved or predicted with:
// an unknown solver type, class labels that are not int32 integers or
// repeat, weight counts that do not match the features and classes,
// non-finite weights, bias or rho. Train and LoadModel return models that
// pass; Evaluate checks what a program built itself.
func (m *Model) Check() error {
	if m == nil {
		return errors.New("nil model")
	}
	return m.check()
}

func (m *Model) check() error {
	s := lookup(m.SolverType)
	if s == nil {
		return fmt.Errorf("unknown solver type %q", m.SolverType)
	}
	if m.NumFeature < 0 || m.NumFeature > maxFeature {
		return fmt.Errorf("number of features %d out of range [0, %d]", m.NumFeature, maxFeature)
	}
	if math.IsNaN(m.Bias) || math.IsInf(m.Bias, 0) {
		return fmt.Errorf("bias %v is not finite", m.Bias)
	}
	if math.IsNaN(m.Rho) || math.IsInf(m.Rho, 0) || (m.Rho != 0 && s.Kind != OneClass) {
		return fmt.Errorf("rho %v: must be finite, and 0 unless the solver type is ONECLASS_SVM", m.Rho)
	}
	nc := 2
	if s.Kind == Classifier {
		nc = len(m.Labels)
		if nc < 1 || nc > maxClasses {
			return fmt.Errorf("%d class labels, want 1 to %d for %s", nc, maxClasses, m.SolverType)
		}
		for _, l := range m.Labels {
			if l != math.Trunc(l) || l < math.MinInt32 || l > math.MaxInt32 {
				return fmt.Errorf("class label %v is not an integer in the int32 range (liblinear stores class labels as C ints)", l)
			}
		}
		if l, dup := duplicateLabel(m.Labels); dup {
			return fmt.Errorf("duplicate class label %v", l)
		}
	} else if len(m.Labels) != 0 {
		return fmt.Errorf("%s model with %d class labels: regression and one-class models have none", m.SolverType, len(m.Labels))
	}
	if want := s.WeightVectors(nc); m.NrW != want {
		return fmt.Errorf("%d weight vectors, want %d for %s with %d classes", m.NrW, want, m.SolverType, nc)
	}
	rows := m.rows()
	if len(m.W) != rows*m.NrW {
		return fmt.Errorf("%d weights, want %d (%d rows × %d)", len(m.W), rows*m.NrW, rows, m.NrW)
	}
	for k, v := range m.W {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("weight %v of feature %d, vector %d is not finite", v, k/m.NrW+1, k%m.NrW)
		}
	}
	return nil
}

// rows is the number of weight rows: features plus the bias row.
func (m *Model) rows() int {
	if m.Bias >= 0 {
		return m.NumFeature + 1
	}
	return m.NumFeature
}

// Save writes m to path in liblinear's text model format, byte for byte as
// liblinear 2.3.0 and 2.50 write the same model. A regular file is
// replaced atomically: readers see the old or the new content, never a
// part (a temporary file in the same folder is renamed over it). Partial
// is not recorded. Save fails, before touching the file, if m cannot be
// represented: unknown solver type, non-integer class labels, non-finite
// weights, or inconsistent sizes. Files of acfcd's own solver types
// (MCSVM_WW, LASSO) are read by LoadModel only; liblinear refuses them.
func (m *Model) Save(path string) error {
	return m.SaveContext(context.Background(), path)
}

// SaveContext is Save that stops waiting when ctx is done: a named pipe at
// path is written only once a process opens it for reading, and then only
// as fast as that process reads.
func (m *Model) SaveContext(ctx context.Context, path string) error {
	if err := m.Check(); err != nil {
		return fmt.Errorf("save model %s: %w", path, err)
	}
	return atomicfile.WriteContext(ctx, path, m.write)
}

// WriteTo writes m in liblinear's text model format to w (see Save) and
// returns the number of bytes written.
func (m *Model) WriteTo(w io.Writer) (int64, error) {
	if err := m.Check(); err != nil {
		return 0, fmt.Errorf("write model: %w", err)
	}
	cw := &countingWriter{w: w}
	bw := bufio.NewWriterSize(cw, 64<<10)
	err := m.write(bw)
	if err == nil {
		err = bw.Flush()
	}
	return cw.n, err
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// write emits the file; m has passed check.
func (m *Model) write(w *bufio.Writer) error {
	s := lookup(m.SolverType)
	b := w.AvailableBuffer()
	b = append(b, "solver_type "...)
	b = append(b, m.SolverType...)
	b = append(b, "\nnr_class "...)
	if s.Kind == Classifier {
		b = strconv.AppendInt(b, int64(len(m.Labels)), 10)
		b = append(b, "\nlabel"...)
		for _, l := range m.Labels {
			if len(b) > 4096 {
				w.Write(b)
				b = w.AvailableBuffer()
			}
			b = append(b, ' ')
			b = strconv.AppendInt(b, int64(l), 10)
		}
	} else {
		b = append(b, '2')
	}
	b = append(b, "\nnr_feature "...)
	b = strconv.AppendInt(b, int64(m.NumFeature), 10)
	b = append(b, "\nbias "...)
	b = appendG17(b, m.Bias)
	if s.Kind == OneClass {
		b = append(b, "\nrho "...)
		b = appendG17(b, m.Rho)
	}
	b = append(b, "\nw\n"...)
	w.Write(b)
	nrw := m.NrW
	for off := 0; off < len(m.W); off += nrw {
		b = w.AvailableBuffer()
		for _, v := range m.W[off : off+nrw] {
			if len(b) > 4096 {
				w.Write(b)
				b = w.AvailableBuffer()
			}
			b = appendG17(b, v)
			b = append(b, ' ')
		}
		b = append(b, '\n')
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	_, err := w.Write(nil) // reports an earlier write error, if any
	return err
}

// appendG17 appends v as C's printf("%.17g", v) does for finite v.
func appendG17(b []byte, v float64) []byte {
	return strconv.AppendFloat(b, v, 'g', 17, 64)
}

// LoadModel reads a liblinear text model file written by liblinear (2.3.0,
// 2.50, or older versions with %.16g numbers) or by Save. Errors name the
// file and line ("FILE:LINE: what is wrong"); malformed input never
// panics, and sizes are checked before anything is allocated for them.
func LoadModel(path string) (*Model, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return nil, fmt.Errorf("%s: is a directory, not a model file", path)
	}
	return ReadModel(bufio.NewReaderSize(f, 256<<10), path)
}

// ReadModel reads a liblinear text model from r; name is used in error
// messages as the file name. See LoadModel.
//
// The header lines (solver_type, nr_class, label, nr_feature, bias, rho)
// may come in any order, as liblinear accepts, except that label needs
// nr_class before it; each may appear once. The header ends with a "w"
// line, followed by one line of NrW weights per feature (and one for the
// bias when bias ≥ 0). Weights must be finite. Blank lines are allowed
// in the header and after the last row; Windows line ends are accepted.
func ReadModel(r io.Reader, name string) (*Model, error) {
	if r == nil {
		return nil, fmt.Errorf("%s: nil reader", name)
	}
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(r, 256<<10)
	}
	p := parser{lr: lineReader{r: br}, name: name}
	return p.parse()
}

// parser holds the state of ReadModel.
type parser struct {
	lr   lineReader
	name string
}

func (p *parser) errf(format string, args ...any) error {
	return fmt.Errorf("%s:%d: %s", p.name, p.lr.line, fmt.Sprintf(format, args...))
}

// header field flags
const (
	mhSolver = 1 << iota
	mhNrClass
	mhLabel
	mhNrFeature
	mhBias
	mhRho
)

var headerNames = map[string]int{
	"solver_type": mhSolver, "nr_class": mhNrClass, "label": mhLabel,
	"nr_feature": mhNrFeature, "bias": mhBias, "rho": mhRho,
}

func (p *parser) parse() (*Model, error) {
	m := &Model{}
	var (
		seen    int
		solver  *SolverType
		nrClass int
		labels  []float64
	)
	for {
		line, err := p.lr.next()
		if err == io.EOF {
			return nil, p.errf("unexpected end of file in the header (no \"w\" line)")
		}
		if err != nil {
			return nil, p.errf("%v", err)
		}
		toks := fields(line, nil, 3)
		if len(toks) == 0 {
			continue
		}
		key := string(toks[0])
		if key == "w" {
			if len(toks) > 1 {
				return nil, p.errf("unexpected text after \"w\"")
			}
			break
		}
		flag, ok := headerNames[key]
		if !ok {
			return nil, p.errf("unknown header field %s", quote(toks[0]))
		}
		if seen&flag != 0 {
			return nil, p.errf("duplicate %s line", key)
		}
		seen |= flag
		if flag == mhLabel {
			if seen&mhNrClass == 0 {
				return nil, p.errf("label line before the nr_class line")
			}
			labels = make([]float64, 0, min(nrClass, 1024))
			for tok := range tokens(afterKey(line)) {
				if len(labels) == nrClass {
					return nil, p.errf("more than nr_class = %d labels", nrClass)
				}
				v, err := strconv.ParseInt(string(tok), 10, 32)
				if err != nil {
					return nil, p.errf("label %s is not a 32-bit integer", quote(tok))
				}
				labels = append(labels, float64(v))
			}
			if len(labels) != nrClass {
				return nil, p.errf("%d labels, nr_class is %d", len(labels), nrClass)
			}
			if l, dup := duplicateLabel(labels); dup {
				return nil, p.errf("duplicate label %v", l)
			}
			continue
		}
		if len(toks) != 2 {
			return nil, p.errf("%s needs exactly one value", key)
		}
		val := toks[1]
		switch flag {
		case mhSolver:
			solver = lookup(string(val))
			if solver == nil {
				return nil, p.errf("unknown solver_type %s", quote(val))
			}
			m.SolverType = solver.Name
		case mhNrClass:
			v, err := strconv.ParseInt(string(val), 10, 64)
			if err != nil && !errors.Is(err, strconv.ErrRange) {
				return nil, p.errf("nr_class %s is not an integer", quote(val))
			}
			if err != nil || v < 1 || v > maxClasses {
				return nil, p.errf("nr_class %s out of range [1, %d]", quote(val), maxClasses)
			}
			nrClass = int(v)
		case mhNrFeature:
			v, err := strconv.ParseInt(string(val), 10, 64)
			if err != nil && !errors.Is(err, strconv.ErrRange) {
				return nil, p.errf("nr_feature %s is not an integer", quote(val))
			}
			if err != nil || v < 0 || v > maxFeature {
				return nil, p.errf("nr_feature %s out of range [0, %d]", quote(val), maxFeature)
			}
			m.NumFeature = int(v)
		case mhBias, mhRho:
			v, err := parseFinite(val)
			if err != nil {
				return nil, p.errf("%s %s: %v", key, quote(val), err)
			}
			if flag == mhBias {
				m.Bias = v
			} else {
				m.Rho = v
			}
		}
	}

	// The "w" line: the header must be complete and consistent.
	for _, f := range []struct {
		flag int
		name string
	}{{mhSolver, "solver_type"}, {mhNrClass, "nr_class"}, {mhNrFeature, "nr_feature"}, {mhBias, "bias"}} {
		if seen&f.flag == 0 {
			return nil, p.errf("missing %s line before \"w\"", f.name)
		}
	}
	switch solver.Kind {
	case Classifier:
		if seen&mhLabel == 0 {
			return nil, p.errf("missing label line before \"w\" (required for %s)", solver.Name)
		}
		m.Labels = labels
	default:
		if nrClass != 2 {
			return nil, p.errf("nr_class is %d, want 2 for %s", nrClass, solver.Name)
		}
		if seen&mhLabel != 0 {
			return nil, p.errf("label line not allowed for %s", solver.Name)
		}
	}
	if solver.Kind == OneClass && seen&mhRho == 0 {
		return nil, p.errf("missing rho line before \"w\" (required for ONECLASS_SVM)")
	}
	if solver.Kind != OneClass && seen&mhRho != 0 {
		return nil, p.errf("rho line not allowed for %s", solver.Name)
	}
	m.NrW = solver.WeightVectors(nrClass)
	rows := m.rows()
	if total := uint64(rows) * uint64(m.NrW); total > uint64(math.MaxInt) {
		return nil, p.errf("%d × %d weights do not fit in memory", rows, m.NrW)
	}

	// The weights. W grows as rows arrive, so a header claiming a huge
	// model costs nothing unless the rows are really there.
	m.W = make([]float64, 0, min(rows*m.NrW, 1<<16))
	for row := 0; row < rows; row++ {
		line, err := p.lr.next()
		if err == io.EOF {
			return nil, p.errf("unexpected end of file: %d of %d weight rows", row, rows)
		}
		if err != nil {
			return nil, p.errf("%v", err)
		}
		k := 0
		for tok := range tokens(line) {
			if k == m.NrW {
				k++
				break
			}
			v, err := parseFinite(tok)
			if err != nil {
				return nil, p.errf("weight %s: %v", quote(tok), err)
			}
			m.W = append(m.W, v)
			k++
		}
		if k != m.NrW {
			more := ""
			if k > m.NrW {
				more = "more than "
			}
			return nil, p.errf("weight row %d has %s%d values, want %d", row+1, more, min(k, m.NrW), m.NrW)
		}
	}
	for {
		line, err := p.lr.next()
		if err == io.EOF {
			return m, nil
		}
		if err != nil {
			return nil, p.errf("%v", err)
		}
		if len(fields(line, nil, 1)) != 0 {
			return nil, p.errf("unexpected text after the last weight row (%d rows expected)", rows)
		}
	}
}

// duplicateLabel returns a label that occurs twice in labels, if any.
func duplicateLabel(labels []float64) (float64, bool) {
	if len(labels) <= 16 {
		for i, l := range labels {
			if slices.Contains(labels[:i], l) {
				return l, true
			}
		}
		return 0, false
	}
	s := slices.Clone(labels)
	slices.Sort(s)
	for i := 1; i < len(s); i++ {
		if s[i] == s[i-1] {
			return s[i], true
		}
	}
	return 0, false
}

// parseFinite parses a C-style floating-point number and rejects NaN and
// infinities.
func parseFinite(tok []byte) (float64, error) {
	v, err := strconv.ParseFloat(string(tok), 64)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) {
			return 0, errors.New("out of range")
		}
		return 0, errors.New("not a number")
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, errors.New("not finite")
	}
	return v, nil
}

// quote quotes a token for an error message, shortened if long.
func quote(tok []byte) string {
	if len(tok) > 40 {
		return strconv.Quote(string(tok[:40])) + "…"
	}
	return strconv.Quote(string(tok))
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'
}

// fields appends up to max whitespace-separated tokens of line to dst.
func fields(line []byte, dst [][]byte, max int) [][]byte {
	for tok := range tokens(line) {
		if len(dst) == max {
			break
		}
		dst = append(dst, tok)
	}
	return dst
}

// afterKey returns line without its first token.
func afterKey(line []byte) []byte {
	line = bytes.TrimLeft(line, " \t\r\v\f")
	for i, c := range line {
		if isSpace(c) {
			return line[i:]
		}
	}
	return nil
}

// tokens iterates over the whitespace-separated tokens of line.
func tokens(line []byte) func(yield func([]byte) bool) {
	return func(yield func([]byte) bool) {
		i := 0
		for i < len(line) {
			for i < len(line) && isSpace(line[i]) {
				i++
			}
			j := i
			for j < len(line) && !isSpace(line[j]) {
				j++
			}
			if j > i && !yield(line[i:j]) {
				return
			}
			i = j
		}
	}
}

// lineReader returns the lines of a file without their line end, however
// long, counting them.
type lineReader struct {
	r    *bufio.Reader
	line int    // number of the line last returned
	long []byte // holds a line longer than r's buffer
}

// next returns the next line, valid until the next call, or io.EOF.
func (l *lineReader) next() ([]byte, error) {
	b, err := l.r.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		l.long = append(l.long[:0], b...)
		for err == bufio.ErrBufferFull {
			b, err = l.r.ReadSlice('\n')
			l.long = append(l.long, b...)
		}
		b = l.long
	}
	if err != nil && err != io.EOF {
		l.line++
		return nil, err
	}
	if err == io.EOF && len(b) == 0 {
		l.line++
		return nil, io.EOF
	}
	l.line++
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
	}
	return b, nil
}
