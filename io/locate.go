package dataio

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
)

// Where locates row i (0-based) of d for a message: "FILE:LINE" when d was
// loaded by Load from a libsvm or NDJSON file (plain or compressed) that can
// be read again, else "FILE: example N" with N = i+1 (a binary cache,
// standard input, a stream given to Read), or "example N" for a dataset
// without a Source; N counts from the input's first row in a Scan block.
// Rows of a Subset are located in the file of the dataset they were taken
// from.
//
// The line is found by reading the file again up to that row, so Where is
// meant for error paths. If the file changed since it was loaded the line
// may be wrong or missing.
func (d *Dataset) Where(i int) string {
	if d.locate != nil {
		if line, ok := d.locate(i); ok {
			return fmt.Sprintf("%s:%d", d.Source, line)
		}
	}
	if d.Source == "" {
		return fmt.Sprintf("example %d", d.first+i+1)
	}
	return fmt.Sprintf("%s: example %d", d.Source, d.first+i+1)
}

// lineOfRow returns the 1-based line of row (0-based) in the file at path,
// read as Load reads it (see rowLine). It reports false for a file it
// cannot open.
func lineOfRow(path, format string, row int) (int, bool) {
	f, err := os.Open(path)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	return rowLine(f, format, row)
}

// rowLine returns the 1-based line of row (0-based) in the text r holds,
// decompressed when it starts with a gzip or bzip2 magic number, and read
// as libsvm or NDJSON as format says or, when format is "", as detected. It
// reports false for a binary cache, a row beyond the end, or a read error.
func rowLine(r io.Reader, format string, row int) (int, bool) {
	if row < 0 {
		return 0, false
	}
	br := bufio.NewReaderSize(r, 64<<10)
	head, _ := br.Peek(headBytes)
	zr, c, err := decompress(br, head)
	if err != nil {
		return 0, false
	}
	if c != "" {
		br = bufio.NewReaderSize(zr, 64<<10)
		head, _ = br.Peek(headBytes)
	}
	var blank func(c byte) bool // bytes that may start a line that is not a row
	var comment byte
	switch detectFormat(head, Options{Format: format}) {
	case "libsvm":
		blank = func(c byte) bool { return isSpace[c] }
		comment = '#'
	case "ndjson":
		blank = func(c byte) bool { return c == ' ' || c == '\t' || c == '\r' }
	default:
		return 0, false
	}
	if bytes.HasPrefix(head, utf8BOM) {
		br.Discard(len(utf8BOM))
	}
	// A line is a row when its first byte that is not blank is neither the
	// line end nor (libsvm) '#': countChunk's rule, and the NDJSON
	// scanner's.
	line, rows := 1, 0
	decided := false // the current line's first non-blank byte was seen
	for {
		b, err := br.ReadSlice('\n')
		for _, c := range b {
			if decided {
				break
			}
			if blank(c) {
				continue
			}
			decided = true
			if c != '\n' && (comment == 0 || c != comment) {
				if rows == row {
					return line, true
				}
				rows++
			}
		}
		if len(b) > 0 && b[len(b)-1] == '\n' {
			line++
			decided = false
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			return 0, false
		}
	}
}
