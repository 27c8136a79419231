package dataio

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"testing"
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
func sameData(a, b *Dataset) string {
	switch {
	case a.Rows != b.Rows:
		return fmt.Sprintf("rows %d vs %d", a.Rows, b.Rows)
	case a.Features != b.Features:
		return fmt.Sprintf("features %d vs %d", a.Features, b.Features)
	case len(a.RowPtr) != len(b.RowPtr) || len(a.Index) != len(b.Index) || len(a.Label) != len(b.Label):
		return "array lengths differ"
	case (a.Value == nil) != (b.Value == nil) || (a.Value32 == nil) != (b.Value32 == nil) || (a.QID == nil) != (b.QID == nil):
		return "different arrays present"
	case len(a.Value) != len(b.Value) || len(a.Value32) != len(b.Value32) || len(a.QID) != len(b.QID):
		return "value lengths differ"
	}
	for i := range a.RowPtr {
		if a.RowPtr[i] != b.RowPtr[i] {
			return fmt.Sprintf("RowPtr[%d] %d vs %d", i, a.RowPtr[i], b.RowPtr[i])
		}
	}
	for i := range a.Label {
		if math.Float64bits(a.Label[i]) != math.Float64bits(b.Label[i]) {
			return fmt.Sprintf("Label[%d] %v vs %v", i, a.Label[i], b.Label[i])
		}
	}
	for i := range a.QID {
		if a.QID[i] != b.QID[i] {
			return fmt.Sprintf("QID[%d] %d vs %d", i, a.QID[i], b.QID[i])
		}
	}
	for i := range a.Index {
		if a.Index[i] != b.Index[i] {
			return fmt.Sprintf("Index[%d] %d vs %d", i, a.Index[i], b.Index[i])
		}
	}
	for i := range a.Value {
		if math.Float64bits(a.Value[i]) != math.Float64bits(b.Value[i]) {
			return fmt.Sprintf("Value[%d] %v vs %v", i, a.Value[i], b.Value[i])
		}
	}
	for i := range a.Value32 {
		if math.Float32bits(a.Value32[i]) != math.Float32bits(b.Value32[i]) {
			return fmt.Sprintf("Value32[%d] %v vs %v", i, a.Value32[i], b.Value32[i])
		}
	}
	return ""
}

// refNDJSON is a deliberately simple NDJSON reader, line by line on
// encoding/json's token stream, that the real one (both paths) is checked
// against. It follows the schema in ndjson.go. On error it returns the
// 1-based line of the first bad line, or 0 when the input as a whole is
// rejected (no rows).
func refNDJSON(text string, opt Options) (*Dataset, int, error) {
	d := &Dataset{RowPtr: []int64{0}, Value: []float64{}, Index: []int32{}, Label: []float64{}}
	if opt.Float32 {
		d.Value, d.Value32 = nil, []float32{}
	}
	maxIdx0 := int64(math.MaxInt32 - 1)
	if opt.MaxFeatures > 0 && int64(opt.MaxFeatures)-1 < maxIdx0 {
		maxIdx0 = int64(opt.MaxFeatures) - 1
	}
	var qids []int64
	sawQID := false
	for n, line := range strings.Split(strings.TrimPrefix(text, "\ufeff"), "\n") {
		if strings.Trim(line, " \t\r") == "" {
			continue
		}
		r, err := refNDLine(line, opt, maxIdx0)
		if err != nil {
			return nil, n + 1, fmt.Errorf("line %d: %v", n+1, err)
		}
		sort.Slice(r.idx, func(a, b int) bool { return r.idx[a].j < r.idx[b].j })
		for k, f := range r.idx {
			if k > 0 && f.j == r.idx[k-1].j {
				return nil, n + 1, fmt.Errorf("line %d: duplicate feature", n+1)
			}
			d.Index = append(d.Index, int32(f.j))
			if opt.Float32 {
				d.Value32 = append(d.Value32, float32(f.v))
			} else {
				d.Value = append(d.Value, f.v)
			}
			d.Features = max(d.Features, int(f.j)+1)
		}
		d.Label = append(d.Label, r.label)
		qids = append(qids, r.qid)
		sawQID = sawQID || r.hasQID
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

type refNDRow struct {
	label  float64
	qid    int64
	hasQID bool
	idx    []struct {
		j int64
		v float64
	}
}

// refNDLine parses one non-blank line.
func refNDLine(line string, opt Options, maxIdx0 int64) (*refNDRow, error) {
	dec := json.NewDecoder(strings.NewReader(line))
	dec.UseNumber()
	delim := func(want json.Delim) error {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		if tok != want {
			return fmt.Errorf("want %v, got %v", want, tok)
		}
		return nil
	}
	number := func() (json.Number, error) {
		tok, err := dec.Token()
		if err != nil {
			return "", err
		}
		n, ok := tok.(json.Number)
		if !ok {
			return "", fmt.Errorf("not a number: %v", tok)
		}
		return n, nil
	}
	finite := func(n json.Number) (float64, error) {
		v, err := strconv.ParseFloat(string(n), 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return 0, err
		}
		if math.IsInf(v, 0) {
			return 0, errors.New("not finite")
		}
		if v == 0 {
			v = 0 // no negative zero
		}
		return v, nil
	}
	if err := delim('{'); err != nil {
		return nil, err
	}
	r := &refNDRow{}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, ok := tok.(string)
		if !ok || seen[key] {
			return nil, fmt.Errorf("bad or duplicate key %v", tok)
		}
		seen[key] = true
		switch key {
		case "label":
			n, err := number()
			if err != nil {
				return nil, err
			}
			if r.label, err = finite(n); err != nil {
				return nil, err
			}
		case "qid":
			n, err := number()
			if err != nil {
				return nil, err
			}
			if strings.ContainsAny(string(n), ".eE") {
				return nil, errors.New("qid not an integer")
			}
			if r.qid, err = strconv.ParseInt(string(n), 10, 64); err != nil {
				return nil, err
			}
			r.hasQID = true
		case "features":
			if err := delim('{'); err != nil {
				return nil, err
			}
			for dec.More() {
				tok, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k := tok.(string) // the decoder allows only strings as keys
				if k == "" || strings.Trim(k, "0123456789") != "" {
					return nil, errors.New("feature key not digits")
				}
				k = strings.TrimLeft(k, "0")
				if len(k) > 10 {
					return nil, errors.New("index too large")
				}
				x, _ := strconv.ParseInt("0"+k, 10, 64)
				if !opt.ZeroBased {
					if x == 0 {
						return nil, errors.New("index 0")
					}
					x--
				}
				if x > maxIdx0 {
					return nil, errors.New("index too large")
				}
				n, err := number()
				if err != nil {
					return nil, err
				}
				v, err := finite(n)
				if err != nil {
					return nil, err
				}
				if opt.Float32 && math.IsInf(float64(float32(v)), 0) {
					return nil, errors.New("float32 range")
				}
				r.idx = append(r.idx, struct {
					j int64
					v float64
				}{x, v})
			}
			if err := delim('}'); err != nil {
				return nil, err
			}
		default:
			return nil, fmt.Errorf("unknown key %q", key)
		}
	}
	if err := delim('}'); err != nil {
		return nil, err
	}
	if !seen["label"] {
		return nil, errors.New("no label")
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("text after the object: %v", err)
	}
	return r, nil
}

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
