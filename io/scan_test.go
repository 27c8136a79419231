package dataio

import (
	"bytes"
	"compress/bzip2"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/acfcd/acfcd/internal/testkit"
)

// smallScanBlocks lowers the block sizes of Scan for the test, so that
// block and chunk boundaries fall everywhere in small inputs.
func smallScanBlocks(t *testing.T, textBytes int, nnz int64) {
	t.Helper()
	oldB, oldN, oldC := scanBlockBytes, scanBlockNNZ, minChunkBytes
	scanBlockBytes, scanBlockNNZ, minChunkBytes = textBytes, nnz, 16
	t.Cleanup(func() { scanBlockBytes, scanBlockNNZ, minChunkBytes = oldB, oldN, oldC })
}

// gather runs scan and joins its blocks into one dataset, checking that
// each block is valid and starts where the one before ended, and that
// Where locates its rows as Where locates them in want (nil: not checked).
func gather(t *testing.T, what string, want *Dataset, scan func(fn func(int, *Dataset) error) error) (*Dataset, error) {
	t.Helper()
	all := &Dataset{RowPtr: []int64{0}, Label: []float64{}, Index: []int32{}}
	var qid []int64
	anyQID, blocks := false, 0
	err := scan(func(first int, b *Dataset) error {
		blocks++
		if first != all.Rows {
			return fmt.Errorf("block %d starts at row %d, want %d", blocks, first, all.Rows)
		}
		if err := b.Check(); err != nil {
			return fmt.Errorf("block %d: %v", blocks, err)
		}
		if b.Rows == 0 {
			return fmt.Errorf("block %d has no rows", blocks)
		}
		base := all.RowPtr[all.Rows]
		for i := 1; i <= b.Rows; i++ {
			all.RowPtr = append(all.RowPtr, base+b.RowPtr[i])
		}
		all.Index = append(all.Index, b.Index...)
		if b.Value32 != nil {
			all.Value32 = append(all.Value32, b.Value32...)
		} else {
			all.Value = append(all.Value, b.Value...)
		}
		all.Label = append(all.Label, b.Label...)
		if b.QID != nil {
			anyQID = true
			qid = append(qid, b.QID...)
		} else {
			qid = append(qid, make([]int64, b.Rows)...)
		}
		all.Features = max(all.Features, b.Features)
		if want != nil && want.Source != "stdin" {
			for _, i := range []int{0, b.Rows - 1} {
				if got, w := b.Where(i), want.Where(first+i); got != w {
					return fmt.Errorf("block %d: Where(%d) = %q, want %q", blocks, i, got, w)
				}
			}
		}
		all.Rows += b.Rows
		return nil
	})
	if err != nil {
		return nil, err
	}
	if anyQID {
		all.QID = qid
	}
	return all, nil
}

// sameAsLoad requires Scan's rows to be Load's, row for row.
func sameAsLoad(t *testing.T, what string, got *Dataset, err error, want *Dataset, werr error) {
	t.Helper()
	if werr != nil || err != nil {
		if werr == nil || err == nil || err.Error() != werr.Error() {
			t.Fatalf("%s: error %v, Load's %v", what, err, werr)
		}
		return
	}
	if len(got.Value) == 0 && len(got.Value32) == 0 { // no non-zeros: the blocks' storage is not seen
		got.Value, got.Value32 = want.Value, want.Value32
	}
	if diff := sameData(got, want); diff != "" {
		t.Fatalf("%s: %s", what, diff)
	}
}

// TestScanMatchesLoad: Scan and ScanReader hand over the rows Load reads,
// in order and in blocks that start where the one before ended, for
// random libsvm text (plain, gzip, bzip2, from a file, through a reader
// that returns little at a time, with and without Float32 and KeepQID),
// NDJSON and a binary cache, with tiny and default blocks.
func TestScanMatchesLoad(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	dir := t.TempDir()
	var inputs []string
	for k := range 6 {
		text := randomFile(r, 50+r.IntN(400), Options{})
		if k == 0 {
			text = "\ufeff" + text
		}
		inputs = append(inputs, text)
	}
	inputs = append(inputs, "1 1:1", "1\n-1\n", "1 1:1\n\n\n# only comments after\n")
	bz, err := os.ReadFile("testdata/small.svm.bz2")
	if err != nil {
		t.Fatal(err)
	}
	small, err := io.ReadAll(bzip2.NewReader(bytes.NewReader(bz)))
	if err != nil {
		t.Fatal(err)
	}
	inputs = append(inputs, string(small))

	for _, sizes := range []struct {
		text int
		nnz  int64
	}{{64, 3}, {1000, 50}, {scanBlockBytes, scanBlockNNZ}} {
		if sizes.text != scanBlockBytes {
			smallScanBlocks(t, sizes.text, sizes.nnz)
		}
		for k, text := range inputs {
			files := map[string][]byte{"plain": []byte(text), "gzip": gzipped(t, text)}
			if k == len(inputs)-1 {
				files["bzip2"] = bz
			}
			for kind, data := range files {
				path := filepath.Join(dir, fmt.Sprintf("in%d.%s", k, kind))
				if err := os.WriteFile(path, data, 0o644); err != nil {
					t.Fatal(err)
				}
				for _, opt := range []Options{{}, {Float32: true, KeepQID: true, Threads: 3}} {
					what := fmt.Sprintf("blocks %d, input %d, %s, %+v", sizes.text, k, kind, opt)
					want, werr := Load(path, opt)
					got, err := gather(t, what, want, func(fn func(int, *Dataset) error) error { return Scan(path, opt, fn) })
					sameAsLoad(t, what, got, err, want, werr)
					got, err = gather(t, what, nil, func(fn func(int, *Dataset) error) error {
						return ScanReader(iotest.HalfReader(bytes.NewReader(data)), path, opt, fn)
					})
					sameAsLoad(t, what+", ScanReader", got, err, want, werr)
				}
			}
		}

		// NDJSON and a binary cache come whole and are handed over in blocks.
		nd := writeFile(t, "in.ndjson", []byte("{\"label\": 1, \"features\": {\"1\": 0.5}}\n{\"label\": -1}\n{\"label\": 2, \"features\": {\"3\": 2}}\n"))
		want, werr := Load(nd, Options{})
		got, err := gather(t, "ndjson", want, func(fn func(int, *Dataset) error) error { return Scan(nd, Options{}, fn) })
		sameAsLoad(t, "ndjson", got, err, want, werr)
		src, err := Load(filepath.Join(dir, "in1.plain"), Options{})
		if err != nil {
			t.Fatal(err)
		}
		cache := filepath.Join(dir, "in.cache")
		if err := WriteCache(cache, src); err != nil {
			t.Fatal(err)
		}
		want, werr = Load(cache, Options{})
		got, err = gather(t, "cache", want, func(fn func(int, *Dataset) error) error { return Scan(cache, Options{}, fn) })
		sameAsLoad(t, "cache", got, err, want, werr)
		want.Close()
	}
}

// TestScanStdin: Scan("-") reads standard input redirected from a file
// and from a pipe, compressed.
func TestScanStdin(t *testing.T) {
	text := "1 1:1\n-1 2:2\n"
	want, _, _ := refRead(text, Options{})
	old := os.Stdin
	defer func() { os.Stdin = old }()
	f, err := os.Open(writeFile(t, "in.svm", []byte(text)))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	os.Stdin = f
	got, err := gather(t, "stdin file", nil, func(fn func(int, *Dataset) error) error { return Scan("-", Options{}, fn) })
	sameAsLoad(t, "stdin file", got, err, want, nil)

	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	go func() { pw.Write(gzipped(t, text)); pw.Close() }()
	os.Stdin = pr
	var source string
	got, err = gather(t, "stdin pipe", nil, func(fn func(int, *Dataset) error) error {
		return Scan("-", Options{}, func(first int, b *Dataset) error { source = b.Source; return fn(first, b) })
	})
	pr.Close()
	sameAsLoad(t, "stdin pipe", got, err, want, nil)
	if source != "stdin" {
		t.Fatalf("Source %q", source)
	}
}

// TestScanErrors: Scan gives Load's error, with the same file, line and
// column, for bad lines in any block, blank and comment lines refused by
// NoBlankLines (also in blocks without rows), inputs without rows, and
// the options; and stops at fn's error, which it returns as it is.
func TestScanErrors(t *testing.T) {
	smallScanBlocks(t, 64, 3)
	var long strings.Builder
	for i := range 200 {
		fmt.Fprintf(&long, "%d 1:%d 2:0.5\n", i%2, i)
	}
	good := long.String()
	comments := strings.Repeat("# a comment line, long enough to fill a block\n", 10)
	cases := map[string]string{
		"late syntax":        good + "1 3:x\n" + good,
		"late index":         good + "1 3:1 2:1\n",
		"late blank":         good + "\n" + good,
		"rowless block":      "1 1:1\n" + comments + good,
		"only comments":      comments,
		"only blank":         "\n\n \n",
		"empty":              "",
		"bom only":           "\ufeff",
		"long line":          "1 " + strings.Repeat("1:1 ", 1) + strings.Repeat("2", 500) + ":1\n" + good,
		"bad first line":     "x 1:1\n" + good,
		"no final newline":   good + "1 1:",
		"comment at the end": good + "# end\n",
	}
	dir := t.TempDir()
	for name, text := range cases {
		for _, opt := range []Options{{NoBlankLines: true}, {}, {MaxFeatures: 2, Threads: 2}} {
			for kind, data := range map[string][]byte{"plain": []byte(text), "gzip": gzipped(t, text)} {
				path := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+"."+kind)
				if err := os.WriteFile(path, data, 0o644); err != nil {
					t.Fatal(err)
				}
				what := fmt.Sprintf("%s, %s, %+v", name, kind, opt)
				want, werr := Load(path, opt)
				got, err := gather(t, what, want, func(fn func(int, *Dataset) error) error { return Scan(path, opt, fn) })
				sameAsLoad(t, what, got, err, want, werr)
				_, rerr := Read(bytes.NewReader(data), path, opt)
				got, err = gather(t, what, nil, func(fn func(int, *Dataset) error) error {
					return ScanReader(iotest.OneByteReader(bytes.NewReader(data)), path, opt, fn)
				})
				sameAsLoad(t, what+", ScanReader", got, err, want, rerr)
				var pe *ParseError
				if errors.As(werr, &pe) && !errors.As(err, &pe) {
					t.Fatalf("%s: %T, want a *ParseError", what, err)
				}
			}
		}
	}

	// fn's error stops Scan and comes back as it is.
	path := writeFile(t, "good.svm", []byte(good))
	stop := errors.New("stop")
	calls := 0
	if err := Scan(path, Options{}, func(int, *Dataset) error { calls++; return stop }); err != stop || calls != 1 {
		t.Fatalf("error %v after %d calls, want stop after 1", err, calls)
	}
	if err := Scan(path, Options{Threads: -1}, func(int, *Dataset) error { return nil }); err == nil {
		t.Fatal("Threads -1 accepted")
	}
	if err := ScanReader(nil, "x", Options{}, func(int, *Dataset) error { return nil }); err == nil {
		t.Fatal("nil reader accepted")
	}
}

// TestScanBounded: scanning a generated 50 MB file allocates a few
// blocks' worth, far below what Load allocates for it, and does not
// grow with the input (half the file allocates about as much).
func TestScanBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 50 MB file")
	}
	oldB := scanBlockBytes
	scanBlockBytes = 1 << 20
	defer func() { scanBlockBytes = oldB }()
	var b bytes.Buffer
	r := rand.New(rand.NewPCG(1, 2))
	half := 0
	for b.Len() < 50<<20 {
		if half == 0 && b.Len() >= 25<<20 {
			half = b.Len()
		}
		fmt.Fprintf(&b, "%d", r.IntN(2)*2-1)
		for j, n := 1, 5+r.IntN(30); n > 0; n-- {
			j += 1 + r.IntN(50)
			fmt.Fprintf(&b, " %d:%d", j, r.IntN(10))
		}
		b.WriteByte('\n')
	}
	dir := t.TempDir()
	full := filepath.Join(dir, "full.svm")
	halfPath := filepath.Join(dir, "half.svm")
	if err := os.WriteFile(full, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(halfPath, b.Bytes()[:half], 0o644); err != nil {
		t.Fatal(err)
	}
	scanned := func(path string) (uint64, int) {
		rows := 0
		var err error
		n := testkit.Allocated(func() {
			err = Scan(path, Options{}, func(_ int, d *Dataset) error { rows += d.Rows; return nil })
		})
		if err != nil {
			t.Fatal(err)
		}
		return n, rows
	}
	scanFull, rows := scanned(full)
	scanHalf, _ := scanned(halfPath)
	var d *Dataset
	var err error
	loaded := testkit.Allocated(func() { d, err = Load(full, Options{}) })
	if err != nil {
		t.Fatal(err)
	}
	if d.Rows != rows {
		t.Fatalf("Scan saw %d rows, Load %d", rows, d.Rows)
	}
	t.Logf("%d bytes, %d rows: Scan allocated %d KiB (half the file: %d KiB), Load %d KiB",
		b.Len(), rows, scanFull>>10, scanHalf>>10, loaded>>10)
	if scanFull > 16<<20 || scanFull > loaded/8 {
		t.Errorf("Scan allocated %d KiB, Load %d KiB", scanFull>>10, loaded>>10)
	}
	if scanFull > scanHalf+scanHalf/2+(1<<20) {
		t.Errorf("Scan allocated %d KiB for the file, %d KiB for half of it", scanFull>>10, scanHalf>>10)
	}
}
