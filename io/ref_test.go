package dataio

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
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
