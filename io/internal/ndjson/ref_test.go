package ndjson

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/acfcd/acfcd/io/internal/csr"
)

// refNDJSON is a deliberately simple NDJSON reader, line by line on
// encoding/json's token stream, that the real one (both paths) is checked
// against. It follows the schema in ndjson.go. On error it returns the
// 1-based line of the first bad line, or 0 when the input as a whole is
// rejected (no rows).
func refNDJSON(text string, opt csr.Options) (*csr.Matrix, int, error) {
	d := &csr.Matrix{RowPtr: []int64{0}, Value: []float64{}, Index: []int32{}, Label: []float64{}}
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
		return nil, 0, errors.New("no data")
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
func refNDLine(line string, opt csr.Options, maxIdx0 int64) (*refNDRow, error) {
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
