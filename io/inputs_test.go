package dataio

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Small real and broken inputs with the message each gets (empty: valid).
// TestInputMessages checks the messages; TestWriteFuzzSeeds writes them as
// the seed corpora of FuzzLibSVM and FuzzNDJSON.
var libsvmInputs = []struct{ name, text, want string }{
	{"valid", "1 1:0.5 3:2\n-1 2:1\n", ""},
	{"valid-comments-qid", "# header\n+1 qid:3 1:1e-3 2:-0 # x\n\n-1\t4:.5\n2\n", ""},
	{"crlf", "1 1:1\r\n-1 2:1\r\n", ""},
	{"no-final-newline", "1 1:1\n-1 2:1", ""},
	{"bom", "\ufeff1 1:1\n", ""},
	{"labels-only", "1\n-1\n", ""},
	{"huge-labels", "1e308 1:1\n-1.7976931348623157e308 2:1\n", ""},
	{"regression-labels", "0.5 1:1\n1.7 2:1\n-3.25 1:2\n", ""},
	{"tiny-values", "1 1:4.9e-324 2:1e-400\n", ""},
	{"idx-2147483647", "1 2147483647:1\n", ""},
	{"idx-leading-zeros", "1 0000000000002:1\n", ""},
	{"idx-0", "1 0:1\n", "f:1:3: feature index 0 is not allowed: indices start at 1 (set ZeroBased for 0-based files)"},
	{"idx-negative", "1 -3:1\n", `f:1:3: invalid feature index "-3" (expected an integer >= 1)`},
	{"idx-decreasing", "1 3:1 2:1\n", "f:1:7: feature index 2 is not greater than the previous index 3 (indices must be strictly increasing within a row)"},
	{"idx-duplicate", "1 2:1 2:1\n", "f:1:7: feature index 2 is not greater than the previous index 2 (indices must be strictly increasing within a row)"},
	{"idx-2147483648", "1 2147483648:1\n", "f:1:3: feature index 2147483648 is too large (at most 2147483647 features are supported)"},
	{"idx-20-digits", "1 99999999999999999999:1\n", "f:1:3: feature index 99999999999999999999 is too large (at most 2147483647 features are supported)"},
	{"idx-float", "1 1.5:1\n", `f:1:3: invalid feature index "1.5" (expected an integer >= 1)`},
	{"idx-missing", "1 :5\n", `f:1:3: missing feature index before ':' in ":5"`},
	{"value-nan", "1 1:nan\n", `f:1:5: value "nan" for feature 1 is not a finite number`},
	{"value-inf", "1 1:-Inf\n", `f:1:5: value "-Inf" for feature 1 is not a finite number`},
	{"value-overflow", "1 1:1e400\n", `f:1:5: value "1e400" for feature 1 is not a finite number`},
	{"value-word", "1 1:abc\n", `f:1:5: invalid value "abc" for feature 1`},
	{"truncated-value", "1 1:0.5\n-1 3:", `f:2:6: missing value after "3:"`},
	{"truncated-colon", "1 1:0.5\n-1 3", `f:2:4: missing ':' in "3" (expected index:value)`},
	{"label-nan", "nan 1:1\n", `f:1:1: label "nan" is not a finite number`},
	{"label-inf", "1 1:1\ninf 2:1\n", `f:2:1: label "inf" is not a finite number`},
	{"label-overflow", "1e400 1:1\n", `f:1:1: label "1e400" is not a finite number`},
	{"label-word", "yes 1:1\n", `f:1:1: invalid label "yes"`},
	{"qid-twice", "1 qid:1 qid:2 1:1\n", "f:1:9: qid: may only appear once, right after the label"},
	{"qid-float", "1 qid:1.5 1:1\n", `f:1:7: invalid qid "1.5"`},
	{"crlf-bad-line", "1 1:1\r\n1 1:x\r\n", `f:2:5: invalid value "x" for feature 1`},
	{"binary-garbage", "\x00\x01\x02binary\xff\n", `f:1:1: invalid label "\x00\x01\x02binary\xff"`},
	{"nul-in-line", "1 1:1\x002:1\n", `f:1:5: invalid value "1\x002:1" for feature 1`},
	{"only-comments", "# nothing\n\n   \n", "f: no rows, only blank lines and comments: no data"},
}

var ndjsonInputs = []struct{ name, text, want string }{
	{"valid", `{"label": 1, "features": {"3": 0.5, "17": 1}}` + "\n" + `{"label": -1}` + "\n", ""},
	{"valid-qid-unordered", `{"features": {"17": 2.5e-3, "4": -1}, "qid": 7, "label": -1}` + "\n", ""},
	{"crlf-blank-lines", "{\"label\":1}\r\n\r\n  \n{\"label\":2,\"features\":{\"1\":1}}\r\n", ""},
	{"no-final-newline", `{"label":1}` + "\n" + `{"label":0,"features":{"2":3}}`, ""},
	{"bom", "\ufeff{\"label\":1}\n", ""},
	{"huge-labels", `{"label":1e308}` + "\n" + `{"label":-1.7976931348623157e308}` + "\n", ""},
	{"idx-2147483647", `{"label":1,"features":{"2147483647":1}}` + "\n", ""},
	{"escaped-key", `{"l\u0061bel":1,"features":{"\u0031":2}}` + "\n", ""},
	{"idx-0", `{"label":1,"features":{"0":1}}`, "f:1:24: feature index 0 is not allowed: indices start at 1 (set ZeroBased for 0-based files)"},
	{"idx-negative", `{"label":1,"features":{"-3":1}}`, `f:1:24: feature key "-3" is not a feature number (decimal digits)`},
	{"idx-duplicate", `{"label":1,"features":{"2":1,"2":1}}`, "f:1:30: duplicate feature 2"},
	{"idx-duplicate-after-sort", `{"label":1,"features":{"02":1,"1":1,"2":1}}`, "f:1: duplicate feature 2"},
	{"idx-2147483648", `{"label":1,"features":{"2147483648":1}}`, `f:1:24: feature index 2147483648 is too large (at most 2147483647 features are supported)`},
	{"value-nan", `{"label":1,"features":{"1":NaN}}`, `f:1:28: the value of feature 1 must be a number, found "NaN"`},
	{"value-infinity", `{"label":1,"features":{"1":-Infinity}}`, `f:1:28: the value of feature 1 must be a number, found "-Infinity"`},
	{"value-overflow", `{"label":1,"features":{"1":1e400}}`, `f:1:28: value "1e400" for feature 1 is not a finite number`},
	{"value-string", `{"label":1,"features":{"1":"2"}}`, `f:1:28: the value of feature 1 must be a number, found '"'`},
	{"label-overflow", `{"label":-1e400}`, `f:1:10: label "-1e400" is not a finite number`},
	{"label-string", `{"label":"1"}`, `f:1:10: "label" must be a number, found '"'`},
	{"label-missing", `{"features":{"1":1}}`, `f:1:1: missing "label"`},
	{"unknown-key", `{"label":1,"weight":2}`, `f:1:12: unknown key "weight" (an example has only "label", "features" and "qid")`},
	{"qid-float", `{"label":1,"qid":1.5}`, `f:1:18: qid "1.5" is not an integer`},
	{"truncated-line", `{"label":1}` + "\n" + `{"label":1,"features":{"1":`, `f:2:28: the value of feature 1 must be a number, found end of input`},
	{"split-object", "{\"label\":1,\n\"features\":{}}\n", `f:1:12: expected a key in double quotes, found end of line (an example must be on one line)`},
	{"two-objects-one-line", `{"label":1} {"label":2}`, `f:1:13: unexpected '{' after the example's closing '}' (one JSON object per line)`},
	{"array", `[1,2]`, `f:1:1: an example must be a JSON object, not an array`},
	{"binary-garbage", "{\"label\":1}\n\x00\x01\x02\xff\n", `f:2:1: expected '{' to start an example (one JSON object per line), found byte 0x00`},
	{"leading-zero", `{"label":01}`, `f:1:10: invalid number "01" (leading zero)`},
	{"bad-escape", `{"label":1,"features":{"\u 031":1}}`, `f:1:25: invalid \u escape in a string`},
	{"only-blank", "\n \r\n\t\n", "f: no examples, only blank lines: no data"},
}

func TestInputMessages(t *testing.T) {
	for _, in := range libsvmInputs {
		for _, minChunk := range []int{1, 1 << 20} {
			_, err := parseLibSVM("f", splitLines([]byte(in.text), 4, minChunk), Options{Threads: 2})
			if got := fmt.Sprint(err); (err == nil) != (in.want == "") || (err != nil && got != in.want) {
				t.Errorf("libsvm %s (chunks of %d):\n got  %v\n want %s", in.name, minChunk, err, in.want)
			}
		}
	}
	for _, in := range ndjsonInputs {
		for _, p := range ndPaths(t) {
			_, err := ndParse(p, in.text, Options{})
			if err != nil {
				err = fmt.Errorf("%s", strings.Replace(err.Error(), "t.ndjson", "f", 1))
			}
			if got := fmt.Sprint(err); (err == nil) != (in.want == "") || (err != nil && got != in.want) {
				t.Errorf("ndjson %s (%s):\n got  %v\n want %s", in.name, ndPathNames[p], err, in.want)
			}
		}
	}
}

// allocated returns the bytes the Go heap handed out while f ran.
func allocated(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// checkAllocBound fails t if f, reading an input of n bytes, allocates
// more than 1 MiB + 512 bytes per input byte: a small file must not make
// the readers allocate by what it claims.
func checkAllocBound(t *testing.T, n int, f func()) {
	t.Helper()
	if a, limit := allocated(f), uint64(1<<20+512*n); a > limit {
		t.Fatalf("a %d-byte input allocated %d bytes (limit %d)", n, a, limit)
	}
}

// TestHugeIndexBounded: a row naming feature 2147483647 loads (the data
// are sparse) without allocating anything of the feature count's size, in
// every format, and the cache written from it too.
func TestHugeIndexBounded(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"huge.svm":    "1 2147483647:1\n-1 1:1\n",
		"huge.ndjson": `{"label":1,"features":{"2147483647":1}}` + "\n" + `{"label":-1,"features":{"1":1}}` + "\n",
	}
	const limit = 4 << 20
	for name, text := range files {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		var d *Dataset
		var err error
		if n := allocated(func() { d, err = Load(path, Options{}) }); n > limit {
			t.Errorf("%s: loading allocated %d bytes", name, n)
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if d.Features != math.MaxInt32 || d.Rows != 2 || d.NNZ() != 2 {
			t.Fatalf("%s: %d rows, %d features, %d non-zeros", name, d.Rows, d.Features, d.NNZ())
		}
		if got, want := d.Where(0), path+":1"; got != want {
			t.Errorf("%s: Where(0) = %q, want %q", name, got, want)
		}
		cache := path + ".acf"
		if err := WriteCache(cache, d); err != nil {
			t.Fatal(err)
		}
		if n := allocated(func() { d, err = Load(cache, Options{}) }); n > limit {
			t.Errorf("%s: loading the cache allocated %d bytes", name, n)
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if d.Features != math.MaxInt32 {
			t.Errorf("%s: cache has %d features", name, d.Features)
		}
		if got, want := d.Where(1), cache+": example 2"; got != want {
			t.Errorf("%s: Where(1) = %q, want %q", name, got, want)
		}
		d.Close()
		// --max-features rejects the index with a message that names it.
		_, err = Load(path, Options{MaxFeatures: 1000})
		if err == nil || !strings.Contains(err.Error(), "2147483647 exceeds the cap of 1000 features (--max-features") {
			t.Errorf("%s with MaxFeatures: %v", name, err)
		}
	}
}

// TestCacheAbsurdHeaderBounded: a cache header that claims absurd counts
// is rejected, with a message, before anything of that size is allocated.
func TestCacheAbsurdHeaderBounded(t *testing.T) {
	full := cnSmallCache(t)
	le := binary.LittleEndian
	n := len(full)
	cases := []struct {
		name string
		b    []byte
		want string
	}{
		{"rows 2^40", cnRewriteHeader(full, func(h []byte) { le.PutUint64(h[chRows:], 1<<40) }),
			fmt.Sprintf("corrupt cache: 1099511627776 rows cannot fit in %d bytes", n)},
		{"rows 2^64-1", cnRewriteHeader(full, func(h []byte) { le.PutUint64(h[chRows:], math.MaxUint64) }),
			fmt.Sprintf("corrupt cache: 18446744073709551615 rows cannot fit in %d bytes", n)},
		{"nnz 2^40", cnRewriteHeader(full, func(h []byte) { le.PutUint64(h[chNNZ:], 1<<40) }),
			fmt.Sprintf("corrupt cache: 1099511627776 non-zeros cannot fit in %d bytes", n)},
		{"features 2^40", cnRewriteHeader(full, func(h []byte) { le.PutUint64(h[chFeatures:], 1<<40) }),
			"corrupt cache: 1099511627776 features exceeds the int32 index limit"},
		{"file size 2^40", cnRewriteHeader(full, func(h []byte) { le.PutUint64(h[chFileSize:], 1<<40) }),
			fmt.Sprintf("truncated cache: file is %d bytes, header says 1099511627776", n)},
		{"rows and nnz that fit alone", cnRewriteHeader(full, func(h []byte) {
			le.PutUint64(h[chRows:], uint64(n/8-1))
			le.PutUint64(h[chNNZ:], uint64(n/4))
		}), "does not match"},
		{"flipped header byte", func() []byte { b := bytes.Clone(full); b[chRows] ^= 0x40; return b }(),
			"corrupt cache: header checksum mismatch"},
		{"truncated", full[:n/2], fmt.Sprintf("truncated cache: file is %d bytes, header says %d", n/2, n)},
	}
	dir := t.TempDir()
	for _, tc := range cases {
		path := filepath.Join(dir, "x.acf")
		if err := os.WriteFile(path, tc.b, 0o644); err != nil {
			t.Fatal(err)
		}
		var err error
		if a := allocated(func() { _, err = Load(path, Options{}) }); a > 1<<20 {
			t.Errorf("%s: allocated %d bytes", tc.name, a)
		}
		if err == nil || !strings.HasPrefix(err.Error(), path+": ") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v; want %q", tc.name, err, tc.want)
		}
	}
}

// TestWhere: rows are located on their lines past comments, blank lines,
// CRLF, a byte order mark and compression, in subsets too; a stream or a
// cache gives the example number.
func TestWhere(t *testing.T) {
	dir := t.TempDir()
	svm := "\ufeff# header\n\n1 1:1\r\n  # indented comment\n\t\n-1 2:1\n1\n \v\f\n2 3:1"
	ndj := "\ufeff\n{\"label\":1}\r\n \t\r\n{\"label\":2}\n\n{\"label\":3}"
	for _, f := range []struct {
		name, text string
		lines      []int
	}{
		{"a.svm", svm, []int{3, 6, 7, 9}},
		{"a.ndjson", ndj, []int{2, 4, 6}},
	} {
		var gz bytes.Buffer
		zw := gzip.NewWriter(&gz)
		zw.Write([]byte(f.text))
		zw.Close()
		for _, v := range []struct {
			name string
			data []byte
		}{{f.name, []byte(f.text)}, {f.name + ".gz", gz.Bytes()}} {
			path := filepath.Join(dir, v.name)
			if err := os.WriteFile(path, v.data, 0o644); err != nil {
				t.Fatal(err)
			}
			d, err := Load(path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if d.Rows != len(f.lines) {
				t.Fatalf("%s: %d rows", v.name, d.Rows)
			}
			for r, line := range f.lines {
				if got, want := d.Where(r), fmt.Sprintf("%s:%d", path, line); got != want {
					t.Errorf("Where(%d) = %q, want %q", r, got, want)
				}
			}
			if got, want := d.Where(len(f.lines)), fmt.Sprintf("%s: example %d", path, len(f.lines)+1); got != want {
				t.Errorf("Where past the end = %q, want %q", got, want)
			}
			s := d.Subset([]int{2, 0})
			if got, want := s.Where(0), fmt.Sprintf("%s:%d", path, f.lines[2]); got != want {
				t.Errorf("subset Where(0) = %q, want %q", got, want)
			}
			if got, want := s.Where(5), path+": example 6"; got != want {
				t.Errorf("subset Where(5) = %q, want %q", got, want)
			}
			r, err := Read(bytes.NewReader(v.data), "pipe", Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := r.Where(1); got != "pipe: example 2" {
				t.Errorf("stream: Where(1) = %q", got)
			}
		}
	}
	if got := (&Dataset{}).Where(0); got != "example 1" {
		t.Errorf("no source: %q", got)
	}
}

// TestWriteFuzzSeeds writes the seed corpora in testdata/fuzz from the
// inputs above (and, for FuzzCache, small valid and broken caches) when
// ACFCD_WRITE_SEEDS=1; the files are checked in, and plain `go test` runs
// them as part of the fuzz tests.
func TestWriteFuzzSeeds(t *testing.T) {
	if os.Getenv("ACFCD_WRITE_SEEDS") != "1" {
		t.Skip("set ACFCD_WRITE_SEEDS=1 to rewrite testdata/fuzz")
	}
	write := func(target, name string, vals ...any) {
		var b strings.Builder
		b.WriteString("go test fuzz v1\n")
		for _, v := range vals {
			switch v := v.(type) {
			case []byte:
				fmt.Fprintf(&b, "[]byte(%q)\n", v)
			case string:
				fmt.Fprintf(&b, "string(%q)\n", v)
			case byte:
				fmt.Fprintf(&b, "byte(%q)\n", v)
			case uint16:
				fmt.Fprintf(&b, "uint16(%d)\n", v)
			default:
				t.Fatalf("type %T", v)
			}
		}
		dir := filepath.Join("testdata", "fuzz", target)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for i, in := range libsvmInputs {
		// threads, chunk size and flags vary a little from seed to seed.
		write("FuzzLibSVM", in.name, []byte(in.text), byte(i%4), uint16(i%3*5), byte(i%2*3))
	}
	for i, in := range ndjsonInputs {
		write("FuzzNDJSON", in.name, in.text, byte(i%2*0x13))
	}

	le := binary.LittleEndian
	small := cnSmallCache(t)
	f32 := func() []byte {
		d := &Dataset{Rows: 2, Features: 4, RowPtr: []int64{0, 2, 3}, Index: []int32{0, 3, 1},
			Value32: []float32{0.5, -2, 1e30}, Label: []float64{1, -1}, QID: []int64{7, 7}}
		path := filepath.Join(t.TempDir(), "f32.acf")
		if err := WriteCache(path, d); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(path)
		return b
	}()
	empty := func() []byte {
		path := filepath.Join(t.TempDir(), "empty.acf")
		if err := WriteCache(path, &Dataset{RowPtr: []int64{0}}); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(path)
		return b
	}()
	huge := func() []byte {
		d := &Dataset{Rows: 1, Features: math.MaxInt32, RowPtr: []int64{0, 1}, Index: []int32{math.MaxInt32 - 1},
			Value: []float64{1}, Label: []float64{1}}
		path := filepath.Join(t.TempDir(), "huge.acf")
		if err := WriteCache(path, d); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(path)
		return b
	}()
	flip := func(b []byte, i int) []byte { b = bytes.Clone(b); b[i] ^= 0x10; return b }
	secOff := func(b []byte, s int) int { return int(le.Uint64(b[chSections+s*chEntrySize:])) }
	caches := map[string][]byte{
		"valid":              small,
		"valid-float32-qid":  f32,
		"valid-empty":        empty,
		"valid-idx-max":      huge,
		"truncated-header":   small[:100],
		"truncated-sections": small[:len(small)-9],
		"flipped-header-crc": flip(small, chHeaderCRC+1),
		"flipped-index-byte": flip(small, secOff(small, secIndex)+1),
		"flipped-label-byte": flip(f32, secOff(f32, secLabel)+7),
		"trailing-byte":      append(bytes.Clone(small), 0),
		"absurd-rows":        cnRewriteHeader(small, func(h []byte) { le.PutUint64(h[chRows:], 1<<40) }),
		"absurd-nnz":         cnRewriteHeader(small, func(h []byte) { le.PutUint64(h[chNNZ:], math.MaxUint64) }),
		"absurd-features":    cnRewriteHeader(small, func(h []byte) { le.PutUint64(h[chFeatures:], 1<<40) }),
		"absurd-file-size":   cnRewriteHeader(small, func(h []byte) { le.PutUint64(h[chFileSize:], 1<<50) }),
		"future-version":     cnRewriteHeader(small, func(h []byte) { le.PutUint32(h[chVersion:], 2) }),
		"magic-only":         []byte(cacheMagic),
		"garbage":            []byte("ACFCDCSR\x01\x00\x00\x00\xff\xfe\xfd\xfc binary garbage \x00\x00"),
	}
	for name, b := range caches {
		write("FuzzCache", name, b)
	}
}
