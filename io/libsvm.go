package dataio

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"runtime"
	"runtime/debug"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/acfcd/acfcd/io/internal/csr"
)

// The libsvm reader works in two passes over text split into chunks that
// end on line boundaries:
//
//  1. countChunk counts the lines, rows, non-zeros and qid: tokens of each
//     chunk with a cheap scan (newlines, and ':' outside comments);
//  2. the exact final arrays are allocated once, and parseChunk parses
//     each chunk straight into its own slice of them, knowing from the
//     prefix sums of pass 1 where its rows, non-zeros and lines start.
//
// Both passes run chunks in parallel. Nothing is allocated per row.

// minChunkBytes is the smallest chunk a mapped file is split into. Tests
// lower it to put chunk boundaries everywhere.
var minChunkBytes = 256 << 10

// chunksPerThread > 1 lets threads that finish early take over more work
// on a busy machine.
const chunksPerThread = 4

// isSpace and isDelim classify bytes: space, tab, CR, VT and FF separate
// tokens, and '#' (a comment) and '\n' also end one.
var isSpace, isDelim [256]bool

func init() {
	for _, c := range []byte(" \t\r\v\f") {
		isSpace[c] = true
		isDelim[c] = true
	}
	isDelim['#'] = true
	isDelim['\n'] = true
}

// chunkCount is what pass 1 learns about a chunk.
type chunkCount struct {
	lines int64 // newline characters
	rows  int64 // lines holding a label
	nnz   int64 // index:value tokens
	qids  int64 // qid: tokens
}

// countChunk is pass 1. For every line that valid input would turn into a
// row it counts the ':' before any '#', less one for a qid: token right
// after the label. On a line that pass 2 accepts, that is exactly its
// number of index:value tokens; any other line is an error in pass 2.
func countChunk(b []byte) (c chunkCount) {
	hashAt := -1 // position of the next '#' at or after the current line; len(b) if none
	for pos := 0; pos < len(b); {
		start := pos
		e := bytes.IndexByte(b[pos:], '\n')
		if e < 0 {
			pos = len(b)
		} else {
			pos += e + 1
			c.lines++
		}
		end := pos
		if e >= 0 {
			end--
		}
		i := start
		for i < end && isSpace[b[i]] {
			i++
		}
		if i == end || b[i] == '#' {
			continue
		}
		c.rows++
		if hashAt < i {
			if h := bytes.IndexByte(b[i:], '#'); h >= 0 {
				hashAt = i + h
			} else {
				hashAt = len(b)
			}
		}
		if hashAt < end {
			end = hashAt
		}
		n := bytes.Count(b[i:end], colon)
		if n == 0 {
			continue
		}
		for i < end && !isSpace[b[i]] { // the label
			i++
		}
		for i < end && isSpace[b[i]] {
			i++
		}
		if end-i >= 4 && string(b[i:i+4]) == "qid:" {
			n--
			c.qids++
		}
		c.nnz += int64(n)
	}
	return c
}

var colon = []byte{':'}

var utf8BOM = []byte("\xef\xbb\xbf")

// target is the set of final arrays pass 2 writes into.
type target struct {
	rowPtr []int64 // len rows+1
	label  []float64
	qid    []int64 // nil unless kept
	index  []int32
	val    []float64 // exactly one of val, val32 is non-nil
	val32  []float32
}

// chunkParser holds what one chunk needs to know in pass 2.
type chunkParser struct {
	name      string
	zeroBased bool
	maxIdx0   int64 // largest 0-based index accepted
	capByOpt  bool  // maxIdx0 comes from Options.MaxFeatures
	noBlank   bool  // Options.NoBlankLines

	line   int   // 1-based number of the chunk's first line
	row0   int64 // first row of the chunk
	rowEnd int64
	nnz0   int64 // first non-zero of the chunk
	nnzEnd int64

	maxSeen int64 // largest 0-based index seen, -1 if none
}

// parseChunk is pass 2: it parses text into t at the chunk's offsets.
// It walks the chunk byte by byte, with '\n' ending tokens and rows.
func (p *chunkParser) parseChunk(text []byte, t *target) error {
	p.maxSeen = -1
	base := int64(1)
	if p.zeroBased {
		base = 0
	}
	n := len(text)
	r, k := p.row0, p.nnz0
	index := t.index[:p.nnzEnd]
	val, val32 := t.val, t.val32
	if val != nil {
		val = val[:p.nnzEnd]
	} else {
		val32 = val32[:p.nnzEnd]
	}
	rowPtr := t.rowPtr[:p.rowEnd+1]
	maxIdx0 := p.maxIdx0
	maxSeen := int64(-1)
	i := 0
	for i < n {
		for i < n && isSpace[text[i]] {
			i++
		}
		if i == n {
			break
		}
		switch text[i] {
		case '\n': // blank line
			if p.noBlank {
				return p.errf(text, i, "blank line, but each line must hold an example here")
			}
			i++
			continue
		case '#': // comment line
			if p.noBlank {
				return p.errf(text, i, "comment line, but each line must hold an example here")
			}
			i = skipLine(text, i)
			continue
		}
		if r >= p.rowEnd {
			return p.internal(text, i, "more rows than counted")
		}

		// Label.
		lab, j, ok := scanFloat(text, i)
		if !ok || (j < n && !isDelim[text[j]]) {
			var err error
			j = tokenEnd(text, i)
			lab, err = parseFloatSlow(text[i:j])
			if err != nil && !isRange(err) {
				return p.errf(text, i, "invalid label %s", csr.Quote(text[i:j]))
			}
			if math.IsInf(lab, 0) || math.IsNaN(lab) {
				return p.errf(text, i, "label %s is not a finite number", csr.Quote(text[i:j]))
			}
		}
		t.label[r] = lab
		i = j
		for i < n && isSpace[text[i]] {
			i++
		}

		// Optional qid:N right after the label.
		if n-i >= 4 && string(text[i:i+4]) == "qid:" {
			st := i + 4
			j := tokenEnd(text, st)
			q, err := strconv.ParseInt(csr.StringView(text[st:j]), 10, 64)
			if err != nil {
				return p.errf(text, st, "invalid qid %s", csr.Quote(text[st:j]))
			}
			if t.qid != nil {
				t.qid[r] = q
			}
			i = j
		}

		// index:value pairs up to the end of the line.
		prev := int64(-1)
		for {
			for i < n && isSpace[text[i]] {
				i++
			}
			if i == n {
				break
			}
			if c := text[i]; c == '\n' || c == '#' {
				if c == '#' {
					i = skipLine(text, i)
				} else {
					i++
				}
				break
			}

			// Index: digits up to ':'. With 8 bytes in reach, up to 7
			// digits are converted at once (SWAR); else byte by byte.
			st := i
			var x uint64
			fast := false
			if i+8 <= n {
				w := binary.LittleEndian.Uint64(text[i:])
				dx, nd := leadingDigits(w)
				if nd-1 < 7 && byte(w>>(nd*8)) == ':' {
					x = digitsValue(dx, nd)
					i += int(nd)
					fast = true
				}
			}
			if !fast {
				for i < n {
					d := text[i] - '0'
					if d > 9 {
						break
					}
					x = x*10 + uint64(d)
					i++
				}
				if i == st || i-st > 10 || i == n || text[i] != ':' {
					var msg string
					x, i, msg = p.slowIndex(text, st)
					if msg != "" {
						return p.errf(text, st, "%s", msg)
					}
				}
			}
			idx0 := int64(x) - base
			if idx0 <= prev || idx0 > maxIdx0 {
				switch {
				case idx0 < 0:
					return p.hinted(p.errf(text, st, "feature index 0 is not allowed: indices start at 1"), zeroBased)
				case idx0 > maxIdx0:
					msg, hint := p.tooLarge(x, idx0)
					return p.hinted(p.errf(text, st, "%s", msg), hint)
				}
				return p.errf(text, st, "feature index %d is not greater than the previous index %d (indices must be strictly increasing within a row)", x, prev+base)
			}
			prev = idx0
			i++ // ':'

			// Value. Fast path for [-]digits[.digits] with at most 15
			// digits in all: the integer m = digits without the point is
			// below 10^15 < 2^53 and 10^frac is exact, so one division
			// rounds correctly, as strconv does. Anything else goes to
			// valueSlow.
			j := i
			neg := j < n && text[j] == '-'
			if neg {
				j++
			}
			ds := j
			var m uint64
			for j < n {
				d := text[j] - '0'
				if d > 9 {
					break
				}
				m = m*10 + uint64(d)
				j++
			}
			nd, frac := j-ds, 0
			if j < n && text[j] == '.' {
				j++
				fs := j
				for j < n {
					d := text[j] - '0'
					if d > 9 {
						break
					}
					m = m*10 + uint64(d)
					j++
				}
				frac = j - fs
				nd += frac
			}
			var v float64
			if nd > 0 && nd <= 15 && (j == n || isDelim[text[j]]) {
				v = float64(m)
				if frac > 0 {
					v /= pow10tab[frac]
				}
				if neg {
					v = -v
				}
			} else {
				var msg string
				v, j, msg = valueSlow(text, i, x)
				if msg != "" {
					if j == i {
						return p.errf(text, i, "missing value after %q", text[st:i])
					}
					return p.errf(text, i, "%s", msg)
				}
			}
			if k >= int64(len(index)) {
				return p.internal(text, i, "more non-zeros than counted")
			}
			index[k] = int32(idx0)
			if val != nil {
				val[k] = v
			} else {
				f := float32(v)
				if math.IsInf(float64(f), 0) {
					return p.errf(text, i, "value %s for feature %d is out of float32 range", csr.Quote(text[i:tokenEnd(text, i)]), x)
				}
				val32[k] = f
			}
			k++
			i = j
		}
		if prev > maxSeen {
			maxSeen = prev
		}
		r++
		rowPtr[r] = k
	}
	if r != p.rowEnd || k != p.nnzEnd {
		return p.internal(text, i, "fewer rows or non-zeros than counted")
	}
	p.maxSeen = maxSeen
	return nil
}

// leadingDigits looks at 8 bytes of text loaded little-endian (the first
// byte lowest) and returns them with ASCII digits turned into 0..9, and
// how many of the first bytes are digits (0..8).
func leadingDigits(w uint64) (x uint64, n uint) {
	x = w ^ 0x3030303030303030 // digit bytes become 0..9, no others do
	// Bit 7 of a byte is set when it is above 9. Carries only leave
	// bytes that are not digits, so the lowest such byte is right.
	m := ((x + 0x7676767676767676) | x) & 0x8080808080808080
	return x, uint(bits.TrailingZeros64(m)) >> 3
}

// digitsValue returns the number written by the first n (1..8) bytes of
// x, which leadingDigits found to be digits 0..9.
func digitsValue(x uint64, n uint) uint64 {
	x <<= (8 - n) * 8 // drop what follows; leading zero bytes are harmless
	x = (x * (10<<8 + 1)) >> 8 & 0x00FF00FF00FF00FF
	x = (x * (100<<16 + 1)) >> 16 & 0x0000FFFF0000FFFF
	return (x * (10000<<32 + 1)) >> 32
}

// valueSlow parses the value at text[i] when the fast path cannot: with
// scanFloat, or strconv for the whole token. It returns the value, the end
// of the token, and an error message (the end is i if the token is empty).
func valueSlow(text []byte, i int, feature uint64) (float64, int, string) {
	v, j, ok := scanFloat(text, i)
	if ok && (j == len(text) || isDelim[text[j]]) {
		return v, j, ""
	}
	j = tokenEnd(text, i)
	if j == i {
		return 0, j, "missing value"
	}
	v, err := parseFloatSlow(text[i:j])
	if err != nil && !isRange(err) {
		return 0, j, fmt.Sprintf("invalid value %s for feature %d", csr.Quote(text[i:j]), feature)
	}
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, j, fmt.Sprintf("value %s for feature %d is not a finite number", csr.Quote(text[i:j]), feature)
	}
	return v, j, ""
}

// skipLine returns the position after the newline that ends the line
// holding text[i], or len(text).
func skipLine(text []byte, i int) int {
	if e := bytes.IndexByte(text[i:], '\n'); e >= 0 {
		return i + e + 1
	}
	return len(text)
}

// slowIndex handles an index:value token the fast loop did not accept.
// It returns the index and the position of its ':', or an error message.
func (p *chunkParser) slowIndex(s []byte, st int) (x uint64, colonAt int, msg string) {
	end := tokenEnd(s, st)
	tok := s[st:end]
	c := bytes.IndexByte(tok, ':')
	if c < 0 {
		return 0, 0, fmt.Sprintf("missing ':' in %s (expected index:value)", csr.Quote(tok))
	}
	num := tok[:c]
	switch {
	case c == 0:
		return 0, 0, fmt.Sprintf("missing feature index before ':' in %s", csr.Quote(tok))
	case string(num) == "qid":
		return 0, 0, "qid: may only appear once, right after the label"
	}
	for _, d := range num {
		if d < '0' || d > '9' {
			low := "1"
			if p.zeroBased {
				low = "0"
			}
			return 0, 0, fmt.Sprintf("invalid feature index %s (expected an integer >= %s)", csr.Quote(num), low)
		}
	}
	digits := bytes.TrimLeft(num, "0")
	if len(digits) > 10 {
		return 0, 0, fmt.Sprintf("feature index %s is too large (at most %d features are supported)", csr.Digits(digits), maxFeatures)
	}
	for _, d := range digits {
		x = x*10 + uint64(d-'0')
	}
	return x, st + c, ""
}

// maxFeatures is the most features a dataset may have, so that both a
// 0-based index and the feature count fit in int32 (the NDJSON reader's
// limit too).
const maxFeatures = csr.MaxFeatures

func (p *chunkParser) tooLarge(x uint64, idx0 int64) (string, Hint) {
	if p.capByOpt {
		return fmt.Sprintf("feature index %d exceeds the cap of %d features", x, p.maxIdx0+1), csr.CapHint(idx0 + 1)
	}
	return fmt.Sprintf("feature index %d is too large (at most %d features are supported)", x, maxFeatures), Hint{}
}

// zeroBased is the hint of an index 0 in a 1-based input.
var zeroBased = Hint{Option: "Options.ZeroBased", Text: "%s reads 0-based files"}

// hinted gives err, a *ParseError, the hint h.
func (p *chunkParser) hinted(err error, h Hint) error {
	err.(*ParseError).Hint = h
	return err
}

// errf makes a ParseError for the byte text[pos]. Line and column are
// worked out here, from the chunk's first line, so that the parsing loop
// need not track them.
func (p *chunkParser) errf(text []byte, pos int, format string, args ...any) error {
	line := p.line + bytes.Count(text[:pos], []byte{'\n'})
	col := pos - (bytes.LastIndexByte(text[:pos], '\n') + 1) + 1
	return &ParseError{File: p.name, Line: line, Column: col, Msg: fmt.Sprintf(format, args...)}
}

func (p *chunkParser) internal(text []byte, pos int, what string) error {
	pos = min(pos, len(text))
	line := p.line + bytes.Count(text[:pos], []byte{'\n'})
	return &ParseError{File: p.name, Line: line, Msg: "internal error: " + what + " (please report)"}
}

// isRange reports a strconv overflow; the value is then ±Inf and is
// reported as not finite.
func isRange(err error) bool { return errors.Is(err, strconv.ErrRange) }

// tokenEnd returns the end of the token starting at s[i].
func tokenEnd(s []byte, i int) int {
	for i < len(s) && !isDelim[s[i]] {
		i++
	}
	return i
}

// splitLines cuts data into about n chunks of at least minBytes that end
// on line boundaries (the last one may lack its newline).
func splitLines(data []byte, n, minBytes int) [][]byte {
	if minBytes < 1 {
		minBytes = 1
	}
	if m := len(data) / minBytes; n > m {
		n = m
	}
	if n < 1 {
		n = 1
	}
	chunks := make([][]byte, 0, n)
	start := 0
	for t := 1; t < n && start < len(data); t++ {
		cut := int(int64(len(data)) * int64(t) / int64(n))
		if cut < start {
			cut = start
		}
		e := bytes.IndexByte(data[cut:], '\n')
		if e < 0 {
			break
		}
		cut += e + 1
		chunks = append(chunks, data[start:cut])
		start = cut
	}
	if start < len(data) {
		chunks = append(chunks, data[start:])
	}
	return chunks
}

// ErrNoData is wrapped by the error for an input that holds no rows:
// an empty file, or one with only blank lines and comments.
var ErrNoData = errors.New("no data")

// parseLibSVM parses libsvm text held in chunks that end on line
// boundaries (each but the last ends with '\n'). It does not keep chunks.
func parseLibSVM(name string, chunks [][]byte, opt Options) (*Dataset, error) {
	var inBytes int64
	for _, c := range chunks {
		inBytes += int64(len(c))
	}
	if inBytes == 0 {
		return nil, fmt.Errorf("%s: empty file: %w", name, ErrNoData)
	}
	if len(chunks) > 0 && bytes.HasPrefix(chunks[0], utf8BOM) {
		// Skip a UTF-8 byte order mark; columns on line 1 count after it.
		chunks = append([][]byte{chunks[0][len(utf8BOM):]}, chunks[1:]...)
	}
	d, _, err := parseChunks(name, chunks, opt, 1, nil)
	if err != nil {
		return nil, err
	}
	if d.Rows == 0 {
		return nil, fmt.Errorf("%s: no rows, only blank lines and comments: %w", name, ErrNoData)
	}
	d.InputBytes = inBytes
	return d, nil
}

// parseChunks runs the two passes over chunks, whose first line is line
// line of name, and returns the dataset and the number of newlines. Text
// without rows returns an empty dataset before pass 2. With reuse, its
// arrays are reused where large enough (Scan's blocks); it is the result.
func parseChunks(name string, chunks [][]byte, opt Options, line int64, reuse *Dataset) (*Dataset, int64, error) {
	threads := opt.Threads
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}

	// Pass 1.
	counts := make([]chunkCount, len(chunks))
	if err := forChunks(len(chunks), threads, nil, func(k int) error {
		counts[k] = countChunk(chunks[k])
		return nil
	}); err != nil {
		return nil, 0, fmt.Errorf("%s: %w", name, err)
	}
	parsers := make([]chunkParser, len(chunks))
	maxIdx0, capByOpt := int64(maxFeatures-1), false
	if opt.MaxFeatures > 0 && int64(opt.MaxFeatures)-1 < maxIdx0 {
		maxIdx0, capByOpt = int64(opt.MaxFeatures)-1, true
	}
	line0 := line
	rows, nnz, qids := int64(0), int64(0), int64(0)
	for k, c := range counts {
		parsers[k] = chunkParser{
			name: name, zeroBased: opt.ZeroBased, maxIdx0: maxIdx0, capByOpt: capByOpt, noBlank: opt.NoBlankLines,
			line: int(line), row0: rows, rowEnd: rows + c.rows, nnz0: nnz, nnzEnd: nnz + c.nnz,
		}
		line += c.lines
		rows += c.rows
		nnz += c.nnz
		qids += c.qids
	}
	if rows == 0 {
		return &Dataset{RowPtr: []int64{0}, Label: []float64{}, Index: []int32{}, Source: name}, line - line0, nil
	}
	if rows > math.MaxInt || nnz > math.MaxInt {
		return nil, 0, fmt.Errorf("%s: too large for this platform (%d rows, %d non-zeros)", name, rows, nnz)
	}

	// The final arrays, allocated once at their exact size (or reused).
	if reuse == nil {
		reuse = &Dataset{}
	}
	t := &target{
		rowPtr: resize(reuse.RowPtr, rows+1),
		label:  resize(reuse.Label, rows),
		index:  resize(reuse.Index, nnz),
	}
	t.rowPtr[0] = 0
	if opt.Float32 {
		t.val32 = resize(reuse.Value32, nnz)
	} else {
		t.val = resize(reuse.Value, nnz)
	}
	if opt.KeepQID && qids > 0 {
		t.qid = resize(reuse.QID, rows)
		clear(t.qid) // rows without qid: keep 0
	}

	// Pass 2. Chunks after the first failing one are skipped; the error of
	// the earliest failing chunk is the first error in the file.
	errs := make([]error, len(chunks))
	var firstBad atomic.Int64
	firstBad.Store(int64(len(chunks)))
	if err := forChunks(len(chunks), threads, &firstBad, func(k int) error {
		err := parsers[k].parseChunk(chunks[k], t)
		if err != nil {
			errs[k] = err
			for {
				cur := firstBad.Load()
				if int64(k) >= cur || firstBad.CompareAndSwap(cur, int64(k)) {
					break
				}
			}
		}
		return nil
	}); err != nil {
		return nil, 0, fmt.Errorf("%s: %w", name, err)
	}
	for _, err := range errs {
		if err != nil {
			return nil, 0, err
		}
	}
	features := int64(0)
	for k := range parsers {
		if m := parsers[k].maxSeen + 1; m > features {
			features = m
		}
	}
	*reuse = Dataset{
		Rows:     int(rows),
		Features: int(features),
		RowPtr:   t.rowPtr,
		Index:    t.index,
		Value:    t.val,
		Value32:  t.val32,
		Label:    t.label,
		QID:      t.qid,
		Source:   name,
	}
	return reuse, line - line0, nil
}

// resize returns s with length n when its capacity allows, else a new
// slice: exact for a first use, with room to spare when a reused one grows.
func resize[T any](s []T, n int64) []T {
	switch {
	case s == nil:
		return make([]T, n)
	case int64(cap(s)) >= n:
		return s[:n]
	}
	return make([]T, n, n+n/4)
}

// errFault reports a memory fault while reading mapped input, which means
// the file shrank while it was being read (see parseMapped).
var errFault = errors.New("file changed while being read (memory fault); was it truncated or rewritten in place?")

// forChunks runs fn(0..n-1) on up to threads goroutines. Chunks whose
// number is above *skipAbove (when given) are skipped. A memory fault in
// mapped input becomes errFault instead of crashing the program.
func forChunks(n, threads int, skipAbove *atomic.Int64, fn func(k int) error) error {
	if n == 0 {
		return nil
	}
	if threads > n {
		threads = n
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	var fault atomic.Bool
	work := func() {
		defer wg.Done()
		defer func() {
			if r := recover(); r != nil {
				if _, ok := r.(interface{ Addr() uintptr }); ok {
					fault.Store(true)
					return
				}
				panic(r)
			}
		}()
		defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
		for {
			k := int(next.Add(1) - 1)
			if k >= n {
				return
			}
			if skipAbove != nil && int64(k) > skipAbove.Load() {
				continue
			}
			_ = fn(k)
		}
	}
	wg.Add(threads)
	for i := 1; i < threads; i++ {
		go work()
	}
	work()
	wg.Wait()
	if fault.Load() {
		return errFault
	}
	return nil
}
