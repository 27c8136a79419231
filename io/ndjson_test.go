package dataio

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestNDJSONErrors: the NDJSON reader's errors come out as this package's
// types with the reader's text, through Read and Load.
func TestNDJSONErrors(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{`{"label":1}` + "\n" + `{"label":1,"features":{"0":1}}`, "s:2:24: feature index 0 is not allowed: indices start at 1 (Options.ZeroBased reads 0-based files)"},
		{`{"label":1,"features":{"02":1,"1":1,"2":1}}`, "s:1: duplicate feature 2"},
		{"\ufeff" + `{"label":x}`, `s:1:13: "label" must be a number, found "x"`},
	} {
		_, err := Read(strings.NewReader(c.text), "s", Options{})
		var pe *ParseError
		if !errors.As(err, &pe) || err.Error() != c.want || pe.File != "s" {
			t.Errorf("%q: %v (%T), want %s", c.text, err, err, c.want)
		}
	}
	for _, c := range []struct {
		text, format, want string
	}{
		{"\n \r\n", "ndjson", "s: no examples, only blank lines: no data"},
		{"", "ndjson", "s: empty file: no data"},
	} {
		_, err := Read(strings.NewReader(c.text), "s", Options{Format: c.format})
		if !errors.Is(err, ErrNoData) || err.Error() != c.want {
			t.Errorf("%q: %v, want %s wrapping ErrNoData", c.text, err, c.want)
		}
	}
	for _, f := range []struct {
		name string
		data []byte
	}{{"blank.ndjson", []byte("\n \n")}, {"blank.gz", gzipped(t, "\n\t\n")}} {
		path := writeFile(t, f.name, f.data)
		_, err := Load(path, Options{Format: "ndjson"})
		if want := path + ": no examples, only blank lines: no data"; !errors.Is(err, ErrNoData) || err.Error() != want {
			t.Errorf("%s: %v, want %s", f.name, err, want)
		}
	}
}

// TestRowLinesNDJSON checks rowLine on random NDJSON texts with blank
// lines (spaces, tabs, CR), CRLF, a byte order mark, indented and long
// lines, with and without a final newline.
func TestRowLinesNDJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	for f := 0; f < 200; f++ {
		var b strings.Builder
		if r.IntN(4) == 0 {
			b.WriteString("\ufeff")
		}
		lines := 1 + r.IntN(30)
		for i := 0; i < lines; i++ {
			switch r.IntN(4) {
			case 0:
				b.WriteString([]string{"", " ", "\t", "\r", " \t\r"}[r.IntN(5)])
			default:
				b.WriteString([]string{"", " ", "\t "}[r.IntN(3)])
				fmt.Fprintf(&b, `{"label":%d,"features":{`, r.IntN(3)-1)
				n := r.IntN(4)
				if r.IntN(40) == 0 {
					n = 9000 // a line beyond rowLine's 64 KiB buffer
				}
				for k := 0; k < n; k++ {
					if k > 0 {
						b.WriteByte(',')
					}
					fmt.Fprintf(&b, `"%d":0.5`, k+1)
				}
				b.WriteString("}}" + []string{"", " ", "\r"}[r.IntN(3)])
			}
			if i < lines-1 || r.IntN(2) == 0 {
				b.WriteString([]string{"\n", "\r\n"}[r.IntN(2)])
			}
		}
		text := b.String()
		d, err := parseNDJSON("t.ndjson", []byte(text), Options{Threads: 2})
		if errors.Is(err, ErrNoData) {
			continue
		}
		if err != nil {
			t.Fatalf("%v\n%q", err, text)
		}
		checkRowLines(t, []byte(text), "ndjson", d.Rows)
	}
}
