package dataio

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// endless repeats s forever.
type endless struct {
	s   []byte
	off int
}

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = e.s[e.off]
		e.off = (e.off + 1) % len(e.s)
	}
	return len(p), nil
}

// TestStreamRefused: a stream with a NUL byte or a line over the limit is
// refused with the line (and for NUL the column), whatever the read
// sizes, compressed or not, libsvm or NDJSON.
func TestStreamRefused(t *testing.T) {
	gz := func(s string) io.Reader {
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		w.Write([]byte(s))
		w.Close()
		return &b
	}
	long := "1 1:1 " + strings.Repeat("2:1 ", 30) + "\n"
	cases := []struct {
		name, in string
		maxLine  int
		want     string
	}{
		{"nul", "1 1:1\n-1 2:1\n1 3:\x001\n", 0, "stdin:3:5: a NUL byte: not libsvm or NDJSON text"},
		{"nul-first", "\x00\x00\x00", 0, "stdin:1:1: a NUL byte"},
		{"ndjson-nul", "{\"label\":1,\"features\":{\"1\":1}}\n\x00", 0, "stdin:2:1: a NUL byte"},
		{"long-middle", "1 1:1\n" + long + "1 2:1\n", 64, "stdin:2: line longer than 64 bytes"},
		{"long-last", "1 1:1\n1 2:1\n" + strings.TrimSuffix(long, "\n"), 64, "stdin:3: line longer than 64 bytes"},
		{"long-first", long, 64, "stdin:1: line longer than 64 bytes"},
	}
	for _, c := range cases {
		for _, how := range []string{"whole", "bytes", "half", "gzip"} {
			var r io.Reader = strings.NewReader(c.in)
			switch how {
			case "bytes":
				r = iotest.OneByteReader(r)
			case "half":
				r = iotest.HalfReader(r)
			case "gzip":
				r = gz(c.in)
			}
			_, err := Read(r, "stdin", Options{MaxLine: c.maxLine})
			var pe *ParseError
			if err == nil || !strings.HasPrefix(err.Error(), c.want) || !errors.As(err, &pe) {
				t.Errorf("%s/%s: err %v, want a *ParseError starting %q", c.name, how, err, c.want)
			}
		}
	}
}

// TestStreamAtLimit: lines of exactly MaxLine bytes are read; one byte
// more is refused. The limit counts the bytes before the newline.
func TestStreamAtLimit(t *testing.T) {
	line := "1 1:1 2:1 3:1" // 13 bytes
	in := strings.Repeat(line+"\n", 50)
	for _, r := range []io.Reader{strings.NewReader(in), iotest.OneByteReader(strings.NewReader(in))} {
		d, err := Read(r, "s", Options{MaxLine: len(line)})
		if err != nil || d.Rows != 50 {
			t.Fatalf("at the limit: rows %v, err %v", d, err)
		}
	}
	_, err := Read(strings.NewReader(in), "s", Options{MaxLine: len(line) - 1})
	if err == nil || !strings.HasPrefix(err.Error(), "s:1: line longer than 12 bytes") {
		t.Fatalf("one over: err %v", err)
	}
}

// TestStreamEndless: endless input ends with an error instead of growing
// until memory runs out: an endless line at the line limit, endless NUL
// bytes at once.
func TestStreamEndless(t *testing.T) {
	_, err := Read(&endless{s: []byte("1 1:1 ")}, "pipe", Options{MaxLine: 1 << 20})
	if err == nil || !strings.HasPrefix(err.Error(), "pipe:1: line longer than 1048576 bytes") {
		t.Errorf("endless line: err %v", err)
	}
	_, err = Read(&endless{s: []byte{0}}, "zero", Options{})
	if err == nil || !strings.HasPrefix(err.Error(), "zero:1:1: a NUL byte") {
		t.Errorf("endless NUL: err %v", err)
	}
	// Endless lines of valid data are data: refused only by what reads
	// them, so here a long but finite stream of short lines is accepted.
	d, err := Read(io.LimitReader(&endless{s: []byte("1 1:1\n")}, 6<<16), "ok", Options{MaxLine: 8})
	if err != nil || d.Rows != 1<<16 {
		t.Errorf("short lines: %v, err %v", d, err)
	}
}
