package ndjson

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/acfcd/acfcd/io/internal/csr"
	"github.com/acfcd/acfcd/io/internal/csrtest"
)

// ndPaths are the parser paths to test: the scanner always, simdjson when
// the CPU runs it.
func ndPaths(t testing.TB) []int {
	if simdAvailable() {
		return []int{ndjsonScalar, ndjsonSIMD}
	}
	t.Logf("simdjson not supported here: testing the scanner only")
	return []int{ndjsonScalar}
}

var ndPathNames = map[int]string{ndjsonScalar: "scalar", ndjsonSIMD: "simd", ndjsonAuto: "auto"}

// ndParse parses text on one path.
func ndParse(path int, text string, opt csr.Options) (*csr.Matrix, error) {
	old := ndjsonPath
	ndjsonPath = path
	defer func() { ndjsonPath = old }()
	return Parse("t.ndjson", []byte(text), opt)
}

// ndBoth parses text on every path and checks that they agree; it returns
// the scanner's result.
func ndBoth(t *testing.T, text string, opt csr.Options) (*csr.Matrix, error) {
	t.Helper()
	var d0 *csr.Matrix
	var e0 error
	for k, p := range ndPaths(t) {
		before := ndjsonFallbacks.Load()
		d, err := ndParse(p, text, opt)
		if k == 0 {
			d0, e0 = d, err
			continue
		}
		if (err == nil) != (e0 == nil) {
			t.Fatalf("%s: error %v, scanner: %v\ninput %q", ndPathNames[p], err, e0, text)
		}
		if err != nil {
			if err.Error() != e0.Error() {
				t.Fatalf("%s: error %v, scanner: %v", ndPathNames[p], err, e0)
			}
			continue
		}
		if diff := csrtest.Diff(d, d0); diff != "" {
			t.Fatalf("%s differs from the scanner: %s\ninput %q", ndPathNames[p], diff, text)
		}
		// The simdjson path leaves chunks with escapes to the scanner.
		if n := ndjsonFallbacks.Load() - before; n != 0 && !strings.Contains(text, `\`) {
			t.Fatalf("simdjson path fell back to the scanner on valid input (%d chunks): %q", n, text)
		}
	}
	return d0, e0
}

// ndBuild makes the expected dataset from rows of "label|idx:val idx:val".
func ndBuild(features int, f32 bool, qid []int64, rows ...string) *csr.Matrix {
	d := &csr.Matrix{Rows: len(rows), Features: features, RowPtr: []int64{0}, Index: []int32{}, QID: qid}
	if f32 {
		d.Value32 = []float32{}
	} else {
		d.Value = []float64{}
	}
	for _, r := range rows {
		lab, feats, _ := strings.Cut(r, "|")
		y, _ := strconv.ParseFloat(lab, 64)
		d.Label = append(d.Label, y)
		for _, f := range strings.Fields(feats) {
			a, b, _ := strings.Cut(f, ":")
			j, _ := strconv.Atoi(a)
			v, _ := strconv.ParseFloat(b, 64)
			d.Index = append(d.Index, int32(j))
			if f32 {
				d.Value32 = append(d.Value32, float32(v))
			} else {
				d.Value = append(d.Value, v)
			}
		}
		d.RowPtr = append(d.RowPtr, int64(len(d.Index)))
	}
	return d
}

func TestNDJSONValid(t *testing.T) {
	cases := []struct {
		name string
		text string
		opt  csr.Options
		want *csr.Matrix
	}{
		{"schema example", `{"label": 1, "features": {"3": 0.5, "17": 1}}` + "\n",
			csr.Options{}, ndBuild(17, false, nil, "1|2:0.5 16:1")},
		{"no final newline, CRLF, blank lines", "\r\n  \n" + `{"label":-1,"features":{"1":2}}` + "\r\n\t\r\n" + `{"features":{},"label":0.25}`,
			csr.Options{}, ndBuild(1, false, nil, "-1|0:2", "0.25|")},
		{"unsorted keys", `{"label":1,"features":{"9":9,"2":2,"5":5,"1":1}}`,
			csr.Options{}, ndBuild(9, false, nil, "1|0:1 1:2 4:5 8:9")},
		{"features missing", `{"label":3}` + "\n" + `{"label":4,"features":{"2":1}}`,
			csr.Options{}, ndBuild(2, false, nil, "3|", "4|1:1")},
		{"zero-based", `{"label":1,"features":{"0":1.5,"7":-2}}`,
			csr.Options{ZeroBased: true}, ndBuild(8, false, nil, "1|0:1.5 7:-2")},
		{"float32", `{"label":1,"features":{"1":0.1,"2":1e38}}`,
			csr.Options{Float32: true}, ndBuild(2, true, nil, "1|0:0.1 1:1e38")},
		{"qid kept", `{"label":1,"qid":5}` + "\n" + `{"label":2}` + "\n" + `{"qid":-3,"label":2}`,
			csr.Options{KeepQID: true}, ndBuild(0, false, []int64{5, 0, -3}, "1|", "2|", "2|")},
		{"qid dropped", `{"label":1,"qid":5,"features":{"1":1}}`,
			csr.Options{}, ndBuild(1, false, nil, "1|0:1")},
		{"no qid anywhere", `{"label":1}`, csr.Options{KeepQID: true}, ndBuild(0, false, nil, "1|")},
		{"numbers", `{"label":-0,"features":{"1":-0.0,"2":1E+2,"3":12345678901234567890123,"4":-9223372036854775809,"5":1e-400,"6":0.1e1,"7":18446744073709551615}}`,
			csr.Options{}, ndBuild(7, false, nil, "0|0:0 1:100 2:1.2345678901234568e22 3:-9223372036854775809 4:0 5:1 6:18446744073709551615")},
		{"long mantissa", `{"label":0.30000000000000000000001,"features":{"1":123456789012345678901234567890e-30}}`,
			csr.Options{}, ndBuild(1, false, nil, "0.30000000000000000000001|0:0.12345678901234568")},
		{"escaped keys", `{"l\u0061bel":1,"features":{"\u0031\u0032":1}}`,
			csr.Options{}, ndBuild(12, false, nil, "1|11:1")},
		{"byte order mark", "\xef\xbb\xbf" + `{"label":1,"features":{"2":1}}`,
			csr.Options{}, ndBuild(2, false, nil, "1|1:1")},
		{"leading zeros in keys", `{"label":1,"features":{"007":1}}`,
			csr.Options{}, ndBuild(7, false, nil, "1|6:1")},
		{"MaxFeatures at the cap", `{"label":1,"features":{"10":1}}`,
			csr.Options{MaxFeatures: 10}, ndBuild(10, false, nil, "1|9:1")},
		{"largest index", `{"label":1,"features":{"2147483647":1}}`,
			csr.Options{}, ndBuild(math.MaxInt32, false, nil, "1|2147483646:1")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d, err := ndBoth(t, tc.text, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			if diff := csrtest.Diff(d, tc.want); diff != "" {
				t.Fatal(diff)
			}
			if d.InputBytes != int64(len(tc.text)) {
				t.Errorf("InputBytes %d", d.InputBytes)
			}
			for i, v := range d.Value {
				if math.Signbit(v) && v == 0 {
					t.Errorf("value %d is -0", i)
				}
			}
		})
	}
}

func TestNDJSONErrors(t *testing.T) {
	cases := []struct {
		text string
		opt  csr.Options
		want string // "line:col: message" after the file name
	}{
		{"", csr.Options{}, "empty file: no data"},
		{"\n  \r\n", csr.Options{}, "no examples, only blank lines: no data"},
		{`{"label":1}` + "\n" + `{"label":1`, csr.Options{}, "2:11: expected ',' or '}' in the example, found end of input"},
		{`{"label":1,` + "\n" + `"features":{}}`, csr.Options{}, "1:12: expected a key in double quotes, found end of line"},
		{`{"features":{"1":1}}`, csr.Options{}, `1:1: missing "label"`},
		{`{}`, csr.Options{}, `1:1: missing "label"`},
		{`{"label":"1"}`, csr.Options{}, `1:10: "label" must be a number, found '"'`},
		{`{"label":true}`, csr.Options{}, `1:10: "label" must be a number, found "true"`},
		{`{"label":null}`, csr.Options{}, `1:10: "label" must be a number, found "null"`},
		{`{"label":NaN}`, csr.Options{}, `1:10: "label" must be a number, found "NaN"`},
		{`{"label":-Infinity}`, csr.Options{}, `1:10: "label" must be a number, found "-Infinity"`},
		{`{"label":1e999}`, csr.Options{}, `1:10: label "1e999" is not a finite number`},
		{`{"label":1,"features":{"1":-1e400}}`, csr.Options{}, `1:28: value "-1e400" for feature 1 is not a finite number`},
		{`{"label":1,"features":{"1":1e39}}`, csr.Options{Float32: true}, `1:28: value "1e39" for feature 1 is out of float32 range`},
		{`{"label":+1}`, csr.Options{}, `1:10: "label" must be a number, found "+1"`},
		{`{"label":01}`, csr.Options{}, `1:10: invalid number "01" (leading zero)`},
		{`{"label":-01.5}`, csr.Options{}, `1:10: invalid number "-01.5" (leading zero)`},
		{`{"label":1.}`, csr.Options{}, `1:10: invalid number "1." (digits must follow '.')`},
		{`{"label":.5}`, csr.Options{}, `1:10: "label" must be a number, found ".5"`},
		{`{"label":1e}`, csr.Options{}, `1:10: invalid number "1e" (digits must follow the exponent)`},
		{`{"label":1x}`, csr.Options{}, `1:10: invalid number "1x"`},
		{`{"label":0x10}`, csr.Options{}, `1:10: invalid number "0x10"`},
		{`{"label":1,"label":2}`, csr.Options{}, `1:12: duplicate key "label"`},
		{`{"label":1,"weight":2}`, csr.Options{}, `1:12: unknown key "weight" (an example has only "label", "features" and "qid")`},
		{`{"label":1,"Label":2}`, csr.Options{}, `1:12: unknown key "Label"`},
		{`{"label":1,"features":[1,2]}`, csr.Options{}, `1:23: "features" must be an object of feature numbers to values, found '['`},
		{`{"label":1,"features":{"1":1},"features":{}}`, csr.Options{}, `1:31: duplicate key "features"`},
		{`{"label":1,"features":{"a":1}}`, csr.Options{}, `1:24: feature key "a" is not a feature number (decimal digits)`},
		{`{"label":1,"features":{"-1":1}}`, csr.Options{}, `1:24: feature key "-1" is not a feature number`},
		{`{"label":1,"features":{"":1}}`, csr.Options{}, `1:24: empty feature key ""`},
		{`{"label":1,"features":{"0":1}}`, csr.Options{}, `1:24: feature index 0 is not allowed: indices start at 1`},
		{`{"label":1,"features":{"2147483648":1}}`, csr.Options{}, `1:24: feature index 2147483648 is too large (at most 2147483647 features are supported)`},
		{`{"label":1,"features":{"2147483647":1}}`, csr.Options{ZeroBased: true}, `1:24: feature index 2147483647 is too large`},
		{`{"label":1,"features":{"99999999999999999999999":1}}`, csr.Options{}, `is too large`},
		{`{"label":1,"features":{"11":1}}`, csr.Options{MaxFeatures: 10}, `1:24: feature index 11 exceeds the cap of 10 features (Options.MaxFeatures = 11 reads this file)`},
		{`{"label":1,"features":{"1":"x"}}`, csr.Options{}, `1:28: the value of feature 1 must be a number, found '"'`},
		{`{"label":1,"features":{"1":1,"1":2}}`, csr.Options{}, `1:30: duplicate feature 1`},
		{`{"label":1,"features":{"5":1,"2":1,"5":2}}`, csr.Options{}, `t.ndjson:1: duplicate feature 5`},
		{`{"label":1,"features":{"0":1,"3":1,"0":2}}`, csr.Options{ZeroBased: true}, `t.ndjson:1: duplicate feature 0`},
		{`{"label":1,"features":{"1":1}`, csr.Options{}, `1:30: expected ',' or '}' in the example, found end of input`},
		{`{"label":1,"features":{"1":1 "2":1}}`, csr.Options{}, `1:30: expected ',' or '}' in "features", found '"'`},
		{`{"label":1,"features":{"1" 1}}`, csr.Options{}, `1:28: expected ':' after feature key "1", found '1'`},
		{`{"label" 1}`, csr.Options{}, `1:10: expected ':' after key "label", found '1'`},
		{`{"label":1,}`, csr.Options{}, `1:12: expected a key in double quotes, found '}'`},
		{`{"label":1} {"label":2}`, csr.Options{}, `1:13: unexpected '{' after the example's closing '}' (one JSON object per line)`},
		{`{"label":1}x`, csr.Options{}, `1:12: unexpected 'x' after the example's closing '}'`},
		{`[{"label":1}]`, csr.Options{}, `1:1: an example must be a JSON object, not an array`},
		{`"label"`, csr.Options{}, `1:1: expected '{' to start an example (one JSON object per line), found '"'`},
		{"\v{\"label\":1}", csr.Options{}, `1:1: expected '{' to start an example (one JSON object per line), found byte 0x0b`},
		{"{\"label\":1}\f", csr.Options{}, `1:12: unexpected byte 0x0c after the example's closing '}'`},
		{"{\"label\":1}\u00a0", csr.Options{}, `1:12: unexpected byte 0xc2 after the example's closing '}'`},
		{"{\"label\":1,\"features\":{\"1\":1}}\x00", csr.Options{}, `1:31: unexpected byte 0x00 after`},
		{"\xef\xbb\xbf" + `{"label":x}`, csr.Options{}, `1:13: "label" must be a number, found "x"`},
		{"\xef\xbb\xbf\xef\xbb\xbf{}", csr.Options{}, `1:4: expected '{' to start an example (one JSON object per line), found byte 0xef`},
		{`{"label":1,"qid":1.5}`, csr.Options{}, `1:18: qid "1.5" is not an integer`},
		{`{"label":1,"qid":1e2}`, csr.Options{}, `1:18: qid "1e2" is not an integer`},
		{`{"label":1,"qid":9223372036854775808}`, csr.Options{KeepQID: true}, `1:18: qid "9223372036854775808" is out of the int64 range`},
		{`{"label":1,"qid":"7"}`, csr.Options{}, `1:18: "qid" must be a number, found '"'`},
		{`{"label":1,"qid":1,"qid":1}`, csr.Options{}, `1:20: duplicate key "qid"`},
		{`{"lab` + "\n" + `el":1}`, csr.Options{}, `1:2: unterminated string (a string cannot span lines)`},
		{`{"label":1,"features":{"1` + "\t" + `":1}}`, csr.Options{}, `1:26: control character 0x09 in a string (must be escaped)`},
		{`{"label":1,"features":{"\x31":1}}`, csr.Options{}, `1:25: invalid escape "\\x" in a string`},
		{`{"label":1,"features":{"\u003":1}}`, csr.Options{}, `1:25: invalid \u escape in a string`},
		{`{"l\u 061bel":0}`, csr.Options{}, `1:4: invalid \u escape in a string`},
		{`{"label":1,"features":{"\u00e9":1}}`, csr.Options{}, `1:24: feature key "é" is not a feature number`},
		{`{"label":1,"features":{"1":1}}` + "\n\n\n" + `{"label":1,"features":{"1":}}`, csr.Options{}, `4:28: the value of feature 1 must be a number, found '}'`},
		{`{"label":1,"features":{"1":1}}` + "\n" + `{"label":-}`, csr.Options{}, `2:10: "label" must be a number, found "-"`},
		{`{"label":1,"features":{"1":1}}` + "\n" + `{"label":1e`, csr.Options{}, `2:10: invalid number "1e" (digits must follow the exponent)`},
	}
	for _, tc := range cases {
		_, err := ndBoth(t, tc.text, tc.opt)
		if err == nil {
			t.Errorf("%q: no error, want %q", tc.text, tc.want)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, tc.want) || !strings.HasPrefix(msg, "t.ndjson:") {
			t.Errorf("%q:\n got %s\nwant %s", tc.text, msg, tc.want)
		}
		// Every error is a *csr.ParseError, but those for inputs without
		// data, which are *csr.NoDataError (io wraps its ErrNoData).
		var pe *csr.ParseError
		var nd *csr.NoDataError
		if errors.As(err, &pe) == errors.As(err, &nd) {
			t.Errorf("%q: ParseError %v, NoDataError %v: %v", tc.text, errors.As(err, &pe), errors.As(err, &nd), err)
		}
		if strings.Contains(tc.want, "no data") != errors.As(err, &nd) {
			t.Errorf("%q: NoDataError: %v", tc.text, errors.As(err, &nd))
		}
	}
}

// ndRandomFile writes random valid NDJSON and the dataset it should give;
// with escapes, about 1% of the feature keys are written with \u escapes.
func ndRandomFile(r *rand.Rand, rows int, opt csr.Options, escapes bool) (string, *csr.Matrix) {
	var sb strings.Builder
	maxIdx := int64(-1)
	d := &csr.Matrix{Rows: rows, RowPtr: []int64{0}, Index: []int32{}, Label: []float64{}}
	if opt.Float32 {
		d.Value32 = []float32{}
	} else {
		d.Value = []float64{}
	}
	anyQID := false
	var qids []int64
	ws := func() string {
		switch r.IntN(8) {
		case 0:
			return " "
		case 1:
			return "\t "
		}
		return ""
	}
	base := int64(1)
	if opt.ZeroBased {
		base = 0
	}
	for i := 0; i < rows; i++ {
		for r.IntN(20) == 0 { // blank lines
			sb.WriteString([]string{"", " ", "\t", "\r"}[r.IntN(4)] + "\n")
		}
		// Features: distinct indices in random order.
		n := r.IntN(12)
		if r.IntN(50) == 0 {
			n = 200 + r.IntN(300)
		}
		set := map[int32]bool{}
		var idx []int32
		for len(idx) < n {
			var j int32
			switch r.IntN(4) {
			case 0:
				j = r.Int32N(10)
			case 1:
				j = r.Int32N(1000)
			default:
				j = r.Int32N(1 << 20)
			}
			if !set[j] {
				set[j] = true
				idx = append(idx, j)
			}
		}
		vals := make([]string, n)
		for k := range vals {
			vals[k] = ndRandomNumber(r)
		}
		labelText := ndRandomNumber(r)
		if r.IntN(2) == 0 {
			labelText = []string{"1", "-1", "0", "2", "-0"}[r.IntN(5)]
		}
		var q int64
		hasQ := r.IntN(3) == 0
		if hasQ {
			anyQID = true
			q = r.Int64N(1000) - 10
			if r.IntN(20) == 0 {
				q = math.MinInt64 + r.Int64N(10)
			}
		}
		// The line, with top-level keys in random order.
		parts := []string{`"label"` + ws() + ":" + ws() + labelText}
		if n > 0 || r.IntN(2) == 0 {
			var f strings.Builder
			f.WriteString(`"features"` + ws() + ":" + ws() + "{" + ws())
			for k, j := range idx {
				if k > 0 {
					f.WriteString(ws() + "," + ws())
				}
				key := strconv.FormatInt(int64(j)+base, 10)
				if escapes && r.IntN(100) == 0 {
					key = `\u00` + strconv.FormatInt(0x30+int64(key[0]-'0'), 16) + key[1:]
				}
				f.WriteString(`"` + key + `"` + ws() + ":" + ws() + vals[k])
			}
			f.WriteString(ws() + "}")
			parts = append(parts, f.String())
		}
		if hasQ {
			parts = append(parts, `"qid":`+ws()+strconv.FormatInt(q, 10))
		}
		r.Shuffle(len(parts), func(a, b int) { parts[a], parts[b] = parts[b], parts[a] })
		sb.WriteString(ws() + "{" + ws() + strings.Join(parts, ws()+","+ws()) + ws() + "}" + ws())
		if i < rows-1 || r.IntN(2) == 0 {
			if r.IntN(10) == 0 {
				sb.WriteString("\r")
			}
			sb.WriteString("\n")
		}

		// Expected row.
		y, _ := strconv.ParseFloat(labelText, 64)
		d.Label = append(d.Label, y+0) // +0 turns -0 into 0
		order := make([]int, n)
		for k := range order {
			order[k] = k
		}
		sort.Slice(order, func(a, b int) bool { return idx[order[a]] < idx[order[b]] })
		for _, k := range order {
			v, _ := strconv.ParseFloat(vals[k], 64)
			v += 0
			d.Index = append(d.Index, idx[k])
			if opt.Float32 {
				d.Value32 = append(d.Value32, float32(v))
			} else {
				d.Value = append(d.Value, v)
			}
			maxIdx = max(maxIdx, int64(idx[k]))
		}
		d.RowPtr = append(d.RowPtr, int64(len(d.Index)))
		qids = append(qids, q)
	}
	d.Features = int(maxIdx + 1)
	if opt.KeepQID && anyQID {
		d.QID = qids
	}
	return sb.String(), d
}

// ndRandomNumber is a random JSON number: integers, decimals, exponents,
// negatives, long mantissas, tiny and huge magnitudes (within float32).
func ndRandomNumber(r *rand.Rand) string {
	switch r.IntN(10) {
	case 0:
		return strconv.Itoa(r.IntN(100) - 50)
	case 1:
		return strconv.FormatFloat(r.NormFloat64(), 'g', -1, 64)
	case 2:
		return strconv.FormatFloat(r.NormFloat64()*math.Pow(10, float64(r.IntN(60)-30)), 'e', r.IntN(17), 64)
	case 3:
		return strconv.FormatFloat(r.Float64(), 'f', r.IntN(25), 64)
	case 4: // many digits
		var b strings.Builder
		if r.IntN(2) == 0 {
			b.WriteString("-")
		}
		b.WriteString(strconv.Itoa(1 + r.IntN(9)))
		for k := r.IntN(30); k > 0; k-- {
			b.WriteByte(byte('0' + r.IntN(10)))
		}
		if r.IntN(2) == 0 {
			b.WriteString(".")
			for k := 1 + r.IntN(30); k > 0; k-- {
				b.WriteByte(byte('0' + r.IntN(10)))
			}
		}
		if r.IntN(2) == 0 {
			fmt.Fprintf(&b, "%c%+d", "eE"[r.IntN(2)], r.IntN(40)-20-len(b.String())/2)
		}
		return b.String()
	case 5:
		return []string{"0", "-0", "0.0", "-0.0", "0e5", "1E3", "1e+2", "2.5E-3", "0.000001", "1e-300", "1e-330", "9007199254740993"}[r.IntN(12)]
	case 6:
		return strconv.FormatFloat(float64(float32(r.NormFloat64())), 'g', -1, 32)
	default:
		return strconv.FormatFloat(math.Round(r.NormFloat64()*1000)/1000, 'f', -1, 64)
	}
}

func TestNDJSONRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	oldChunk := ndjsonChunkBytes
	defer func() { ndjsonChunkBytes = oldChunk }()
	opts := []csr.Options{
		{},
		{Float32: true, KeepQID: true},
		{ZeroBased: true, KeepQID: true, Threads: 3},
		{Threads: 1},
	}
	rows := 3000
	if testing.Short() {
		rows = 500
	}
	for k, opt := range opts {
		text, want := ndRandomFile(r, rows, opt, k == 2)
		for _, chunk := range []int{oldChunk, 4096, 200} {
			ndjsonChunkBytes = chunk
			t.Run(fmt.Sprintf("opt%d/chunk%d", k, chunk), func(t *testing.T) {
				d, err := ndBoth(t, text, opt)
				if err != nil {
					t.Fatal(err)
				}
				if diff := csrtest.Diff(d, want); diff != "" {
					t.Fatal(diff)
				}
			})
		}
	}
}

// TestNDJSONRandomErrors breaks random valid files in random places: both
// paths must report the same error (or the same data), at the same place
// whatever the chunking.
func TestNDJSONRandomErrors(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	oldChunk := ndjsonChunkBytes
	defer func() { ndjsonChunkBytes = oldChunk }()
	text, _ := ndRandomFile(r, 300, csr.Options{}, false)
	junk := []string{"", "x", "}", "{", `"`, ",", ":", "\n", "-", "0", "e", ".", "\\", " ", "\x00", "\xff", "[", "]", "1e999", "-01", "\v", `"1":1,`}
	n := 400
	if testing.Short() {
		n = 60
	}
	for k := 0; k < n; k++ {
		b := []byte(text)
		at := r.IntN(len(b))
		cut := r.IntN(3)
		mutated := string(b[:at]) + junk[r.IntN(len(junk))] + string(b[min(at+cut, len(b)):])
		var ref error
		for i, chunk := range []int{oldChunk, 300} {
			ndjsonChunkBytes = chunk
			_, err := ndBoth(t, mutated, csr.Options{KeepQID: true})
			if i == 0 {
				ref = err
			} else if (err == nil) != (ref == nil) || (err != nil && err.Error() != ref.Error()) {
				t.Fatalf("chunk %d: %v; one chunk: %v", chunk, err, ref)
			}
		}
	}
}

// FuzzNDJSON parses on both paths (ndBoth checks that they agree) and
// checks the result against refNDJSON, the simple reader on encoding/json:
// the same error line, or the same dataset bit for bit, and that a small
// input allocates little. flags picks the
// options, the thread count and tiny chunks. Seeds in
// testdata/fuzz/FuzzNDJSON (written by TestFuzzSeeds) hold small
// valid and broken files.
func FuzzNDJSON(f *testing.F) {
	for _, s := range []string{
		`{"label": 1, "features": {"3": 0.5, "17": 1}}`,
		`{"label":-1,"qid":3,"features":{"2":1e-3,"1":-0.5}}` + "\n\n" + `{"label":0}`,
		`{"label":1,"features":{"1":-01.5}}`,
		`{"l\u0061bel":1}`,
		"{\"label\":1}\r\n{\"label\":2}\v",
		`{"label":1,"features":{"1":1,"1":2}}`,
		`[1,2]`,
	} {
		f.Add(s, uint8(0))
		f.Add(s, uint8(0x17))
	}
	f.Fuzz(func(t *testing.T, s string, flags uint8) {
		opt := csr.Options{ZeroBased: flags&1 != 0, Float32: flags&2 != 0, KeepQID: flags&4 != 0, Threads: 1 + int(flags>>6)}
		if flags&8 != 0 {
			opt.MaxFeatures = 1000
		}
		if flags&16 != 0 {
			old := ndjsonChunkBytes
			ndjsonChunkBytes = 1 + int(flags>>5&1)*30
			defer func() { ndjsonChunkBytes = old }()
		}
		var d *csr.Matrix
		var err error
		csrtest.CheckAllocBound(t, len(s), func() { d, err = ndBoth(t, s, opt) })
		ref, line, rerr := refNDJSON(s, opt)
		if (err == nil) != (rerr == nil) {
			t.Fatalf("error %v, reference error %v", err, rerr)
		}
		if err != nil {
			var pe *csr.ParseError
			var nd *csr.NoDataError
			if errors.As(err, &pe) {
				if pe.Line != line {
					t.Fatalf("error %v, reference error %v", err, rerr)
				}
			} else if !errors.As(err, &nd) || line != 0 {
				t.Fatalf("error %v, reference error %v", err, rerr)
			}
			return
		}
		if diff := csrtest.Diff(d, ref); diff != "" {
			t.Fatalf("differs from the reference: %s", diff)
		}
		if err := csr.Check(d, 1); err != nil {
			t.Fatalf("invalid dataset: %v", err)
		}
	})
}

// BenchmarkNDJSON parses ~30 MB of generated NDJSON on each path: rows of
// about 40 features with short values ("%.4g") or full-precision ones
// ("%.17g"). MB/cpu-s is throughput per CPU second, which does not depend
// on how busy the machine is.
//
//	go test ./io/internal/ndjson -run '^$' -bench NDJSON
func BenchmarkNDJSON(b *testing.B) {
	for _, shape := range []struct{ name, format string }{{"short", "%.4g"}, {"long", "%.17g"}} {
		r := rand.New(rand.NewPCG(25, 26))
		var sb strings.Builder
		for sb.Len() < 30<<20 {
			fmt.Fprintf(&sb, `{"label": %d, "features": {`, r.IntN(2)*2-1)
			n := 20 + r.IntN(40)
			j := 0
			for k := 0; k < n; k++ {
				j += 1 + r.IntN(2000)
				if k > 0 {
					sb.WriteString(", ")
				}
				fmt.Fprintf(&sb, `"%d": `+shape.format, j, r.NormFloat64())
			}
			sb.WriteString("}}\n")
		}
		data := []byte(sb.String())
		for _, p := range []int{ndjsonScalar, ndjsonSIMD} {
			for _, threads := range []int{1, 0} {
				name := fmt.Sprintf("%s/%s/threads=%d", shape.name, ndPathNames[p], threads)
				b.Run(name, func(b *testing.B) {
					if p == ndjsonSIMD && !simdAvailable() {
						b.Skip("simdjson not supported on this CPU")
					}
					old := ndjsonPath
					ndjsonPath = p
					defer func() { ndjsonPath = old }()
					b.SetBytes(int64(len(data)))
					cpu0 := csrtest.CPUSeconds()
					b.ResetTimer()
					for i := 0; i < b.N; i++ {
						if _, err := Parse("bench", data, csr.Options{Threads: threads}); err != nil {
							b.Fatal(err)
						}
					}
					b.StopTimer()
					if cpu := csrtest.CPUSeconds() - cpu0; cpu > 0 {
						b.ReportMetric(float64(len(data))*float64(b.N)/cpu/1e6, "MB/cpu-s")
					}
				})
			}
		}
	}
}
