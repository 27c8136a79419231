package dataio

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/acfcd/acfcd/io/internal/csrtest"
)

// refRead is a deliberately simple libsvm reader, line by line with
// strings.FieldsFunc and strconv, that the real one is checked against.
// On error it returns the 1-based line of the first bad line, or 0 when
// the input as a whole is rejected (no rows).
func refRead(text string, opt Options) (*Dataset, int, error) {
	d := &Dataset{RowPtr: []int64{0}, Value: []float64{}, Index: []int32{}, Label: []float64{}}
	if opt.Float32 {
		d.Value, d.Value32 = nil, []float32{}
	}
	base := int64(1)
	if opt.ZeroBased {
		base = 0
	}
	maxIdx0 := int64(math.MaxInt32 - 1)
	if opt.MaxFeatures > 0 && int64(opt.MaxFeatures)-1 < maxIdx0 {
		maxIdx0 = int64(opt.MaxFeatures) - 1
	}
	finite := func(s string) (float64, bool) {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return 0, false
		}
		return v, !math.IsInf(v, 0) && !math.IsNaN(v)
	}
	var qids []int64
	sawQID := false
	lines := strings.Split(strings.TrimPrefix(text, "\ufeff"), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	for n, line := range lines {
		bad := func(what string) (*Dataset, int, error) {
			return nil, n + 1, fmt.Errorf("line %d: %s", n+1, what)
		}
		if h := strings.IndexByte(line, '#'); h >= 0 {
			line = line[:h]
		}
		f := strings.FieldsFunc(line, func(r rune) bool { return r < 128 && isSpace[byte(r)] })
		if len(f) == 0 {
			continue
		}
		label, ok := finite(f[0])
		if !ok {
			return bad("label")
		}
		f = f[1:]
		var q int64
		if len(f) > 0 && strings.HasPrefix(f[0], "qid:") {
			var err error
			if q, err = strconv.ParseInt(f[0][4:], 10, 64); err != nil {
				return bad("qid")
			}
			sawQID = true
			f = f[1:]
		}
		prev := int64(-1)
		for _, tok := range f {
			c := strings.IndexByte(tok, ':')
			if c <= 0 || strings.Trim(tok[:c], "0123456789") != "" {
				return bad("index")
			}
			x, err := strconv.ParseUint(tok[:c], 10, 64)
			if err != nil || x > math.MaxInt32+1 || int64(x)-base < 0 || int64(x)-base > maxIdx0 || int64(x)-base <= prev {
				return bad("index value")
			}
			prev = int64(x) - base
			v, ok := finite(tok[c+1:])
			if !ok {
				return bad("value")
			}
			d.Index = append(d.Index, int32(prev))
			if opt.Float32 {
				if math.IsInf(float64(float32(v)), 0) {
					return bad("float32 range")
				}
				d.Value32 = append(d.Value32, float32(v))
			} else {
				d.Value = append(d.Value, v)
			}
			if int(prev)+1 > d.Features {
				d.Features = int(prev) + 1
			}
		}
		d.Label = append(d.Label, label)
		qids = append(qids, q)
		d.RowPtr = append(d.RowPtr, int64(len(d.Index)))
		d.Rows++
	}
	if d.Rows == 0 {
		return nil, 0, ErrNoData
	}
	if opt.KeepQID && sawQID {
		d.QID = qids
	}
	d.InputBytes = int64(len(text))
	return d, 0, nil
}

// sameData reports how a and b differ in content (not Source), or "".
// Values are compared bit for bit.
func sameData(a, b *Dataset) string { return csrtest.Diff(matrixOf(a), matrixOf(b)) }

// refRowLines returns the 1-based line of every row of a libsvm text (or
// an NDJSON text), as refRead (refNDJSON) finds them.
func refRowLines(text string, ndjson bool) []int {
	var out []int
	for n, line := range strings.Split(strings.TrimPrefix(text, "\ufeff"), "\n") {
		if ndjson {
			if strings.Trim(line, " \t\r") != "" {
				out = append(out, n+1)
			}
			continue
		}
		if h := strings.IndexByte(line, '#'); h >= 0 {
			line = line[:h]
		}
		if len(strings.FieldsFunc(line, func(r rune) bool { return r < 128 && isSpace[byte(r)] })) > 0 {
			out = append(out, n+1)
		}
	}
	return out
}

// checkRowLines checks rowLine against refRowLines for a few rows of a
// dataset parsed from text.
func checkRowLines(t *testing.T, text []byte, format string, rows int) {
	t.Helper()
	if compressionOf(text) != "" {
		return // rowLine would decompress it; the parsers did not
	}
	want := refRowLines(string(text), format == "ndjson")
	if len(want) != rows {
		t.Fatalf("reference finds %d rows, the parser %d", len(want), rows)
	}
	for _, r := range []int{0, rows / 2, rows - 1} {
		if got, ok := rowLine(bytes.NewReader(text), format, r); !ok || got != want[r] {
			t.Fatalf("row %d: rowLine %d %v, want line %d", r, got, ok, want[r])
		}
	}
	if _, ok := rowLine(bytes.NewReader(text), format, rows); ok {
		t.Fatalf("rowLine found row %d of %d", rows, rows)
	}
}
