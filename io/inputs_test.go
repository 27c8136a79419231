package dataio

import (
	"bytes"
	"compress/gzip"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acfcd/acfcd/internal/testkit"
)

// Small real and broken inputs with the message each gets (empty: valid).
// TestInputMessages checks the messages; TestFuzzSeeds keeps them as
// the seed corpus of FuzzLibSVM (io/internal/ndjson and io/internal/cache
// have their own).
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
	{"idx-0", "1 0:1\n", "f:1:3: feature index 0 is not allowed: indices start at 1 (Options.ZeroBased reads 0-based files)"},
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

func TestInputMessages(t *testing.T) {
	for _, in := range libsvmInputs {
		for _, minChunk := range []int{1, 1 << 20} {
			_, err := parseLibSVM("f", splitLines([]byte(in.text), 4, minChunk), Options{Threads: 2})
			if got := fmt.Sprint(err); (err == nil) != (in.want == "") || (err != nil && got != in.want) {
				t.Errorf("libsvm %s (chunks of %d):\n got  %v\n want %s", in.name, minChunk, err, in.want)
			}
		}
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
		if n := testkit.Allocated(func() { d, err = Load(path, Options{}) }); n > limit {
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
		if n := testkit.Allocated(func() { d, err = Load(cache, Options{}) }); n > limit {
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
		if err == nil || !strings.Contains(err.Error(), "2147483647 exceeds the cap of 1000 features (Options.MaxFeatures = 2147483647 reads this file)") {
			t.Errorf("%s with MaxFeatures: %v", name, err)
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

var updateSeeds = flag.Bool("update-seeds", false, "rewrite testdata/fuzz/FuzzLibSVM from the inputs")

// TestFuzzSeeds: testdata/fuzz/FuzzLibSVM holds a seed for each of the
// inputs above (-update-seeds writes them), so that plain `go test` runs
// every one through FuzzLibSVM.
func TestFuzzSeeds(t *testing.T) {
	seeds := map[string]string{}
	for i, in := range libsvmInputs {
		// threads, chunk size and flags vary a little from seed to seed.
		seeds[in.name] = fmt.Sprintf("go test fuzz v1\n[]byte(%q)\nbyte(%q)\nuint16(%d)\nbyte(%q)\n",
			in.text, byte(i%4), uint16(i%3*5), byte(i%2*3))
	}
	testkit.Seeds(t, filepath.Join("testdata", "fuzz", "FuzzLibSVM"), seeds, *updateSeeds)
}
