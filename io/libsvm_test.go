package dataio

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/acfcd/acfcd/io/internal/csr"
	"github.com/acfcd/acfcd/io/internal/csrtest"
)

// parseText parses text as one mapped file would be, split for threads
// into chunks of at least minChunk bytes.
func parseText(text string, opt Options, minChunk int) (*Dataset, error) {
	threads := opt.Threads
	if threads <= 0 {
		threads = 1
	}
	return parseLibSVM("t.svm", splitLines([]byte(text), threads*chunksPerThread, minChunk), opt)
}

type row struct {
	label float64
	idx   []int32
	val   []float64
}

// build makes the dataset the parser must produce for rows.
func build(features int, opt Options, qid []int64, rows ...row) *Dataset {
	d := &Dataset{Rows: len(rows), Features: features, RowPtr: []int64{0}, Index: []int32{}, QID: qid}
	if opt.Float32 {
		d.Value32 = []float32{}
	} else {
		d.Value = []float64{}
	}
	for _, r := range rows {
		d.Label = append(d.Label, r.label)
		d.Index = append(d.Index, r.idx...)
		for _, v := range r.val {
			if opt.Float32 {
				d.Value32 = append(d.Value32, float32(v))
			} else {
				d.Value = append(d.Value, v)
			}
		}
		d.RowPtr = append(d.RowPtr, int64(len(d.Index)))
	}
	return d
}

func i32(x ...int32) []int32     { return x }
func f64(x ...float64) []float64 { return x }

func TestLibSVMValid(t *testing.T) {
	negZero := math.Copysign(0, -1)
	cases := []struct {
		name string
		text string
		opt  Options
		want *Dataset
	}{
		{"basic", "1 1:0.5 3:2\n-1 2:1\n", Options{},
			build(3, Options{}, nil, row{1, i32(0, 2), f64(0.5, 2)}, row{-1, i32(1), f64(1)})},
		{"no final newline", "1 1:1\n2 2:2", Options{},
			build(2, Options{}, nil, row{1, i32(0), f64(1)}, row{2, i32(1), f64(2)})},
		{"CRLF", "1 1:1\r\n-1 3:4\r\n", Options{},
			build(3, Options{}, nil, row{1, i32(0), f64(1)}, row{-1, i32(2), f64(4)})},
		{"CRLF no final newline", "1 1:1\r\n-1 3:4\r", Options{},
			build(3, Options{}, nil, row{1, i32(0), f64(1)}, row{-1, i32(2), f64(4)})},
		{"blank lines", "\n\n1 1:1\n   \n\t\r\n2 2:2\n\n", Options{},
			build(2, Options{}, nil, row{1, i32(0), f64(1)}, row{2, i32(1), f64(2)})},
		{"comments", "# header\n1 1:1 # trailing 9:9\n#x 2:2\n  # indented\n-1 2:3#tight 1:1\n", Options{},
			build(2, Options{}, nil, row{1, i32(0), f64(1)}, row{-1, i32(1), f64(3)})},
		{"empty rows", "1\n-1 # nothing\n2 1:1\n3#c\n", Options{},
			build(1, Options{}, nil, row{1, nil, nil}, row{-1, nil, nil}, row{2, i32(0), f64(1)}, row{3, nil, nil})},
		{"only empty rows", "1\n2\n", Options{},
			build(0, Options{}, nil, row{1, nil, nil}, row{2, nil, nil})},
		{"tabs and spaces", "1\t1:1  \t 2:2\t\n  -1   3:3", Options{},
			build(3, Options{}, nil, row{1, i32(0, 1), f64(1, 2)}, row{-1, i32(2), f64(3)})},
		{"VT and FF", "1\v1:1\f2:2", Options{},
			build(2, Options{}, nil, row{1, i32(0, 1), f64(1, 2)})},
		{"label forms", "+1 1:1\n1.0 1:1\n-1e0 1:1\n.5\n-0\n1e-3\n", Options{},
			build(1, Options{}, nil, row{1, i32(0), f64(1)}, row{1, i32(0), f64(1)}, row{-1, i32(0), f64(1)},
				row{0.5, nil, nil}, row{negZero, nil, nil}, row{0.001, nil, nil})},
		{"value forms", "0 1:-0 2:1e-320 3:0.30000000000000004 4:+.5 5:5. 6:1E3 7:123456789012345678901234567890 8:0x1p-2 9:1e-3", Options{},
			build(9, Options{}, nil, row{0, i32(0, 1, 2, 3, 4, 5, 6, 7, 8),
				f64(negZero, 1e-320, 0.30000000000000004, 0.5, 5, 1000, 123456789012345678901234567890, 0.25, 0.001)})},
		{"qid ignored", "3 qid:1 1:1\n2 qid:2 2:1\n", Options{},
			build(2, Options{}, nil, row{3, i32(0), f64(1)}, row{2, i32(1), f64(1)})},
		{"qid kept", "3 qid:1 1:1\n2  qid:2\t2:1\n", Options{KeepQID: true},
			build(2, Options{}, []int64{1, 2}, row{3, i32(0), f64(1)}, row{2, i32(1), f64(1)})},
		{"qid kept, some rows without", "3 qid:7 1:1\n1 2:1\n0 qid:-4\n", Options{KeepQID: true},
			build(2, Options{}, []int64{7, 0, -4}, row{3, i32(0), f64(1)}, row{1, i32(1), f64(1)}, row{0, nil, nil})},
		{"KeepQID without qids", "1 1:1\n", Options{KeepQID: true},
			build(1, Options{}, nil, row{1, i32(0), f64(1)})},
		{"zero-based", "1 0:1 5:2\n0 0:3\n", Options{ZeroBased: true},
			build(6, Options{}, nil, row{1, i32(0, 5), f64(1, 2)}, row{0, i32(0), f64(3)})},
		{"float32", "1 1:0.1 2:3e38 3:1e-50\n", Options{Float32: true},
			build(3, Options{Float32: true}, nil, row{1, i32(0, 1, 2), f64(0.1, 3e38, 1e-50)})},
		{"MaxFeatures reached", "1 10:1\n", Options{MaxFeatures: 10},
			build(10, Options{}, nil, row{1, i32(9), f64(1)})},
		{"largest index", "1 2147483647:1\n", Options{},
			build(2147483647, Options{}, nil, row{1, i32(2147483646), f64(1)})},
		{"largest zero-based index", "1 2147483646:1\n", Options{ZeroBased: true},
			build(2147483647, Options{}, nil, row{1, i32(2147483646), f64(1)})},
		{"UTF-8 byte order mark", "\ufeff1 1:1\n", Options{},
			build(1, Options{}, nil, row{1, i32(0), f64(1)})},
		{"leading zeros in index", "1 00000000000005:1 0006:2\n", Options{},
			build(6, Options{}, nil, row{1, i32(4, 5), f64(1, 2)})},
	}
	for _, c := range cases {
		for _, threads := range []int{1, 3} {
			opt := c.opt
			opt.Threads = threads
			got, err := parseText(c.text, opt, 1)
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
				continue
			}
			if diff := sameData(got, c.want); diff != "" {
				t.Errorf("%s (threads %d): %s", c.name, threads, diff)
			}
			if got.Source != "t.svm" || got.InputBytes != int64(len(c.text)) {
				t.Errorf("%s: Source %q InputBytes %d", c.name, got.Source, got.InputBytes)
			}
			ref, _, err := refRead(c.text, c.opt)
			if err != nil {
				t.Errorf("%s: reference reader: %v", c.name, err)
			} else if diff := sameData(got, ref); diff != "" {
				t.Errorf("%s: differs from reference reader: %s", c.name, diff)
			}
		}
	}
}

func TestLibSVMErrors(t *testing.T) {
	cases := []struct {
		text string
		opt  Options
		want string
	}{
		{"", Options{}, "bad.svm: empty file: no data"},
		{"# a\n\n  # b\n", Options{}, "bad.svm: no rows, only blank lines and comments: no data"},
		{"abc 1:1\n", Options{}, `bad.svm:1:1: invalid label "abc"`},
		{"1:1 2:2\n", Options{}, `bad.svm:1:1: invalid label "1:1"`},
		{"nan 1:1\n", Options{}, `bad.svm:1:1: label "nan" is not a finite number`},
		{"1 1:1\n  -Inf 2:2\n", Options{}, `bad.svm:2:3: label "-Inf" is not a finite number`},
		{"1e400\n", Options{}, `bad.svm:1:1: label "1e400" is not a finite number`},
		{"1 1:abc\n", Options{}, `bad.svm:1:5: invalid value "abc" for feature 1`},
		{"1 1:1.5x\n", Options{}, `bad.svm:1:5: invalid value "1.5x" for feature 1`},
		{"1 1:2:3\n", Options{}, `bad.svm:1:5: invalid value "2:3" for feature 1`},
		{"1 2:NaN\n", Options{}, `bad.svm:1:5: value "NaN" for feature 2 is not a finite number`},
		{"1 2:-1e999\n", Options{}, `bad.svm:1:5: value "-1e999" for feature 2 is not a finite number`},
		{"1 1:1 2 3:3\n", Options{}, `bad.svm:1:7: missing ':' in "2" (expected index:value)`},
		{"1 1:1 foo\n", Options{}, `bad.svm:1:7: missing ':' in "foo" (expected index:value)`},
		{"1 12:\n", Options{}, `bad.svm:1:6: missing value after "12:"`},
		{"1 12: 3:4\n", Options{}, `bad.svm:1:6: missing value after "12:"`},
		{"1 :5\n", Options{}, `bad.svm:1:3: missing feature index before ':' in ":5"`},
		{"1 0:1\n", Options{}, `bad.svm:1:3: feature index 0 is not allowed: indices start at 1 (Options.ZeroBased reads 0-based files)`},
		{"1 -1:1\n", Options{}, `bad.svm:1:3: invalid feature index "-1" (expected an integer >= 1)`},
		{"1 -1:1\n", Options{ZeroBased: true}, `bad.svm:1:3: invalid feature index "-1" (expected an integer >= 0)`},
		{"1 1a:1\n", Options{}, `bad.svm:1:3: invalid feature index "1a" (expected an integer >= 1)`},
		{"1 +1:1\n", Options{}, `bad.svm:1:3: invalid feature index "+1" (expected an integer >= 1)`},
		{"1 3:1 2:1\n", Options{}, `bad.svm:1:7: feature index 2 is not greater than the previous index 3 (indices must be strictly increasing within a row)`},
		{"1 3:1 3:1\n", Options{}, `bad.svm:1:7: feature index 3 is not greater than the previous index 3 (indices must be strictly increasing within a row)`},
		{"1 0:1 0:1\n", Options{ZeroBased: true}, `bad.svm:1:7: feature index 0 is not greater than the previous index 0 (indices must be strictly increasing within a row)`},
		{"1 2147483648:1\n", Options{}, `bad.svm:1:3: feature index 2147483648 is too large (at most 2147483647 features are supported)`},
		{"1 2147483647:1\n", Options{ZeroBased: true}, `bad.svm:1:3: feature index 2147483647 is too large (at most 2147483647 features are supported)`},
		{"1 99999999999999999999:1\n", Options{}, `bad.svm:1:3: feature index 99999999999999999999 is too large (at most 2147483647 features are supported)`},
		{"1 5:1\n1 101:1\n", Options{MaxFeatures: 100}, `bad.svm:2:3: feature index 101 exceeds the cap of 100 features (Options.MaxFeatures = 101 reads this file)`},
		{"1 100:1\n", Options{MaxFeatures: 100, ZeroBased: true}, `bad.svm:1:3: feature index 100 exceeds the cap of 100 features (Options.MaxFeatures = 101 reads this file)`},
		{"1 1:1e39\n", Options{Float32: true}, `bad.svm:1:5: value "1e39" for feature 1 is out of float32 range`},
		{"1 qid:x 1:1\n", Options{}, `bad.svm:1:7: invalid qid "x"`},
		{"1 qid: 1:1\n", Options{}, `bad.svm:1:7: invalid qid ""`},
		{"1 1:1 qid:3\n", Options{}, `bad.svm:1:7: qid: may only appear once, right after the label`},
		{"1 qid:1 qid:2\n", Options{}, `bad.svm:1:9: qid: may only appear once, right after the label`},
		{"1 1:1\n\n# c 1:x\n2 2:x\n3 q\n", Options{}, `bad.svm:4:5: invalid value "x" for feature 2`},
		{"1 1:1\r\n1 x:1\r\n", Options{}, `bad.svm:2:3: invalid feature index "x" (expected an integer >= 1)`},
		{"\ufeff\ufeff1 1:1\n", Options{}, `bad.svm:1:1: invalid label "\ufeff1"`},
		{"1 1:1\n1 1:" + strings.Repeat("9", 60) + "x\n", Options{}, `bad.svm:2:5: invalid value "9999999999999999999999999999999999999999"... for feature 1`},
	}
	for _, c := range cases {
		for _, threads := range []int{1, 4} {
			opt := c.opt
			opt.Threads = threads
			_, err := parseLibSVM("bad.svm", splitLines([]byte(c.text), threads*chunksPerThread, 1), opt)
			if err == nil {
				t.Errorf("%q: no error, want %s", c.text, c.want)
				continue
			}
			if err.Error() != c.want {
				t.Errorf("%q (threads %d):\n got %s\nwant %s", c.text, threads, err, c.want)
			}
			var pe *ParseError
			if errors.As(err, &pe) == strings.HasSuffix(c.want, ": no data") || (pe == nil) != errors.Is(err, ErrNoData) {
				t.Errorf("%q: wrong error type %T", c.text, err)
			}
			if _, line, rerr := refRead(c.text, c.opt); rerr == nil || (pe != nil && line != pe.Line) {
				t.Errorf("%q: reference reader says line %d, %v", c.text, line, rerr)
			}
		}
	}
}

// randomFile writes a random valid libsvm file with every accepted
// feature: comments, blank lines, CRLF, tabs, qid, empty rows, long and
// exotic numbers, and sometimes no final newline.
func randomFile(r *rand.Rand, rows int, opt Options) string {
	var b strings.Builder
	sp := func() {
		switch r.IntN(10) {
		case 0:
			b.WriteByte('\t')
		case 1:
			b.WriteString("  ")
		default:
			b.WriteByte(' ')
		}
	}
	num := func() {
		switch r.IntN(12) {
		case 0:
			b.WriteString(strconv.FormatFloat(r.NormFloat64(), 'g', -1, 64)) // 17 digits: strconv path
		case 1:
			b.WriteString(strconv.FormatFloat(r.NormFloat64()*1e30, 'e', r.IntN(8), 64))
		case 2:
			b.WriteString(strconv.Itoa(r.IntN(100) - 50))
		case 3:
			b.WriteString("-0")
		case 4:
			b.WriteString("+.5")
		default:
			b.WriteString(strconv.FormatFloat(float64(r.IntN(100000))/1000, 'f', -1, 64))
		}
	}
	base := 1
	if opt.ZeroBased {
		base = 0
	}
	for i := 0; i < rows; i++ {
		switch r.IntN(20) {
		case 0:
			b.WriteString("# comment 1:2 qid:3\n")
		case 1:
			b.WriteString(" \t\n")
		case 2:
			b.WriteString("\n")
		}
		if r.IntN(8) == 0 {
			sp()
		}
		num()
		if r.IntN(5) == 0 {
			sp()
			fmt.Fprintf(&b, "qid:%d", r.IntN(1000))
		}
		idx := base + r.IntN(3)
		for n := r.IntN(12); n > 0; n-- {
			sp()
			fmt.Fprintf(&b, "%d:", idx)
			num()
			idx += 1 + r.IntN(1+r.IntN(2000))
		}
		if r.IntN(15) == 0 {
			b.WriteString(" # trailing 5:5")
		}
		if r.IntN(10) == 0 {
			sp()
		}
		if r.IntN(10) == 0 {
			b.WriteByte('\r')
		}
		if i < rows-1 || r.IntN(2) == 0 {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// TestChunkBoundaries parses random files with 1..8 threads and tiny
// chunks, so that chunk boundaries fall everywhere, and requires the
// same dataset (and the reference reader's) every time; then breaks one
// line and requires the same first error every time.
func TestChunkBoundaries(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	files := 40
	if testing.Short() {
		files = 8
	}
	for f := 0; f < files; f++ {
		opt := Options{ZeroBased: f%3 == 1, Float32: f%4 == 2, KeepQID: f%2 == 0}
		text := randomFile(r, 1+r.IntN(300), opt)
		ref, _, err := refRead(text, opt)
		if err != nil {
			t.Fatalf("file %d: reference: %v\n%s", f, err, text)
		}
		for threads := 1; threads <= 8; threads++ {
			for _, minChunk := range []int{1, 13, 200, 1 << 20} {
				o := opt
				o.Threads = threads
				got, err := parseText(text, o, minChunk)
				if err != nil {
					t.Fatalf("file %d threads %d chunk %d: %v", f, threads, minChunk, err)
				}
				if diff := sameData(got, ref); diff != "" {
					t.Fatalf("file %d threads %d chunk %d: %s", f, threads, minChunk, diff)
				}
			}
		}

		// Break one or two lines and check the first error is found.
		lines := strings.SplitAfter(text, "\n")
		for k := 0; k < 1+r.IntN(2); k++ {
			n := r.IntN(len(lines))
			lines[n] = []string{"x 1:1\n", "1 1:1 1:1\n", "1 a\n", "1 2:nan\n", "1 0:1 -3:1\n"}[r.IntN(5)]
		}
		bad := strings.Join(lines, "")
		_, wantLine, rerr := refRead(bad, opt)
		var first string
		for threads := 1; threads <= 8; threads++ {
			for _, minChunk := range []int{1, 13, 200} {
				o := opt
				o.Threads = threads
				_, err := parseText(bad, o, minChunk)
				var pe *ParseError
				if rerr == nil || !errors.As(err, &pe) || pe.Line != wantLine {
					t.Fatalf("file %d threads %d: error %v, reference line %d (%v)", f, threads, err, wantLine, rerr)
				}
				if first == "" {
					first = err.Error()
				} else if err.Error() != first {
					t.Fatalf("file %d threads %d: error %q, with 1 thread %q", f, threads, err, first)
				}
			}
		}
	}
}

func TestSplitLines(t *testing.T) {
	text := []byte("a\nbb\n\nccc\nd")
	for n := 1; n < 12; n++ {
		for minB := 1; minB < 12; minB++ {
			chunks := splitLines(text, n, minB)
			var joined []byte
			for i, c := range chunks {
				if len(c) == 0 || (i < len(chunks)-1 && c[len(c)-1] != '\n') {
					t.Fatalf("n=%d min=%d: bad chunk %q", n, minB, c)
				}
				joined = append(joined, c...)
			}
			if string(joined) != string(text) || len(chunks) > n {
				t.Fatalf("n=%d min=%d: %q", n, minB, chunks)
			}
		}
	}
}

// FuzzLibSVM parses with random threads, chunk sizes and options and
// checks the result against refRead: the same error line, or the same
// dataset bit for bit, whose rows rowLine finds on refRead's lines; and
// that a small input allocates little. Seeds in testdata/fuzz/FuzzLibSVM
// (written by TestFuzzSeeds) hold small valid and broken files.
func FuzzLibSVM(f *testing.F) {
	f.Add([]byte("1 1:0.5 3:2\n-1 2:1\n"), uint8(2), uint16(3), uint8(0))
	f.Add([]byte("# c\n+1 qid:3 1:1e-3 2:-0 # x\r\n\n-1\t4:.5\n2"), uint8(3), uint16(1), uint8(7))
	f.Add([]byte("1 0:1 5:2\n0 0:3 1:1e39\n"), uint8(1), uint16(5), uint8(3))
	f.Add([]byte("1 1:1 qid:2\n1 3:1 2:1\n1 :5\n"), uint8(4), uint16(2), uint8(8))
	f.Add([]byte("1 00000000000005:1 2147483647:1 99999999999:1\n"), uint8(2), uint16(7), uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, threads uint8, minChunk uint16, flags uint8) {
		opt := Options{
			Threads:   int(threads%8) + 1,
			ZeroBased: flags&1 != 0,
			Float32:   flags&2 != 0,
			KeepQID:   flags&4 != 0,
		}
		if flags&8 != 0 {
			opt.MaxFeatures = 10
		}
		var got *Dataset
		var err error
		csrtest.CheckAllocBound(t, len(data), func() {
			got, err = parseLibSVM("f", splitLines(data, opt.Threads*chunksPerThread, int(minChunk)+1), opt)
		})
		ref, line, rerr := refRead(string(data), opt)
		if (err == nil) != (rerr == nil) {
			t.Fatalf("error %v, reference error %v", err, rerr)
		}
		if err != nil {
			var pe *ParseError
			if errors.As(err, &pe) {
				if pe.Line != line || strings.HasPrefix(pe.Msg, "internal") {
					t.Fatalf("error %v, reference error %v", err, rerr)
				}
			} else if !errors.Is(err, ErrNoData) || line != 0 {
				t.Fatalf("error %v, reference error %v", err, rerr)
			}
			return
		}
		if diff := sameData(got, ref); diff != "" {
			t.Fatal(diff)
		}
		if err := csr.Check(matrixOf(got), 1); err != nil {
			t.Fatalf("invalid dataset: %v", err)
		}
		checkRowLines(t, data, "libsvm", got.Rows)
	})
}

// TestSWARDigits checks the 8-bytes-at-a-time digit scan against a plain
// loop on random mixes of digits and other bytes.
func TestSWARDigits(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	var b [8]byte
	for it := 0; it < 1_000_000; it++ {
		for i := range b {
			if r.IntN(4) == 0 {
				b[i] = byte(r.IntN(256))
			} else {
				b[i] = byte('0' + r.IntN(10))
			}
		}
		w := uint64(0)
		for i := 7; i >= 0; i-- {
			w = w<<8 | uint64(b[i])
		}
		dx, n := leadingDigits(w)
		want, wn := uint64(0), uint(0)
		for wn < 8 && b[wn] >= '0' && b[wn] <= '9' {
			want = want*10 + uint64(b[wn]-'0')
			wn++
		}
		if n != wn {
			t.Fatalf("%q: %d digits, want %d", b[:], n, wn)
		}
		if n > 0 {
			if got := digitsValue(dx, n); got != want {
				t.Fatalf("%q: value %d, want %d", b[:], got, want)
			}
		}
	}
}
