package dataio

import (
	"bytes"
	"fmt"
	"io"
)

// DefaultMaxLine is the longest line a stream may have when
// Options.MaxLine is 0: far above any real row, and low enough that an
// endless line is refused in bounded memory (the block it is read into
// doubles, so a stream holds at most about twice this much).
const DefaultMaxLine = 128 << 20

// guard passes a stream through and stops it at the first byte that no
// libsvm or NDJSON text contains (NUL) and at a line longer than max
// bytes, so that a hostile or mistaken stream (/dev/zero, one endless
// line) ends with an error naming the line instead of filling memory.
// Mapped files need no guard: their size is known.
type guard struct {
	r    io.Reader
	name string
	max  int64
	line int   // lines completed so far
	cur  int64 // bytes of the current line so far
	err  error // sticky: a stream refused stays refused
}

func newGuard(r io.Reader, name string, maxLine int) *guard {
	if maxLine <= 0 {
		maxLine = DefaultMaxLine
	}
	return &guard{r: r, name: name, max: int64(maxLine)}
}

func (g *guard) Read(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	n, err := g.r.Read(p)
	b := p[:n]
	if i := bytes.IndexByte(b, 0); i >= 0 {
		col := g.cur + int64(i) + 1
		if k := bytes.LastIndexByte(b[:i], '\n'); k >= 0 {
			col = int64(i - k)
		}
		g.fail(b[:i], "a NUL byte: not libsvm or NDJSON text")
		g.err.(*ParseError).Column = int(col)
		return 0, g.err
	}
	// Line lengths: only the first and last lines of b can continue
	// across reads; those inside b are checked only when b could hold
	// one that is too long.
	first := bytes.IndexByte(b, '\n')
	if first < 0 {
		g.cur += int64(n)
		if g.cur > g.max {
			g.failLong()
			return 0, g.err
		}
		return n, err
	}
	if g.cur+int64(first) > g.max {
		g.failLong()
		return 0, g.err
	}
	g.line++
	rest := b[first+1:]
	if int64(len(rest)) > g.max {
		for {
			k := bytes.IndexByte(rest, '\n')
			if k < 0 {
				break
			}
			if int64(k) > g.max {
				g.failLong()
				return 0, g.err
			}
			g.line++
			rest = rest[k+1:]
		}
	} else {
		last := bytes.LastIndexByte(rest, '\n')
		g.line += bytes.Count(rest[:last+1], []byte{'\n'})
		rest = rest[last+1:]
	}
	g.cur = int64(len(rest))
	if g.cur > g.max {
		g.failLong()
		return 0, g.err
	}
	return n, err
}

// failLong records a line longer than the limit, whose option is MaxLine.
func (g *guard) failLong() {
	g.fail(nil, fmt.Sprintf("line longer than %d bytes, the limit for a stream", g.max))
	g.err.(*ParseError).Hint = Hint{Option: "Options.MaxLine"}
}

// fail records the error for the line after g.line and the newlines in
// before, the part of the current read that precedes the problem.
func (g *guard) fail(before []byte, msg string) {
	line := g.line + bytes.Count(before, []byte{'\n'}) + 1
	g.err = &ParseError{File: g.name, Line: line, Msg: msg}
}
