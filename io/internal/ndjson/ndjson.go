// Package ndjson reads NDJSON input for package io: one training example
// per line.
//
//	{"label": 1, "features": {"3": 0.5, "17": 1}}
//	{"label": -1, "features": {"17": 2.5e-3, "4": -1}, "qid": 7}
//
// Schema:
//
//   - Every non-blank line is one JSON object (RFC 8259), and an object may
//     not span lines. Blank lines (only spaces, tabs, CR) are skipped; a
//     CR before the newline is fine, and so is a UTF-8 byte order mark at
//     the start of the file.
//   - "label" (required): a JSON number.
//   - "features" (optional; missing means an empty row): an object whose
//     keys are feature numbers written as decimal digits, 1-based like
//     libsvm ("1" is the first feature), or 0-based with Options.ZeroBased,
//     and whose values are JSON numbers. Keys may come in any order; each
//     row is sorted by index. The same feature twice in a row is an error.
//   - "qid" (optional): a JSON integer (no fraction or exponent) that fits
//     in int64. With Options.KeepQID, the dataset's QID holds it for every
//     row when any row has one, and 0 for rows without.
//   - Any other key is an error, as is any key given twice.
//
// Numbers follow JSON's grammar (no NaN, Infinity, hex, leading '+' or
// leading zeros). A number whose magnitude overflows float64 is an error;
// one that underflows becomes 0. Negative zero is stored as 0. With
// Options.Float32 a value is parsed as float64 and then rounded to float32;
// values beyond float32's range are errors. Indices beyond the int32 range
// or beyond Options.MaxFeatures are errors. The feature count is 1 + the
// largest 0-based index. Errors are *csr.ParseError with file:line:column
// (column 0, i.e. file:line, for a duplicate feature found after sorting).
//
// Two parsers implement this and produce bit-identical datasets: a
// hand-written scanner (pure Go, every platform), and on amd64 CPUs with
// AVX2 and CLMUL github.com/minio/simdjson-go, fed chunks of a few MB in
// parallel. simdjson reports no positions, so when it rejects a chunk, or
// the chunk breaks a schema rule, that chunk is parsed again by the
// scanner, which reports the error (for any input both paths give the same
// error). Input is first cut into chunks at line boundaries that are parsed
// in parallel (Options.Threads) and then concatenated.
package ndjson

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/acfcd/acfcd/io/internal/csr"
)

// Which NDJSON parser to use; tests set ndjsonPath.
const (
	ndjsonAuto   = iota // simdjson when the CPU supports it, else the scanner
	ndjsonScalar        // always the scanner
	ndjsonSIMD          // always simdjson (falls back per chunk like auto)
)

var ndjsonPath = ndjsonAuto

// ndjsonFallbacks counts chunks the simdjson path handed to the scanner.
var ndjsonFallbacks atomic.Int64

// ndjsonChunkBytes bounds a chunk's size; tests lower it.
var ndjsonChunkBytes = 4 << 20

// ndjsonUseSIMD reports whether Parse will use simdjson.
func ndjsonUseSIMD() bool {
	switch ndjsonPath {
	case ndjsonScalar:
		return false
	}
	return simdAvailable()
}

// Parse parses NDJSON examples held in data (see the schema above), named
// name in messages. Errors are *csr.ParseError, or *csr.NoDataError for an
// input without examples.
func Parse(name string, data []byte, opt csr.Options) (*csr.Matrix, error) {
	if len(data) == 0 {
		return nil, &csr.NoDataError{Name: name, What: "empty file"}
	}
	inBytes := int64(len(data))
	// A UTF-8 byte order mark may precede the first line (RFC 8259 lets
	// parsers ignore it); columns on line 1 still count its 3 bytes.
	bom := 0
	if bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) {
		data, bom = data[3:], 3
	}
	threads := opt.Threads
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	chunks := ndjsonSplit(data, threads)
	res := make([]ndChunk, len(chunks))
	useSIMD := ndjsonUseSIMD()

	// Chunks after the first failing one are skipped; the failing chunk
	// with the lowest number holds the first error in the file.
	var next, firstBad atomic.Int64
	firstBad.Store(int64(len(chunks)))
	work := func() {
		var simd simdChunkParser
		sc := &ndScanner{}
		for {
			k := next.Add(1) - 1
			if k >= int64(len(chunks)) {
				return
			}
			if k > firstBad.Load() {
				continue
			}
			c := &res[k]
			b := newNDBuilder(c, opt, chunks[k])
			ok := false
			if useSIMD {
				ok = simd.parse(chunks[k], &b)
				if !ok {
					ndjsonFallbacks.Add(1)
					b = newNDBuilder(c, opt, chunks[k])
				}
			}
			if !ok {
				sc.b = &b
				if perr := sc.parse(chunks[k]); perr != nil {
					c.err = perr
					for {
						cur := firstBad.Load()
						if k >= cur || firstBad.CompareAndSwap(cur, k) {
							break
						}
					}
				}
				sc.b = nil
			}
		}
	}
	w := min(threads, len(chunks))
	var wg sync.WaitGroup
	for i := 1; i < w; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); work() }()
	}
	work()
	wg.Wait()

	line := 1
	for k := range res {
		if e := res[k].err; e != nil {
			e.File = name
			e.Line += line - 1
			if e.Line == 1 && e.Column > 0 {
				e.Column += bom
			}
			return nil, e
		}
		line += bytes.Count(chunks[k], []byte{'\n'})
	}
	return ndjsonMerge(name, inBytes, res, opt, threads)
}

// ndjsonSplit cuts data into chunks that end just after a newline (the
// last may end without one): enough for every thread to get several, none
// bigger than about ndjsonChunkBytes, none tiny.
func ndjsonSplit(data []byte, threads int) [][]byte {
	size := len(data) / (4 * threads)
	size = max(min(size, ndjsonChunkBytes), min(64<<10, ndjsonChunkBytes), 1)
	var chunks [][]byte
	for len(data) > 0 {
		if len(data) <= size {
			chunks = append(chunks, data)
			break
		}
		e := bytes.IndexByte(data[size:], '\n')
		if e < 0 {
			chunks = append(chunks, data)
			break
		}
		chunks = append(chunks, data[:size+e+1])
		data = data[size+e+1:]
	}
	return chunks
}

// ndChunk is what one chunk parses into.
type ndChunk struct {
	rowPtr []int64 // rows+1 entries, from 0
	index  []int32
	val    []float64 // without Options.Float32
	val32  []float32 // with Options.Float32
	label  []float64
	qid    []int64 // one per row with Options.KeepQID (0 when absent)
	nQID   int     // rows that had a "qid"
	maxIdx int64   // largest 0-based index, -1 if none
	err    *csr.ParseError
}

// ndjsonMerge concatenates the chunks into one Matrix.
func ndjsonMerge(name string, inBytes int64, res []ndChunk, opt csr.Options, threads int) (*csr.Matrix, error) {
	var rows, nnz int64
	nQID, maxIdx := 0, int64(-1)
	for k := range res {
		rows += int64(len(res[k].label))
		nnz += int64(len(res[k].index))
		nQID += res[k].nQID
		maxIdx = max(maxIdx, res[k].maxIdx)
	}
	if rows == 0 {
		return nil, &csr.NoDataError{Name: name, What: "no examples, only blank lines"}
	}
	d := &csr.Matrix{Rows: int(rows), Features: int(maxIdx + 1), InputBytes: inBytes}
	if len(res) == 1 {
		c := &res[0]
		d.RowPtr, d.Index, d.Value, d.Value32, d.Label = c.rowPtr, c.index, c.val, c.val32, c.label
		if opt.KeepQID && nQID > 0 {
			d.QID = c.qid
		}
		return d, nil
	}
	d.RowPtr = make([]int64, rows+1)
	d.Index = make([]int32, nnz)
	if opt.Float32 {
		d.Value32 = make([]float32, nnz)
	} else {
		d.Value = make([]float64, nnz)
	}
	d.Label = make([]float64, rows)
	if opt.KeepQID && nQID > 0 {
		d.QID = make([]int64, rows)
	}
	var r0, z0 []int64
	var r, z int64
	for k := range res {
		r0, z0 = append(r0, r), append(z0, z)
		r += int64(len(res[k].label))
		z += int64(len(res[k].index))
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < min(threads, len(res)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				k := int(next.Add(1) - 1)
				if k >= len(res) {
					return
				}
				c, r, z := &res[k], r0[k], z0[k]
				for i, p := range c.rowPtr[1:] {
					d.RowPtr[r+int64(i)+1] = z + p
				}
				copy(d.Index[z:], c.index)
				if d.Value != nil {
					copy(d.Value[z:], c.val)
				} else {
					copy(d.Value32[z:], c.val32)
				}
				copy(d.Label[r:], c.label)
				if d.QID != nil {
					copy(d.QID[r:], c.qid)
				}
				*c = ndChunk{} // let the chunk's memory go
			}
		}()
	}
	wg.Wait()
	return d, nil
}

// ndBuilder appends rows to a chunk; both parsers go through it, so the
// schema's rules on indices, values and rows live in one place.
type ndBuilder struct {
	c         *ndChunk
	zeroBased bool
	f32       bool
	keepQID   bool
	maxIdx0   int64    // largest 0-based index accepted
	capByOpt  bool     // maxIdx0 comes from Options.MaxFeatures
	hint      csr.Hint // the option behind indexSlow's last message

	rowStart int   // where the current row starts in c.index
	prev     int32 // last index added to the row, -1 at its start
	sorted   bool  // the row's indices so far are strictly increasing
}

func newNDBuilder(c *ndChunk, opt csr.Options, chunk []byte) ndBuilder {
	*c = ndChunk{maxIdx: -1}
	// Capacities estimated from the first 64 KB (a ':' per key, so per
	// feature, and a newline per row); appends grow them when short.
	sample := chunk[:min(len(chunk), 64<<10)]
	scale := float64(len(chunk)) / float64(max(len(sample), 1))
	rows := int(float64(bytes.Count(sample, []byte{'\n'})+1)*scale*1.05) + 1
	nnz := int(float64(bytes.Count(sample, []byte{':'}))*scale*1.05) + 16
	c.rowPtr = make([]int64, 1, rows+1)
	c.label = make([]float64, 0, rows)
	c.index = make([]int32, 0, nnz)
	if opt.Float32 {
		c.val32 = make([]float32, 0, nnz)
	} else {
		c.val = make([]float64, 0, nnz)
	}
	b := ndBuilder{c: c, zeroBased: opt.ZeroBased, f32: opt.Float32, keepQID: opt.KeepQID, maxIdx0: csr.MaxFeatures - 1}
	if opt.MaxFeatures > 0 && int64(opt.MaxFeatures)-1 < b.maxIdx0 {
		b.maxIdx0, b.capByOpt = int64(opt.MaxFeatures)-1, true
	}
	b.startRow()
	return b
}

func (b *ndBuilder) startRow() {
	b.rowStart, b.prev, b.sorted = len(b.c.index), -1, true
}

// index converts a feature key to a 0-based index; msg says what is wrong.
func (b *ndBuilder) index(key []byte) (int32, string) {
	if len(key) > 0 && len(key) <= 9 { // no overflow possible
		var x int64
		for _, c := range key {
			d := c - '0'
			if d > 9 {
				return b.indexSlow(key)
			}
			x = x*10 + int64(d)
		}
		if !b.zeroBased {
			x--
		}
		if x >= 0 && x <= b.maxIdx0 {
			return int32(x), ""
		}
	}
	return b.indexSlow(key)
}

// indexSlow is index for keys that are long, malformed or out of range.
func (b *ndBuilder) indexSlow(key []byte) (int32, string) {
	if len(key) == 0 {
		return 0, `empty feature key ""`
	}
	var x uint64
	for _, c := range key {
		if c < '0' || c > '9' {
			return 0, fmt.Sprintf("feature key %s is not a feature number (decimal digits)", csr.Quote(key))
		}
		if x <= math.MaxInt64/10 {
			x = x*10 + uint64(c-'0')
		} else {
			x = math.MaxUint64 // too large; keep scanning for bad digits
		}
	}
	idx0 := int64(min(x, math.MaxInt64))
	if !b.zeroBased {
		if x == 0 {
			b.hint = csr.Hint{Option: "Options.ZeroBased", Text: "%s reads 0-based files"}
			return 0, "feature index 0 is not allowed: indices start at 1"
		}
		idx0--
	}
	if idx0 > b.maxIdx0 {
		if b.capByOpt {
			b.hint = csr.CapHint(idx0 + 1)
			return 0, fmt.Sprintf("feature index %s exceeds the cap of %d features", csr.Digits(bytes.TrimLeft(key, "0")), b.maxIdx0+1)
		}
		return 0, fmt.Sprintf("feature index %s is too large (at most %d features are supported)", csr.Digits(bytes.TrimLeft(key, "0")), csr.MaxFeatures)
	}
	return int32(idx0), ""
}

// Results of ndBuilder.add.
const (
	addOK = iota
	addDuplicate
	addFloat32Range
)

// add appends feature j with value v to the current row.
func (b *ndBuilder) add(j int32, v float64) int {
	if j <= b.prev {
		if j == b.prev {
			return addDuplicate
		}
		b.sorted = false
	}
	b.prev = j
	if v == 0 {
		v = 0 // no negative zero
	}
	c := b.c
	if b.f32 {
		f := float32(v)
		if math.IsInf(float64(f), 0) {
			return addFloat32Range
		}
		c.val32 = append(c.val32, f)
	} else {
		c.val = append(c.val, v)
	}
	c.index = append(c.index, j)
	return addOK
}

// endRow finishes the current row. For a row whose keys were out of order
// it sorts them; dup is then a duplicated 0-based index, or -1.
func (b *ndBuilder) endRow(label float64, qid int64, hasQID bool) (dup int64) {
	c := b.c
	if !b.sorted {
		row := pairSorter{idx: c.index[b.rowStart:]}
		if b.f32 {
			row.v32 = c.val32[b.rowStart:]
		} else {
			row.v64 = c.val[b.rowStart:]
		}
		sort.Sort(row)
		for k := 1; k < len(row.idx); k++ {
			if row.idx[k] == row.idx[k-1] {
				return int64(row.idx[k])
			}
		}
	}
	if n := len(c.index); n > b.rowStart {
		c.maxIdx = max(c.maxIdx, int64(c.index[n-1]))
	}
	if label == 0 {
		label = 0
	}
	c.label = append(c.label, label)
	c.rowPtr = append(c.rowPtr, int64(len(c.index)))
	if hasQID {
		c.nQID++
	}
	if b.keepQID {
		c.qid = append(c.qid, qid)
	}
	b.startRow()
	return -1
}

// pairSorter sorts a row's indices together with their values.
type pairSorter struct {
	idx []int32
	v64 []float64
	v32 []float32
}

func (p pairSorter) Len() int           { return len(p.idx) }
func (p pairSorter) Less(i, j int) bool { return p.idx[i] < p.idx[j] }
func (p pairSorter) Swap(i, j int) {
	p.idx[i], p.idx[j] = p.idx[j], p.idx[i]
	if p.v64 != nil {
		p.v64[i], p.v64[j] = p.v64[j], p.v64[i]
	} else {
		p.v32[i], p.v32[j] = p.v32[j], p.v32[i]
	}
}

// ndScanner is the pure-Go NDJSON parser: a strict JSON scanner for the
// one shape of object the schema allows.
type ndScanner struct {
	b      *ndBuilder
	d      []byte
	i      int // position
	ls     int // start of the current line
	line   int // 1-based, within the chunk
	keyBuf []byte
	err    *csr.ParseError
}

// errAt records an error at byte position pos of the current line.
func (s *ndScanner) errAt(pos int, format string, a ...any) bool {
	if s.err == nil {
		s.err = &csr.ParseError{Line: s.line, Column: pos - s.ls + 1, Msg: fmt.Sprintf(format, a...)}
	}
	return false
}

// peek is the byte at the position, or -1 at the end of the input.
func (s *ndScanner) peek() int {
	if s.i < len(s.d) {
		return int(s.d[s.i])
	}
	return -1
}

func (s *ndScanner) ws() {
	for s.i < len(s.d) {
		switch s.d[s.i] {
		case ' ', '\t', '\r':
			s.i++
		default:
			return
		}
	}
}

// parse parses a chunk that starts at a line start. Line numbers in the
// error are relative to the chunk.
func (s *ndScanner) parse(data []byte) *csr.ParseError {
	s.d, s.i, s.ls, s.line, s.err = data, 0, 0, 1, nil
	for s.i < len(s.d) {
		s.ls = s.i
		s.ws()
		switch s.peek() {
		case -1:
			return nil
		case '\n':
			s.i++
			s.line++
			continue
		}
		if !s.example() {
			return s.err
		}
		if s.i < len(s.d) { // at '\n'
			s.i++
			s.line++
		}
	}
	return nil
}

// unexpected describes the byte at the position for a message.
func (s *ndScanner) unexpected() string {
	switch c := s.peek(); {
	case c == -1:
		return "end of input"
	case c == '\n':
		return "end of line (an example must be on one line)"
	case c >= 0x20 && c < 0x7f:
		return fmt.Sprintf("%q", rune(c))
	default:
		return fmt.Sprintf("byte %#02x", c)
	}
}

// example parses one object; s.i is at its first byte.
func (s *ndScanner) example() bool {
	open := s.i
	switch s.peek() {
	case '{':
	case '[':
		return s.errAt(s.i, "an example must be a JSON object, not an array")
	default:
		return s.errAt(s.i, "expected '{' to start an example (one JSON object per line), found %s", s.unexpected())
	}
	s.i++
	var label float64
	var qid int64
	haveLabel, haveQID, haveFeatures := false, false, false
	s.ws()
	if s.peek() == '}' {
		s.i++
	} else {
		for {
			if s.peek() != '"' {
				return s.errAt(s.i, "expected a key in double quotes, found %s", s.unexpected())
			}
			kpos := s.i
			key, ok := s.str()
			if !ok {
				return false
			}
			s.ws()
			if s.peek() != ':' {
				return s.errAt(s.i, "expected ':' after key %s, found %s", csr.Quote(key), s.unexpected())
			}
			s.i++
			s.ws()
			switch string(key) {
			case "label":
				if haveLabel {
					return s.errAt(kpos, `duplicate key "label"`)
				}
				haveLabel = true
				vpos := s.i
				v, _, ok := s.number(`"label"`, nil)
				if !ok {
					return false
				}
				if math.IsInf(v, 0) {
					return s.errAt(vpos, "label %s is not a finite number", csr.Quote(s.d[vpos:s.i]))
				}
				label = v
			case "qid":
				if haveQID {
					return s.errAt(kpos, `duplicate key "qid"`)
				}
				haveQID = true
				vpos := s.i
				_, isInt, ok := s.number(`"qid"`, nil)
				if !ok {
					return false
				}
				tok := s.d[vpos:s.i]
				if !isInt {
					return s.errAt(vpos, "qid %s is not an integer", csr.Quote(tok))
				}
				q, err := strconv.ParseInt(csr.StringView(tok), 10, 64)
				if err != nil {
					return s.errAt(vpos, "qid %s is out of the int64 range", csr.Quote(tok))
				}
				qid = q
			case "features":
				if haveFeatures {
					return s.errAt(kpos, `duplicate key "features"`)
				}
				haveFeatures = true
				if !s.features() {
					return false
				}
			default:
				return s.errAt(kpos, `unknown key %s (an example has only "label", "features" and "qid")`, csr.Quote(key))
			}
			s.ws()
			c := s.peek()
			if c == ',' {
				s.i++
				s.ws()
				continue
			}
			if c == '}' {
				s.i++
				break
			}
			return s.errAt(s.i, "expected ',' or '}' in the example, found %s", s.unexpected())
		}
	}
	s.ws()
	if c := s.peek(); c != '\n' && c != -1 {
		return s.errAt(s.i, "unexpected %s after the example's closing '}' (one JSON object per line)", s.unexpected())
	}
	if !haveLabel {
		return s.errAt(open, `missing "label"`)
	}
	if dup := s.b.endRow(label, qid, haveQID); dup >= 0 {
		if !s.b.zeroBased {
			dup++
		}
		s.err = &csr.ParseError{Line: s.line, Msg: fmt.Sprintf("duplicate feature %d", dup)}
		return false
	}
	return true
}

// features parses the "features" object.
func (s *ndScanner) features() bool {
	if s.peek() != '{' {
		return s.errAt(s.i, `"features" must be an object of feature numbers to values, found %s`, s.unexpected())
	}
	s.i++
	s.ws()
	if s.peek() == '}' {
		s.i++
		return true
	}
	for {
		if s.peek() != '"' {
			return s.errAt(s.i, "expected a feature key in double quotes, found %s", s.unexpected())
		}
		kpos := s.i
		key, ok := s.str()
		if !ok {
			return false
		}
		j, msg := s.b.index(key)
		if msg != "" {
			hint := s.b.hint // of this message (indexSlow)
			s.b.hint = csr.Hint{}
			if s.err == nil {
				s.errAt(kpos, "%s", msg)
				s.err.Hint = hint
			}
			return false
		}
		s.ws()
		if s.peek() != ':' {
			return s.errAt(s.i, "expected ':' after feature key %s, found %s", csr.Quote(key), s.unexpected())
		}
		s.i++
		s.ws()
		vpos := s.i
		v, _, ok := s.number("the value of feature ", key)
		if !ok {
			return false
		}
		if math.IsInf(v, 0) {
			return s.errAt(vpos, "value %s for feature %s is not a finite number", csr.Quote(s.d[vpos:s.i]), key)
		}
		switch s.b.add(j, v) {
		case addDuplicate:
			return s.errAt(kpos, "duplicate feature %s", key)
		case addFloat32Range:
			return s.errAt(vpos, "value %s for feature %s is out of float32 range", csr.Quote(s.d[vpos:s.i]), key)
		}
		s.ws()
		switch s.peek() {
		case ',':
			s.i++
			s.ws()
		case '}':
			s.i++
			return true
		default:
			return s.errAt(s.i, `expected ',' or '}' in "features", found %s`, s.unexpected())
		}
	}
}

// str reads a JSON string at s.i (a '"'), returning its decoded bytes,
// which stay valid until the next call.
func (s *ndScanner) str() ([]byte, bool) {
	d := s.d
	st := s.i + 1
	for i := st; i < len(d); i++ {
		switch c := d[i]; {
		case c == '"':
			s.i = i + 1
			return d[st:i], true
		case c == '\\' || c < 0x20:
			return s.strSlow(st)
		}
	}
	return nil, s.errAt(s.i, "unterminated string")
}

// strSlow decodes a string with escapes, or reports what is wrong with it.
func (s *ndScanner) strSlow(st int) ([]byte, bool) {
	d := s.d
	out := s.keyBuf[:0]
	defer func() { s.keyBuf = out[:0] }()
	i := st
	for i < len(d) {
		c := d[i]
		switch {
		case c == '"':
			s.i = i + 1
			return out, true
		case c == '\n':
			return nil, s.errAt(st-1, "unterminated string (a string cannot span lines)")
		case c < 0x20:
			return nil, s.errAt(i, "control character %#02x in a string (must be escaped)", c)
		case c != '\\':
			out = append(out, c)
			i++
			continue
		}
		if i+1 >= len(d) {
			break
		}
		e := d[i+1]
		switch e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := hex4(d, i+2)
			if !ok {
				return nil, s.errAt(i, `invalid \u escape in a string`)
			}
			n := 6
			if r >= 0xd800 && r < 0xdc00 { // a surrogate pair
				if r2, ok := hex4(d, i+8); ok && d[i+6] == '\\' && d[i+7] == 'u' && r2 >= 0xdc00 && r2 < 0xe000 {
					r = 0x10000 + (r-0xd800)<<10 + (r2 - 0xdc00)
					n = 12
				}
			}
			out = utf8.AppendRune(out, r)
			i += n
			continue
		default:
			return nil, s.errAt(i, "invalid escape %s in a string", csr.Quote(d[i:min(i+2, len(d))]))
		}
		i += 2
	}
	return nil, s.errAt(st-1, "unterminated string")
}

// hex4 decodes four hex digits at d[i:].
func hex4(d []byte, i int) (rune, bool) {
	if i+4 > len(d) {
		return 0, false
	}
	var r rune
	for _, c := range d[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// ndPow10 holds the powers of ten that are exact in float64.
var ndPow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// number parses a JSON number at s.i. isInt reports an integer literal
// (no fraction, no exponent). what+key names the value for messages. An
// overflow returns ±Inf with ok true; the caller reports it.
//
// The value is the correctly rounded float64 of the decimal, as from
// strconv.ParseFloat: plain decimals with at most 19 significant digits
// whose mantissa is below 2^53 and whose exponent is at most 22 in
// magnitude are one exact IEEE multiplication or division (Clinger's fast
// path); the rest go to strconv.
func (s *ndScanner) number(what string, key []byte) (v float64, isInt bool, ok bool) {
	d := s.d
	st, i := s.i, s.i
	neg := i < len(d) && d[i] == '-'
	if neg {
		i++
	}
	if i >= len(d) || d[i]-'0' > 9 {
		if neg || (i < len(d) && isWordByte(d[i])) {
			return 0, false, s.errAt(st, "%s%s must be a number, found %s", what, key, csr.Quote(d[st:numTokenEnd(d, st)]))
		}
		return 0, false, s.errAt(st, "%s%s must be a number, found %s", what, key, s.unexpected())
	}
	// All digits go into m; with more than 19 of them m may have wrapped,
	// and strconv converts instead.
	var m uint64
	intStart := i
	for ; i < len(d) && d[i]-'0' <= 9; i++ {
		m = m*10 + uint64(d[i]-'0')
	}
	n := i - intStart
	if d[intStart] == '0' && n > 1 {
		return 0, false, s.errAt(st, "invalid number %s (leading zero)", csr.Quote(d[st:numTokenEnd(d, st)]))
	}
	e := 0
	isInt = true
	if i < len(d) && d[i] == '.' {
		isInt = false
		i++
		fracStart := i
		for ; i < len(d) && d[i]-'0' <= 9; i++ {
			m = m*10 + uint64(d[i]-'0')
		}
		if i == fracStart {
			return 0, false, s.errAt(st, "invalid number %s (digits must follow '.')", csr.Quote(d[st:numTokenEnd(d, st)]))
		}
		n += i - fracStart
		e = fracStart - i
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		isInt = false
		i++
		eneg := false
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			eneg = d[i] == '-'
			i++
		}
		if i >= len(d) || d[i]-'0' > 9 {
			return 0, false, s.errAt(st, "invalid number %s (digits must follow the exponent)", csr.Quote(d[st:numTokenEnd(d, st)]))
		}
		x := 0
		for ; i < len(d) && d[i]-'0' <= 9; i++ {
			if x < 100000 {
				x = x*10 + int(d[i]-'0')
			}
		}
		if eneg {
			x = -x
		}
		e += x
	}
	if i < len(d) && !isNumEnd(d[i]) {
		return 0, false, s.errAt(st, "invalid number %s", csr.Quote(d[st:numTokenEnd(d, st)]))
	}
	s.i = i
	switch {
	case n > 19:
		f, err := strconv.ParseFloat(csr.StringView(d[st:i]), 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return 0, false, s.errAt(st, "invalid number %s", csr.Quote(d[st:i]))
		}
		return f, isInt, true
	case m == 0:
		v = 0
	case isInt:
		v = float64(m) // correctly rounded, like ParseFloat
	case m < 1<<53 && e >= -22 && e <= 22:
		if e >= 0 {
			v = float64(m) * ndPow10[e]
		} else {
			v = float64(m) / ndPow10[-e]
		}
	default:
		f, err := strconv.ParseFloat(csr.StringView(d[st:i]), 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return 0, false, s.errAt(st, "invalid number %s", csr.Quote(d[st:i]))
		}
		return f, isInt, true
	}
	if neg {
		v = -v
	}
	return v, isInt, true
}

// isNumEnd reports whether c may follow a number in valid input.
func isNumEnd(c byte) bool {
	switch c {
	case ' ', '\t', '\r', '\n', ',', '}', ']', ':':
		return true
	}
	return false
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.'
}

// numTokenEnd is the end of the number-like token at d[i:], for messages.
func numTokenEnd(d []byte, i int) int {
	j := i
	for j < len(d) && !isNumEnd(d[j]) && d[j] != '"' && j-i < 40 {
		j++
	}
	if j == i && j < len(d) {
		j++
	}
	return j
}
