package dataio

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/acfcd/acfcd/internal/testkit"
)

func writeFile(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func gzipped(t *testing.T, text string) []byte {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	io.WriteString(w, text)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func mustSame(t *testing.T, what string, got *Dataset, err error, want *Dataset) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if diff := sameData(got, want); diff != "" {
		t.Fatalf("%s: %s", what, diff)
	}
	if got.InputBytes != want.InputBytes {
		t.Fatalf("%s: InputBytes %d, want %d", what, got.InputBytes, want.InputBytes)
	}
}

func TestLoadFile(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	text := randomFile(r, 3000, Options{})
	want, _, err := refRead(text, Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := writeFile(t, "data.svm", []byte(text))
	for _, threads := range []int{0, 1, 2, 5} {
		d, err := Load(p, Options{Threads: threads})
		mustSame(t, "Load", d, err, want)
		if d.Source != p {
			t.Fatalf("Source %q", d.Source)
		}
	}
	old := minChunkBytes
	minChunkBytes = 100
	defer func() { minChunkBytes = old }()
	d, err := Load(p, Options{Threads: 3})
	mustSame(t, "Load, small chunks", d, err, want)
}

func TestLoadCompressed(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	text := randomFile(r, 2000, Options{})
	want, _, _ := refRead(text, Options{})
	gz := gzipped(t, text)

	// Detected by magic bytes, whatever the name.
	for _, name := range []string{"data.svm.gz", "data.txt"} {
		d, err := Load(writeFile(t, name, gz), Options{Threads: 2})
		mustSame(t, "gzip "+name, d, err, want)
	}
	// Concatenated gzip members are one stream.
	half := strings.Index(text[len(text)/2:], "\n") + len(text)/2 + 1
	two := append(gzipped(t, text[:half]), gzipped(t, text[half:])...)
	d, err := Load(writeFile(t, "two.gz", two), Options{})
	mustSame(t, "two gzip members", d, err, want)
	d, err = Read(bytes.NewReader(gz), "pipe", Options{})
	mustSame(t, "Read gzip", d, err, want)

	// A bzip2 file checked into testdata.
	d, err = Load("testdata/small.svm.bz2", Options{KeepQID: true})
	mustSame(t, "testdata bzip2", d, err, &Dataset{
		Rows: 3, Features: 5, RowPtr: []int64{0, 2, 4, 5}, Index: []int32{0, 2, 1, 3, 4},
		Value: []float64{0.5, 1.25, -2, 1e-3, 7}, Label: []float64{1, -1, 1}, QID: []int64{0, 0, 3}, InputBytes: 95,
	})

	// A bigger one made by the bzip2 program, when there is one.
	if bzip2, ok := testkit.Runs("bzip2", "--help"); ok {
		cmd := exec.Command(bzip2, "-c")
		cmd.Stdin = strings.NewReader(text)
		bz, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		d, err := Load(writeFile(t, "data.plain", bz), Options{Threads: 3})
		mustSame(t, "bzip2", d, err, want)
	}

	// Empty after decompression, and broken compressed data.
	_, err = Load(writeFile(t, "empty.gz", gzipped(t, "")), Options{})
	if err == nil || !errors.Is(err, ErrNoData) || !strings.Contains(err.Error(), "empty file (after gzip decompression)") {
		t.Fatalf("empty gzip: %v", err)
	}
	_, err = Load(writeFile(t, "comments.gz", gzipped(t, "# nothing\n")), Options{})
	if err == nil || !errors.Is(err, ErrNoData) || !strings.HasSuffix(err.Error(), "(after gzip decompression)") {
		t.Fatalf("comments-only gzip: %v", err)
	}
	_, err = Load(writeFile(t, "cut.gz", gz[:len(gz)/2]), Options{})
	if err == nil || !strings.Contains(err.Error(), "cut.gz: unexpected EOF") {
		t.Fatalf("truncated gzip: %v", err)
	}
	_, err = Load(writeFile(t, "x.xz", []byte("\xfd7zXZ\x00rest")), Options{})
	if err == nil || !strings.HasSuffix(err.Error(), "x.xz: xz-compressed input is not supported; decompress it first") {
		t.Fatalf("xz: %v", err)
	}
}

func TestReadStream(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	text := randomFile(r, 1500, Options{KeepQID: true})
	want, _, _ := refRead(text, Options{KeepQID: true})
	old := streamBlockBytes
	defer func() { streamBlockBytes = old }()
	for _, bs := range []int{1, 7, 100, 4096, 4 << 20} {
		streamBlockBytes = bs
		for _, wrap := range []func(io.Reader) io.Reader{
			func(r io.Reader) io.Reader { return r }, iotest.OneByteReader, iotest.HalfReader,
		} {
			d, err := Read(wrap(strings.NewReader(text)), "stdin", Options{KeepQID: true, Threads: 3})
			mustSame(t, "Read", d, err, want)
			if d.Source != "stdin" {
				t.Fatalf("Source %q", d.Source)
			}
		}
	}
	streamBlockBytes = 64
	// A real pipe.
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	go func() { io.WriteString(pw, text); pw.Close() }()
	d, err := Read(pr, "pipe", Options{KeepQID: true})
	pr.Close()
	mustSame(t, "pipe", d, err, want)

	// Errors from the stream itself, and line numbers across blocks.
	_, err = Read(iotest.TimeoutReader(strings.NewReader(text)), "slow", Options{})
	if err == nil || !strings.Contains(err.Error(), "slow: timeout") {
		t.Fatalf("read error: %v", err)
	}
	_, err = Read(strings.NewReader(strings.Repeat("1 1:1\n", 100)+"1 1:x\n"), "s", Options{Threads: 4})
	if err == nil || err.Error() != `s:101:5: invalid value "x" for feature 1` {
		t.Fatalf("error across blocks: %v", err)
	}
	_, err = Read(strings.NewReader(""), "s", Options{})
	if err == nil || err.Error() != "s: empty file: no data" {
		t.Fatalf("empty stream: %v", err)
	}
}

func TestLoadStdin(t *testing.T) {
	text := "1 1:1\n-1 2:2\n"
	want, _, _ := refRead(text, Options{})
	old := os.Stdin
	defer func() { os.Stdin = old }()

	f, err := os.Open(writeFile(t, "in.svm", []byte(text)))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	os.Stdin = f // redirected from a regular file: mapped
	d, err := Load("-", Options{})
	mustSame(t, "stdin file", d, err, want)
	if d.Source != "stdin" {
		t.Fatalf("Source %q", d.Source)
	}

	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	go func() { pw.Write(gzipped(t, text)); pw.Close() }()
	os.Stdin = pr // a pipe, compressed
	d, err = Load("-", Options{})
	pr.Close()
	mustSame(t, "stdin pipe", d, err, want)
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	_, err := Load(filepath.Join(dir, "missing.svm"), Options{})
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "missing.svm") {
		t.Errorf("missing file: %v", err)
	}
	_, err = Load(dir, Options{})
	if err == nil || err.Error() != dir+": is a directory, not a data file" {
		t.Errorf("directory: %v", err)
	}
	empty := writeFile(t, "empty.svm", nil)
	_, err = Load(empty, Options{})
	if err == nil || err.Error() != empty+": empty file: no data" || !errors.Is(err, ErrNoData) {
		t.Errorf("empty file: %v", err)
	}
	blank := writeFile(t, "blank.svm", []byte("\n# only a comment\n\n"))
	_, err = Load(blank, Options{})
	if err == nil || err.Error() != blank+": no rows, only blank lines and comments: no data" {
		t.Errorf("blank file: %v", err)
	}
	bad := writeFile(t, "bad.svm", []byte("1 1:1\n1 2:1 1:1\n"))
	_, err = Load(bad, Options{})
	var pe *ParseError
	if !errors.As(err, &pe) || pe.File != bad || pe.Line != 2 || pe.Column != 7 {
		t.Errorf("parse error: %v", err)
	}
	if _, err := Load(bad, Options{Format: "csv"}); err == nil || err.Error() != `unknown data format "csv" (want libsvm, ndjson or cache)` {
		t.Errorf("format: %v", err)
	}
	// Forcing libsvm on NDJSON-looking text parses it as libsvm.
	js := writeFile(t, "d.json", []byte(`{"label":1}`+"\n"))
	if _, err := Load(js, Options{Format: "libsvm"}); err == nil || !strings.HasPrefix(err.Error(), js+`:1:1: invalid label`) {
		t.Errorf("forced libsvm: %v", err)
	}
}

// TestLoadUnreadable: a file without read permission gives an error
// wrapping fs.ErrPermission that names it. Root reads it anyway; .ci/run
// runs this test once more as an unprivileged user.
func TestLoadUnreadable(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("running as root: chmod 000 does not deny reading")
	}
	locked := writeFile(t, "locked.svm", []byte("1 1:1\n"))
	os.Chmod(locked, 0)
	if _, err := Load(locked, Options{}); !errors.Is(err, fs.ErrPermission) || err.Error() != "open "+locked+": permission denied" {
		t.Errorf("unreadable file: %v", err)
	}
}

func TestDetect(t *testing.T) {
	for head, want := range map[string]string{
		"1 1:1\n": "libsvm", "# x\n{": "libsvm", "\n \t\r\n{\"y\":1}": "ndjson", "{": "ndjson", "   ": "libsvm", "\ufeff{": "ndjson",
	} {
		if got := detectFormat([]byte(head), Options{}); got != want {
			t.Errorf("detectFormat(%q) = %s, want %s", head, got, want)
		}
	}
	for head, want := range map[string]string{
		"\x1f\x8b\x08": "gzip", "BZh91AY&SY": "bzip2", "BZh0": "", "BZ": "", "\xfd7zXZ\x00": "xz",
		"\x28\xb5\x2f\xfd": "zstd", "1 1:1": "",
	} {
		if got := compressionOf([]byte(head)); got != want {
			t.Errorf("compressionOf(%q) = %q, want %q", head, got, want)
		}
	}
}

func TestReadBlocks(t *testing.T) {
	text := "a\nbbbbbbbbbbbbbbbbbbbbbbbbbb\ncc\n\nddddddddddddddddddddddddddddddddddddddddddd"
	for bs := 1; bs < 40; bs++ {
		chunks, blocks, err := readBlocks(iotest.HalfReader(strings.NewReader(text)), bs)
		if err != nil {
			t.Fatal(err)
		}
		var joined []byte
		for i, c := range chunks {
			if len(c) == 0 || (i < len(chunks)-1 && c[len(c)-1] != '\n') {
				t.Fatalf("block %d: bad chunk %q", bs, c)
			}
			joined = append(joined, c...)
		}
		if string(joined) != text {
			t.Fatalf("block %d: %q", bs, joined)
		}
		if len(blocks) > len(chunks)+1 {
			t.Fatalf("block %d: %d blocks kept for %d chunks", bs, len(blocks), len(chunks))
		}
		for _, b := range blocks {
			freeBlock(b)
		}
	}
}

func TestCSC(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, opt := range []Options{{}, {Float32: true}} {
		for _, rows := range []int{1, 50, 20000, 100000} {
			d, err := parseText(randomFile(r, rows, opt), opt, 1<<20)
			if err != nil {
				t.Fatal(err)
			}
			c := d.CSC()
			if c.Rows != d.Rows || c.Features != d.Features || len(c.ColPtr) != d.Features+1 || c.ColPtr[d.Features] != d.NNZ() {
				t.Fatalf("shape %d x %d, ColPtr end %d", c.Rows, c.Features, c.ColPtr[len(c.ColPtr)-1])
			}
			// Walk the columns; every entry must be in the CSR, in row order.
			seen := int64(0)
			for j := 0; j < c.Features; j++ {
				prev := int32(-1)
				for k := c.ColPtr[j]; k < c.ColPtr[j+1]; k++ {
					i := c.RowIndex[k]
					if i <= prev {
						t.Fatalf("column %d: rows not increasing", j)
					}
					prev = i
					a, b := d.RowPtr[i], d.RowPtr[i+1]
					found := false
					for q := a; q < b; q++ {
						if d.Index[q] == int32(j) {
							v := 0.0
							if d.Value != nil {
								v = d.Value[q]
							} else {
								v = float64(d.Value32[q])
							}
							found = v == c.Value[k]
						}
					}
					if !found {
						t.Fatalf("column %d row %d: not in the CSR", j, i)
					}
					seen++
				}
			}
			if seen != d.NNZ() {
				t.Fatalf("%d entries, want %d", seen, d.NNZ())
			}
		}
	}
}

// KeepCSC: the same view, built once, equal to a fresh one; a copy of the
// struct over other rows does not get it.
func TestKeepCSC(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	d, err := parseText(randomFile(r, 200, Options{}), Options{}, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if d.CSC() == d.CSC() {
		t.Fatal("CSC without KeepCSC returned the same view twice")
	}
	d.KeepCSC()
	a := d.CSC()
	if b := d.CSC(); a != b {
		t.Fatal("KeepCSC: CSC built a new view")
	}
	if !reflect.DeepEqual(a, d.buildCSC()) {
		t.Fatal("KeepCSC: the kept view differs from a fresh one")
	}
	e := *d
	e.Rows = 100
	e.RowPtr = d.RowPtr[:101]
	e.Index, e.Value, e.Label = d.Index[:d.RowPtr[100]], d.Value[:d.RowPtr[100]], d.Label[:100]
	c := e.CSC()
	if c == a || c.Rows != 100 || c.ColPtr[c.Features] != e.NNZ() {
		t.Fatalf("a copy over the first 100 rows got the kept view (rows %d, nnz %d)", c.Rows, c.ColPtr[c.Features])
	}
}
