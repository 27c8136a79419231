package dataio

import (
	"bytes"

	"github.com/acfcd/acfcd/io/internal/ndjson"
)

// parseNDJSON parses NDJSON examples held in data (the schema is in
// io/internal/ndjson).
func parseNDJSON(name string, data []byte, opt Options) (*Dataset, error) {
	if opt.NoBlankLines {
		if line := firstBlankLine(data); line > 0 {
			return nil, &ParseError{File: name, Line: line, Column: 1, Msg: "blank line, but each line must hold an example here"}
		}
	}
	m, err := ndjson.Parse(name, data, readerOptions(opt))
	if err != nil {
		return nil, publicError(err)
	}
	return datasetOf(m, name), nil
}

// firstBlankLine returns the 1-based number of the first line of data
// holding only spaces, tabs and a CR (the NDJSON reader's blank lines),
// or 0 if there is none; the end after a final newline is no line.
func firstBlankLine(data []byte) int {
	for line, rest := 1, data; len(rest) > 0; line++ {
		e := bytes.IndexByte(rest, '\n')
		l := rest
		if e >= 0 {
			l, rest = rest[:e], rest[e+1:]
		} else {
			rest = nil
		}
		if len(bytes.Trim(l, " \t\r")) == 0 {
			return line
		}
	}
	return 0
}
