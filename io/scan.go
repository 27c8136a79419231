package dataio

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"sync"
)

// Scan reads the input at path as Load does ("-" for standard input;
// libsvm text, plain, gzip or bzip2, NDJSON or a binary cache) and hands
// its rows to fn in blocks of consecutive rows, in order, so that memory
// stays bounded whatever the size of the input: libsvm text is read a
// few MiB at a time, and each block is parsed in parallel while fn works
// on the one before. A binary cache is mapped as by Load and handed over
// in blocks of its rows; NDJSON is read whole first.
//
// fn is called on Scan's goroutine, one block at a time; first is the
// number of rows before the block. The block is valid only during the
// call: its arrays are reused for later blocks. Its Features counts its
// own indices (the whole input's for a cache or NDJSON), its QID is nil
// when it has no qid: token, and Where locates its rows in the input,
// counting from the input's first row.
//
// Scan returns fn's first error as it is, or else the error Load would
// give for the input (a *ParseError naming file, line and column, an error
// wrapping ErrNoData for an input without rows, the Options limits), but
// later: the blocks before the problem have been handed to fn by then, and
// a problem a stream's guards find (a line too long, a NUL byte, a
// compression ratio) counts where it is, not before every syntax error.
func Scan(path string, opt Options, fn func(first int, block *Dataset) error) error {
	if err := checkOptions(opt); err != nil {
		return err
	}
	if path == "-" {
		return scanStdin(opt, fn)
	}
	if opt.Format == "cache" {
		return scanCache(path, opt, fn)
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if st.IsDir() {
		return fmt.Errorf("%s: is a directory, not a data file", path)
	}
	if !st.Mode().IsRegular() || st.Size() == 0 {
		return scanStream(f, path, path, 0, opt, fn)
	}
	return scanFile(f, path, path, st.Size(), opt, fn)
}

// ScanReader is Scan for the stream r, which may be gzip or bzip2
// compressed, as Read reads it; name is used in messages and as Source.
func ScanReader(r io.Reader, name string, opt Options, fn func(first int, block *Dataset) error) error {
	if r == nil {
		return fmt.Errorf("%s: nil reader", name)
	}
	if err := checkOptions(opt); err != nil {
		return err
	}
	return scanStream(r, name, "", 0, opt, fn)
}

// scanStdin is loadStdin's choice: standard input redirected from a
// regular file is read as that file, anything else as a stream.
func scanStdin(opt Options, fn func(int, *Dataset) error) error {
	const name = "stdin"
	st, err := os.Stdin.Stat()
	if err == nil && st.Mode().IsRegular() && st.Size() > 0 {
		if off, err := os.Stdin.Seek(0, io.SeekCurrent); err == nil && off == 0 {
			return scanFile(os.Stdin, name, "", st.Size(), opt, fn)
		}
	}
	return scanStream(os.Stdin, name, "", 0, opt, fn)
}

// scanFile is loadFile's choice for a non-empty regular file; path is ""
// when the file cannot be reopened by name. Plain libsvm text is read
// without the guards of a stream, as Load maps it without them.
func scanFile(f *os.File, name, path string, size int64, opt Options, fn func(int, *Dataset) error) error {
	head := make([]byte, headBytes)
	n, err := f.ReadAt(head, 0)
	if err != nil && err != io.EOF {
		return fmt.Errorf("%s: %w", name, err)
	}
	head = head[:n]
	if n == 0 {
		return fmt.Errorf("%s: empty file: %w", name, ErrNoData)
	}
	r := io.NewSectionReader(f, 0, size)
	if compressionOf(head) != "" {
		return scanStream(r, name, path, size, opt, fn)
	}
	switch detectFormat(head, opt) {
	case "cache":
		if path == "" {
			return fmt.Errorf("%s: a binary cache must be loaded by its path, not through standard input", name)
		}
		return scanCache(path, opt, fn)
	case "ndjson":
		data := make([]byte, size)
		if _, err := io.ReadFull(r, data); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		d, err := parseNDJSON(name, data, opt)
		if err != nil {
			return err
		}
		return scanRows(d, path, opt, fn)
	}
	return scanLibSVM(r, name, path, "", opt, fn)
}

// scanStream is readText's choice for a stream (of size bytes, 0 if
// unknown); path is the file to locate rows in, or "".
func scanStream(r io.Reader, name, path string, size int64, opt Options, fn func(int, *Dataset) error) error {
	g, format, via, err := openText(r, name, size, opt)
	if err != nil {
		return err
	}
	if format == "ndjson" {
		data, err := io.ReadAll(g)
		if err != nil {
			return streamError(name, err)
		}
		d, err := parseNDJSON(name, data, opt)
		if err != nil {
			return err
		}
		return scanRows(d, path, opt, fn)
	}
	return scanLibSVM(g, name, path, via, opt, fn)
}

// scanCache maps the cache at path and hands over its rows.
func scanCache(path string, opt Options, fn func(int, *Dataset) error) error {
	d, err := openCache(path, opt)
	if err != nil {
		return err
	}
	defer d.Close()
	return scanRows(d, path, opt, fn)
}

// scanBlockBytes is about how much libsvm text a block holds, and
// scanBlockNNZ how many non-zeros a block of a dataset in memory holds.
// Tests lower them.
var (
	scanBlockBytes       = 4 << 20
	scanBlockNNZ   int64 = 1 << 20
)

// scanRows hands the rows of d, a whole input already in memory, to fn in
// blocks that share d's arrays (all but the rebased row offsets).
func scanRows(d *Dataset, path string, opt Options, fn func(int, *Dataset) error) error {
	var b Dataset
	var rowPtr []int64
	for a := 0; a < d.Rows; {
		end := a + sort.Search(d.Rows-a, func(k int) bool { return d.RowPtr[a+k+1]-d.RowPtr[a] >= scanBlockNNZ }) + 1
		end = min(end, d.Rows)
		p, q := d.RowPtr[a], d.RowPtr[end]
		rowPtr = rowPtr[:0]
		for _, o := range d.RowPtr[a : end+1] {
			rowPtr = append(rowPtr, o-p)
		}
		b = Dataset{Rows: end - a, Features: d.Features, RowPtr: rowPtr, Index: d.Index[p:q:q],
			Label: d.Label[a:end:end], Source: d.Source, InputBytes: d.InputBytes, MaxFeatures: max(opt.MaxFeatures, 0)}
		if d.Value != nil {
			b.Value = d.Value[p:q:q]
		} else {
			b.Value32 = d.Value32[p:q:q]
		}
		if d.QID != nil {
			b.QID = d.QID[a:end:end]
		}
		setPlace(&b, path, opt.Format, a)
		if err := fn(a, &b); err != nil {
			return err
		}
		a = end
	}
	return nil
}

// setPlace lets Where locate the rows of block b, the first of which is
// row first of the input at path ("" when it cannot be read again).
func setPlace(b *Dataset, path, format string, first int) {
	b.first = first
	b.locate = nil
	if path != "" {
		b.locate = func(row int) (int, bool) { return lineOfRow(path, format, first+row) }
	}
}

// textBlock is one block of libsvm text in the making: its parsed rows,
// or the error that ends the input.
type textBlock struct {
	d     Dataset
	first int
	err   error
}

// scanLibSVM reads libsvm text from r in blocks of about scanBlockBytes
// that end on line boundaries, and hands each to fn once parsed. One
// goroutine reads and parses the next block while fn has the current
// one; the two blocks' arrays take turns. via names the decompression r
// has undone, for the error of an input without rows.
func scanLibSVM(r io.Reader, name, path, via string, opt Options, fn func(int, *Dataset) error) error {
	free := make(chan *textBlock, 2)
	free <- new(textBlock)
	free <- new(textBlock)
	full := make(chan *textBlock)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(full)
		readLibSVM(r, name, path, via, opt, free, full, done)
	}()
	// Stop the reader before returning: it reads r, which the caller
	// closes once Scan returns.
	defer wg.Wait()
	defer close(done)
	for b := range full {
		if b.err != nil {
			return b.err
		}
		if err := fn(b.first, &b.d); err != nil {
			return err
		}
		free <- b
	}
	return nil
}

// readLibSVM is scanLibSVM's reader: it takes blocks from free, parses
// text into them and sends them to full, the last one with an error if
// the input has one, until the end of r or until done is closed.
func readLibSVM(r io.Reader, name, path, via string, opt Options, free chan *textBlock, full chan<- *textBlock, done <-chan struct{}) {
	send := func(b *textBlock) bool {
		select {
		case full <- b:
			return true
		case <-done:
			return false
		}
	}
	fail := func(err error) {
		select {
		case <-done:
		case b := <-free:
			b.err = err
			send(b)
		}
	}
	buf := make([]byte, scanBlockBytes)
	carry := 0 // bytes of an unfinished line at the start of buf
	line, rows, inBytes := int64(1), 0, int64(0)
	var pending error // a rowless block's blank-line error: see below
	for {
		m, rerr := fill(r, buf[carry:])
		filled := buf[:carry+m]
		eof := rerr == io.EOF
		if rerr != nil && !eof {
			fail(streamError(name, rerr))
			return
		}
		text := filled
		if !eof {
			k := bytes.LastIndexByte(filled, '\n')
			if k < 0 { // a line longer than the buffer
				buf = append(buf, make([]byte, len(buf))...)
				carry = len(filled)
				continue
			}
			text = filled[:k+1]
		}
		if len(text) == 0 { // the end, right after a block
			break
		}
		first := inBytes == 0
		inBytes += int64(len(text))
		if first && bytes.HasPrefix(text, utf8BOM) {
			text = text[len(utf8BOM):]
		}
		var b *textBlock
		select {
		case b = <-free:
		case <-done:
			return
		}
		chunks := splitLines(text, threadCount(opt)*chunksPerThread, minChunkBytes)
		d, lines, err := parseChunks(name, chunks, opt, line, &b.d)
		if pending != nil && (err != nil || d.Rows > 0) {
			err = pending // earlier in the input
		}
		if err != nil {
			b.err = err
			send(b)
			return
		}
		if d.Rows > 0 {
			b.d.InputBytes = int64(len(text))
			b.d.MaxFeatures = max(opt.MaxFeatures, 0)
			b.first = rows
			setPlace(&b.d, path, opt.Format, rows)
			rows += d.Rows
			if !send(b) {
				return
			}
		} else {
			// Load reports an input without rows as such, before the
			// blank lines NoBlankLines refuses; they count only once a
			// row follows.
			if pending == nil && opt.NoBlankLines {
				pending = blankLineError(name, text, line)
			}
			free <- b // not in use: the reader took it
		}
		line += lines
		if eof {
			break
		}
		// Keep the unfinished line, in a buffer of the usual size again
		// after a long line.
		rest := filled[bytes.LastIndexByte(filled, '\n')+1:]
		if len(buf) > scanBlockBytes && len(rest) < scanBlockBytes/2 {
			buf = make([]byte, scanBlockBytes)
		}
		carry = copy(buf, rest)
	}
	var err error
	switch {
	case inBytes == 0:
		err = fmt.Errorf("%s: empty file: %w", name, ErrNoData)
	case rows == 0:
		err = fmt.Errorf("%s: no rows, only blank lines and comments: %w", name, ErrNoData)
	case pending != nil:
		err = pending
	}
	if err != nil {
		if via != "" && errors.Is(err, ErrNoData) {
			err = fmt.Errorf("%w (after %s decompression)", err, via)
		}
		fail(err)
	}
}

// blankLineError is the error pass 2 gives, with Options.NoBlankLines,
// for text without rows that starts on line line: its first line is blank
// or a comment. It is nil for text of spaces alone without a newline.
func blankLineError(name string, text []byte, line int64) error {
	p := chunkParser{name: name, noBlank: true, line: int(line)}
	return p.parseChunk(text, &target{rowPtr: []int64{0}, label: []float64{}, index: []int32{}, val: []float64{}})
}
