package cache

import (
	"bytes"
	"encoding/binary"
	"flag"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/acfcd/acfcd/internal/testkit"
	"github.com/acfcd/acfcd/io/internal/csr"
	"github.com/acfcd/acfcd/io/internal/csrtest"
)

// cnRandomDataset builds a valid random dataset; emptyEvery > 0 makes every
// such row empty.
func cnRandomDataset(r *rand.Rand, rows, features int, f32, qid bool, emptyEvery int) *csr.Matrix {
	d := &csr.Matrix{Rows: rows, Features: features, RowPtr: make([]int64, 1, rows+1), Label: make([]float64, rows)}
	if f32 {
		d.Value32 = []float32{}
	} else {
		d.Value = []float64{}
	}
	if qid {
		d.QID = make([]int64, rows)
	}
	for i := 0; i < rows; i++ {
		d.Label[i] = float64(r.IntN(3) - 1)
		if qid {
			d.QID[i] = int64(i / 3)
		}
		if emptyEvery == 0 || i%emptyEvery != 0 {
			for j := 0; j < features; j++ {
				if r.IntN(3) == 0 {
					d.Index = append(d.Index, int32(j))
					v := r.NormFloat64() * math.Pow(10, float64(r.IntN(20)-10))
					if f32 {
						d.Value32 = append(d.Value32, float32(v))
					} else {
						d.Value = append(d.Value, v)
					}
				}
			}
		}
		d.RowPtr = append(d.RowPtr, int64(len(d.Index)))
	}
	return d
}

func cnWriteTemp(t testing.TB, d *csr.Matrix) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "data.acf")
	if err := Write(path, d); err != nil {
		t.Fatal(err)
	}
	return path
}

// cnBigF is the largest feature count: 2^31 (indices up to MaxInt32), or
// MaxInt32 where int has 32 bits.
const cnBigF = int(min(int64(math.MaxInt), 1<<31))

func TestCacheRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	cases := []struct {
		name string
		d    *csr.Matrix
	}{
		{"float64", cnRandomDataset(r, 50, 20, false, false, 0)},
		{"float32", cnRandomDataset(r, 50, 20, true, false, 0)},
		{"float64+qid", cnRandomDataset(r, 40, 7, false, true, 0)},
		{"float32+qid+empty rows", cnRandomDataset(r, 40, 7, true, true, 3)},
		{"all rows empty", cnRandomDataset(r, 5, 0, false, false, 1)},
		{"zero rows", &csr.Matrix{RowPtr: []int64{0}, Value: []float64{}, Label: []float64{}}},
		{"zero rows, nil slices", &csr.Matrix{RowPtr: []int64{0}}},
		{"largest feature count", &csr.Matrix{Rows: 1, Features: cnBigF, RowPtr: []int64{0, 2}, Index: []int32{0, int32(cnBigF - 1)}, Value: []float64{1, -2}, Label: []float64{1}}},
		{"features beyond indices", &csr.Matrix{Rows: 1, Features: 1000, RowPtr: []int64{0, 1}, Index: []int32{3}, Value: []float64{1}, Label: []float64{1}}},
	}
	for _, tc := range cases {
		for _, force := range []bool{false, true} {
			for _, f32 := range []bool{false, true} {
				for _, keep := range []bool{false, true} {
					name := fmt.Sprintf("%s/decode=%v/float32=%v/qid=%v", tc.name, force, f32, keep)
					t.Run(name, func(t *testing.T) {
						cacheForceDecode = force
						defer func() { cacheForceDecode = false }()
						path := cnWriteTemp(t, tc.d)
						got, release, err := Open(path, csr.Options{Float32: f32, KeepQID: keep, Threads: 2})
						if err != nil {
							t.Fatal(err)
						}
						want := cnExpected(tc.d, f32, keep)
						if diff := csrtest.Diff(got, want); diff != "" {
							t.Fatal(diff)
						}
						st, _ := os.Stat(path)
						if got.InputBytes != st.Size() {
							t.Errorf("InputBytes %d, want %d", got.InputBytes, st.Size())
						}
						if mapped := hostLittleEndian && !force; (release != nil) != mapped {
							t.Errorf("release set %v, want %v (little-endian %v, forced decoding %v)", release != nil, mapped, hostLittleEndian, force)
						}
						if release != nil {
							if err := release(); err != nil {
								t.Fatal(err)
							}
						}
					})
				}
			}
		}
	}
}

// cnExpected is what loading d with the given options should produce.
func cnExpected(d *csr.Matrix, f32, keepQID bool) *csr.Matrix {
	w := *d
	if w.Index == nil {
		w.Index = []int32{}
	}
	if w.Label == nil {
		w.Label = []float64{}
	}
	if w.Value == nil && w.Value32 == nil {
		w.Value = []float64{}
	}
	switch {
	case f32 && w.Value != nil:
		w.Value32 = make([]float32, len(w.Value))
		for i, v := range w.Value {
			w.Value32[i] = float32(v)
		}
		w.Value = nil
	case !f32 && w.Value32 != nil:
		w.Value = make([]float64, len(w.Value32))
		for i, v := range w.Value32 {
			w.Value[i] = float64(v)
		}
		w.Value32 = nil
	}
	if !keepQID {
		w.QID = nil
	}
	return &w
}

func cnSmallCache(t testing.TB) []byte {
	r := rand.New(rand.NewPCG(3, 4))
	d := cnRandomDataset(r, 12, 9, false, true, 4)
	b, err := os.ReadFile(cnWriteTemp(t, d))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// cnOpen opens a cache with Open and unmaps it when the test ends.
func cnOpen(t testing.TB, path string, opt csr.Options) (*csr.Matrix, error) {
	d, release, err := Open(path, opt)
	if release != nil {
		t.Cleanup(func() { release() })
	}
	return d, err
}

// cnOpenBytes writes b to a temporary file and opens it as a cache, which
// it unmaps again at once: the next call rewrites the file.
func cnOpenBytes(t testing.TB, dir string, b []byte, opt csr.Options) (string, error) {
	path := filepath.Join(dir, "x.acf")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	_, release, err := Open(path, opt)
	if release != nil {
		release()
	}
	return path, err
}

func TestCacheTruncated(t *testing.T) {
	full := cnSmallCache(t)
	dir := t.TempDir()
	for n := 0; n < len(full); n++ {
		path, err := cnOpenBytes(t, dir, full[:n], csr.Options{KeepQID: true})
		if err == nil {
			t.Fatalf("length %d of %d: loaded", n, len(full))
		}
		if msg := err.Error(); !strings.HasPrefix(msg, path+": truncated cache: ") {
			t.Fatalf("length %d: %v", n, err)
		}
	}
	_, err := cnOpenBytes(t, dir, full, csr.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Trailing garbage is corruption too.
	_, err = cnOpenBytes(t, dir, append(full, 0), csr.Options{})
	if err == nil || !strings.Contains(err.Error(), "unexpected bytes after the end") {
		t.Fatalf("trailing byte: %v", err)
	}
}

func TestCacheCorruptBytes(t *testing.T) {
	full := cnSmallCache(t)
	le := binary.LittleEndian
	// Which section (or gap) each byte belongs to.
	owner := make([]string, len(full))
	for i := range owner {
		owner[i] = "padding"
	}
	for i := 0; i < cacheHeaderSize; i++ {
		owner[i] = "header"
	}
	for s := 0; s < cacheSections; s++ {
		e := full[chSections+s*chEntrySize:]
		off, n := le.Uint64(e), le.Uint64(e[8:])
		for i := off; i < off+n; i++ {
			owner[i] = cacheSectionNames[s]
		}
	}
	dir := t.TempDir()
	for i := range full {
		for _, mask := range []byte{0x01, 0x80, 0xff} {
			b := bytes.Clone(full)
			b[i] ^= mask
			_, err := cnOpenBytes(t, dir, b, csr.Options{KeepQID: true})
			if err == nil {
				t.Fatalf("byte %d (%s) ^ %#x: loaded", i, owner[i], mask)
			}
			msg := err.Error()
			var want []string
			switch owner[i] {
			case "header":
				want = []string{"header checksum mismatch", "bad magic", "format version"}
			case "padding":
				want = []string{"non-zero padding"}
			default:
				want = []string{owner[i] + " section checksum mismatch"}
			}
			ok := false
			for _, w := range want {
				ok = ok || strings.Contains(msg, w)
			}
			if !ok {
				t.Fatalf("byte %d (%s) ^ %#x: %v", i, owner[i], mask, err)
			}
		}
	}
}

// cnRewriteHeader applies edit to the header of b and fixes the header CRC.
func cnRewriteHeader(b []byte, edit func(h []byte)) []byte {
	b = bytes.Clone(b)
	edit(b[:cacheHeaderSize])
	binary.LittleEndian.PutUint32(b[chHeaderCRC:], crc32.Checksum(b[:chHeaderCRC], castagnoli))
	return b
}

func TestCacheBadHeaders(t *testing.T) {
	full := cnSmallCache(t)
	le := binary.LittleEndian
	cases := []struct {
		name string
		b    []byte
		want string
	}{
		{"wrong magic", append([]byte("ACFCDCSX"), full[8:]...), "not an acfcd binary cache (bad magic)"},
		{"libsvm text", []byte("1 3:0.5 7:1\n"), "bad magic"},
		{"future version", cnRewriteHeader(full, func(h []byte) { le.PutUint32(h[chVersion:], 7) }),
			"cache format version 7 is newer than this build of acfcd reads (version 1)"},
		{"future version, short file", append([]byte(cacheMagic), 2, 0, 0, 0), "cache format version 2 is newer"},
		{"version 0", cnRewriteHeader(full, func(h []byte) { le.PutUint32(h[chVersion:], 0) }), "invalid format version 0"},
		{"unknown flag", cnRewriteHeader(full, func(h []byte) { le.PutUint32(h[chFlags:], 6) }), "unknown header flags"},
		{"header size", cnRewriteHeader(full, func(h []byte) { le.PutUint32(h[chHeaderSize:], 256) }), "header size"},
		{"reserved", cnRewriteHeader(full, func(h []byte) { h[180] = 1 }), "reserved header fields"},
		{"absurd rows", cnRewriteHeader(full, func(h []byte) { le.PutUint64(h[chRows:], 1<<62) }), "rows cannot fit"},
		{"absurd nnz", cnRewriteHeader(full, func(h []byte) { le.PutUint64(h[chNNZ:], math.MaxUint64) }), "non-zeros cannot fit"},
		{"absurd features", cnRewriteHeader(full, func(h []byte) { le.PutUint64(h[chFeatures:], 1<<40) }), "exceeds the int32 index limit"},
		{"huge file size", cnRewriteHeader(full, func(h []byte) { le.PutUint64(h[chFileSize:], math.MaxUint64) }), "truncated cache"},
		{"rows vs size", cnRewriteHeader(full, func(h []byte) { le.PutUint64(h[chRows:], 13) }), "does not match"},
		{"float32 flag", cnRewriteHeader(full, func(h []byte) { le.PutUint32(h[chFlags:], cacheFlagFloat32|cacheFlagQID) }), "does not match"},
		{"section offset", cnRewriteHeader(full, func(h []byte) { le.PutUint64(h[chSections+chEntrySize:], 0) }), "Index section at offset 0"},
		{"features too small", cnRewriteHeader(full, func(h []byte) { le.PutUint64(h[chFeatures:], 3) }), "is not below the feature count 3"},
	}
	dir := t.TempDir()
	for _, tc := range cases {
		path, err := cnOpenBytes(t, dir, tc.b, csr.Options{})
		if err == nil {
			t.Errorf("%s: loaded", tc.name)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), path+": ") {
			t.Errorf("%s: %v; want %q", tc.name, err, tc.want)
		}
	}
	if HasMagic(full[:7]) || !HasMagic(full[:8]) || HasMagic([]byte("1 1:1\n")) {
		t.Error("HasMagic")
	}
}

// cnRawCache writes d without Write's checks (valid CRCs, bad data).
func cnRawCache(t *testing.T, d *csr.Matrix) string {
	path := filepath.Join(t.TempDir(), "raw.acf")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := writeCacheTo(f, d); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return path
}

func TestCacheBadCSR(t *testing.T) {
	mk := func(features int, rp []int64, idx []int32, val []float64, label []float64) *csr.Matrix {
		return &csr.Matrix{Rows: len(rp) - 1, Features: features, RowPtr: rp, Index: idx, Value: val, Label: label}
	}
	nan := math.NaN()
	cases := []struct {
		name string
		d    *csr.Matrix
		want string
	}{
		{"RowPtr[0]", mk(5, []int64{1, 2}, []int32{0, 1}, []float64{1, 1}, []float64{1}), "the row offsets start at 1"},
		{"RowPtr decreases", mk(5, []int64{0, 2, 1, 3}, []int32{0, 1, 2}, []float64{1, 1, 1}, []float64{1, 1, 1}), "row 1: the row offsets decrease"},
		{"index range", mk(5, []int64{0, 1, 2}, []int32{0, 5}, []float64{1, 1}, []float64{1, 1}), "row 1: feature index 5 is not below the feature count 5"},
		{"negative index", mk(5, []int64{0, 2}, []int32{-1, 2}, []float64{1, 1}, []float64{1}), "row 0: negative feature index -1"},
		{"unsorted", mk(5, []int64{0, 2}, []int32{3, 2}, []float64{1, 1}, []float64{1}), "row 0: feature indices not strictly increasing (2 after 3)"},
		{"duplicate", mk(5, []int64{0, 0, 2}, []int32{2, 2}, []float64{1, 1}, []float64{1, 1}), "row 1: feature indices not strictly increasing (2 after 2)"},
		{"NaN value", mk(5, []int64{0, 0, 0, 2}, []int32{1, 2}, []float64{1, nan}, []float64{1, 1, 1}), "row 2: value NaN is not finite"},
		{"Inf value", mk(5, []int64{0, 1}, []int32{1}, []float64{math.Inf(-1)}, []float64{1}), "row 0: value -Inf is not finite"},
		{"Inf label", mk(5, []int64{0, 1, 1}, []int32{1}, []float64{1}, []float64{1, math.Inf(1)}), "row 1: label +Inf is not finite"},
	}
	f32NaN := &csr.Matrix{Rows: 1, Features: 3, RowPtr: []int64{0, 1}, Index: []int32{2}, Value32: []float32{float32(nan)}, Label: []float64{0}}
	cases = append(cases, struct {
		name string
		d    *csr.Matrix
		want string
	}{"float32 NaN", f32NaN, "row 0: value NaN is not finite"})
	for _, tc := range cases {
		for _, force := range []bool{false, true} {
			cacheForceDecode = force
			path := cnRawCache(t, tc.d)
			_, err := cnOpen(t, path, csr.Options{Threads: 3})
			cacheForceDecode = false
			if err == nil {
				t.Errorf("%s: loaded", tc.name)
				continue
			}
			if !strings.Contains(err.Error(), "corrupt cache: "+tc.want) {
				t.Errorf("%s: %v; want %q", tc.name, err, tc.want)
			}
			// Write refuses the same matrix.
			err = Write(filepath.Join(t.TempDir(), "w.acf"), tc.d)
			if err == nil || !strings.Contains(err.Error(), "invalid dataset: "+tc.want) {
				t.Errorf("%s: Write: %v", tc.name, err)
			}
		}
	}
}

func TestCacheOptions(t *testing.T) {
	d := &csr.Matrix{Rows: 1, Features: 4, RowPtr: []int64{0, 1}, Index: []int32{3}, Value: []float64{1e300}, Label: []float64{1}}
	path := cnWriteTemp(t, d)
	if _, err := cnOpen(t, path, csr.Options{Float32: true}); err == nil || !strings.Contains(err.Error(), "does not fit in float32") {
		t.Errorf("float32 overflow: %v", err)
	}
	if _, err := cnOpen(t, path, csr.Options{MaxFeatures: 3}); err == nil || !strings.Contains(err.Error(), "more than the cap of 3 (Options.MaxFeatures = 4 reads this file)") {
		t.Errorf("MaxFeatures: %v", err)
	}
	if _, err := cnOpen(t, path, csr.Options{MaxFeatures: 4}); err != nil {
		t.Fatal(err)
	}
	if _, err := cnOpen(t, filepath.Join(t.TempDir(), "missing.acf"), csr.Options{}); err == nil {
		t.Error("missing file loaded")
	}
	if _, err := cnOpen(t, t.TempDir(), csr.Options{}); err == nil {
		t.Error("directory loaded")
	}
}

func TestCacheWriteAtomic(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	dir := t.TempDir()
	path := filepath.Join(dir, "c.acf")
	old := cnRandomDataset(r, 30, 10, false, false, 0)
	if err := Write(path, old); err != nil {
		t.Fatal(err)
	}
	oldBytes, _ := os.ReadFile(path)

	// Keep the old cache mapped while it is replaced: the mapping must
	// still show the old data afterwards.
	mapped, err := cnOpen(t, path, csr.Options{})
	if err != nil {
		t.Fatal(err)
	}
	repl := cnRandomDataset(r, 20, 5, true, true, 2)
	if err := Write(path, repl); err != nil {
		t.Fatal(err)
	}
	if diff := csrtest.Diff(mapped, cnExpected(old, false, false)); diff != "" {
		t.Fatalf("mapped old cache changed: %s", diff)
	}
	got, err := cnOpen(t, path, csr.Options{Float32: true, KeepQID: true})
	if err != nil {
		t.Fatal(err)
	}
	if diff := csrtest.Diff(got, cnExpected(repl, true, true)); diff != "" {
		t.Fatal(diff)
	}

	// A failed write leaves the target untouched and no temporary file.
	if err := Write(path, old); err != nil {
		t.Fatal(err)
	}
	bad := cnRandomDataset(r, 10, 5, false, false, 0)
	bad.Label[3] = math.NaN()
	if err := Write(path, bad); err == nil {
		t.Fatal("wrote a NaN label")
	}
	if b, _ := os.ReadFile(path); !bytes.Equal(b, oldBytes) {
		t.Fatal("target changed by a failed write")
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Fatalf("directory holds %d entries after writes, want 1", len(ents))
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v", st.Mode())
	}

	err = Write(filepath.Join(dir, "no", "such", "dir", "c.acf"), old)
	if err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("missing directory: %v", err)
	}
	if err := Write(dir, old); err == nil {
		t.Error("wrote over a directory")
	}
	if err := Write(path, nil); err == nil {
		t.Error("wrote nil")
	}
	if err := Write(path, &csr.Matrix{Rows: 2, RowPtr: []int64{0, 1}}); err == nil {
		t.Error("wrote a malformed dataset")
	}
}

// FuzzCache loads a file through the mapping and by decoding: both must
// accept or reject it, what loads must satisfy the CSR invariants, be the
// same both ways and write back byte for byte, and a small file must
// allocate little. Seeds in testdata/fuzz/FuzzCache (written by
// TestFuzzSeeds) hold valid, truncated, corrupted and absurd caches.
func FuzzCache(f *testing.F) {
	f.Add(cnSmallCache(f))
	r := rand.New(rand.NewPCG(7, 8))
	for _, d := range []*csr.Matrix{
		cnRandomDataset(r, 3, 4, true, false, 2),
		{RowPtr: []int64{0}},
	} {
		b, err := os.ReadFile(cnWriteTemp(f, d))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(cacheMagic))
	f.Add([]byte{})
	// One file, rewritten in place for every input: truncating a file to
	// zero and rewriting it is slow on some file systems. A second one
	// takes the rewrite of what loaded.
	path := filepath.Join(f.TempDir(), "fuzz.acf")
	file, err := os.Create(path)
	if err != nil {
		f.Fatal(err)
	}
	defer file.Close()
	again, err := os.Create(filepath.Join(f.TempDir(), "again.acf"))
	if err != nil {
		f.Fatal(err)
	}
	defer again.Close()
	f.Fuzz(func(t *testing.T, b []byte) {
		if err := file.Truncate(int64(len(b))); err != nil {
			t.Fatal(err)
		}
		if _, err := file.WriteAt(b, 0); err != nil {
			t.Fatal(err)
		}
		// Values as stored, so that what loads can be written back.
		opt := csr.Options{KeepQID: true, Threads: 2, Float32: len(b) > chFlags && b[chFlags]&cacheFlagFloat32 != 0}
		// Through the mapped file, then decoding into fresh slices (the
		// big-endian path) from memory.
		var d *csr.Matrix
		var err error
		csrtest.CheckAllocBound(t, len(b), func() { d, err = cnOpen(t, path, opt) })
		cacheForceDecode = true
		d2, _, err2 := decodeCache(path, b, opt)
		cacheForceDecode = false
		if (err == nil) != (err2 == nil) {
			t.Fatalf("mapped: %v; decoded: %v", err, err2)
		}
		if err != nil {
			return
		}
		if err := csr.Check(d, 1); err != nil {
			t.Fatalf("loaded an invalid dataset: %v", err)
		}
		if err := csr.Check(d2, 1); err != nil {
			t.Fatalf("loaded an invalid dataset: %v", err)
		}
		if diff := csrtest.Diff(d, d2); diff != "" {
			t.Fatalf("mapped and decoded differ: %s", diff)
		}
		// The layout is canonical: what loads is written back byte for byte.
		if err := again.Truncate(0); err != nil {
			t.Fatal(err)
		}
		if _, err := again.Seek(0, io.SeekStart); err != nil {
			t.Fatal(err)
		}
		if err := writeCacheTo(again, d); err != nil {
			t.Fatalf("rewrite: %v", err)
		}
		w := make([]byte, len(b)+1)
		n, _ := again.ReadAt(w, 0)
		if !bytes.Equal(w[:n], b) {
			t.Fatalf("rewrite differs: %d bytes, loaded %d", n, len(b))
		}
	})
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
		if a := testkit.Allocated(func() { _, err = cnOpen(t, path, csr.Options{}) }); a > 1<<20 {
			t.Errorf("%s: allocated %d bytes", tc.name, a)
		}
		if err == nil || !strings.HasPrefix(err.Error(), path+": ") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v; want %q", tc.name, err, tc.want)
		}
	}
}

var updateSeeds = flag.Bool("update-seeds", false, "rewrite testdata/fuzz/FuzzCache")

// TestFuzzSeeds: testdata/fuzz/FuzzCache holds the seeds below, small
// valid and broken caches (-update-seeds writes them), so that plain
// `go test` runs every one through FuzzCache.
func TestFuzzSeeds(t *testing.T) {
	le := binary.LittleEndian
	small := cnSmallCache(t)
	f32 := func() []byte {
		d := &csr.Matrix{Rows: 2, Features: 4, RowPtr: []int64{0, 2, 3}, Index: []int32{0, 3, 1},
			Value32: []float32{0.5, -2, 1e30}, Label: []float64{1, -1}, QID: []int64{7, 7}}
		path := filepath.Join(t.TempDir(), "f32.acf")
		if err := Write(path, d); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(path)
		return b
	}()
	empty := func() []byte {
		path := filepath.Join(t.TempDir(), "empty.acf")
		if err := Write(path, &csr.Matrix{RowPtr: []int64{0}}); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(path)
		return b
	}()
	huge := func() []byte {
		d := &csr.Matrix{Rows: 1, Features: math.MaxInt32, RowPtr: []int64{0, 1}, Index: []int32{math.MaxInt32 - 1},
			Value: []float64{1}, Label: []float64{1}}
		path := filepath.Join(t.TempDir(), "huge.acf")
		if err := Write(path, d); err != nil {
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
	seeds := map[string]string{}
	for name, b := range caches {
		seeds[name] = fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", b)
	}
	testkit.Seeds(t, filepath.Join("testdata", "fuzz", "FuzzCache"), seeds, *updateSeeds)
}

// cnBigDataset is about 500 MB of CSR: 1e6 rows, 4e7 non-zeros.
func cnBigDataset() *csr.Matrix {
	const rows, per = 1_000_000, 40
	d := &csr.Matrix{Rows: rows, Features: 1 << 20, RowPtr: make([]int64, rows+1),
		Index: make([]int32, rows*per), Value: make([]float64, rows*per), Label: make([]float64, rows)}
	r := rand.New(rand.NewPCG(9, 10))
	k := 0
	for i := 0; i < rows; i++ {
		step := int32(d.Features / per)
		for j := 0; j < per; j++ {
			d.Index[k] = int32(j)*step + r.Int32N(step)
			d.Value[k] = r.Float64()
			k++
		}
		d.RowPtr[i+1] = int64(k)
		d.Label[i] = float64(i%2*2 - 1)
	}
	return d
}

// BenchmarkOpenCache loads a ~500 MB cache from the page cache and reports
// GB/s next to the bare CRC-32C speed over the same bytes.
//
//	go test ./io/internal/cache -run '^$' -bench OpenCache -benchtime 5x
func BenchmarkOpenCache(b *testing.B) {
	d := cnBigDataset()
	dir, err := os.MkdirTemp("", "acfcd-cache-bench")
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "big.acf")
	t0 := time.Now()
	if err := Write(path, d); err != nil {
		b.Fatal(err)
	}
	st, _ := os.Stat(path)
	size := st.Size()
	b.Logf("wrote %.0f MB in %v", float64(size)/1e6, time.Since(t0))
	raw, _ := os.ReadFile(path)
	t0 = time.Now()
	crc32.Checksum(raw, castagnoli)
	crcSec := time.Since(t0).Seconds()
	raw = nil
	b.SetBytes(size)
	cpu0 := csrtest.CPUSeconds()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_, release, err := Open(path, csr.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if release != nil {
			release()
		}
	}
	b.StopTimer()
	cpu := csrtest.CPUSeconds() - cpu0
	b.ReportMetric(float64(size)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
	if cpu > 0 {
		b.ReportMetric(float64(size)*float64(b.N)/cpu/1e9, "GB/cpu-s")
	}
	// One goroutine checksumming the whole file, for comparison.
	b.ReportMetric(float64(size)/crcSec/1e9, "crc-GB/s")
}

func TestCRC32CCombine(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	b := make([]byte, 5000)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	for _, cut := range []int{0, 1, 7, 64, 1000, 4999, 5000} {
		a, c := crc32.Checksum(b[:cut], castagnoli), crc32.Checksum(b[cut:], castagnoli)
		if got, want := crc32cCombine(a, c, uint64(len(b)-cut)), crc32.Checksum(b, castagnoli); got != want {
			t.Errorf("cut %d: %08x, want %08x", cut, got, want)
		}
	}
}

// TestCacheMultiPiece covers sections cut into several verification pieces.
func TestCacheMultiPiece(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 40 MB cache")
	}
	const rows, per = 150_000, 20
	d := &csr.Matrix{Rows: rows, Features: 100_000, RowPtr: make([]int64, rows+1), Index: make([]int32, 0, rows*per),
		Value: make([]float64, 0, rows*per), Label: make([]float64, rows), QID: make([]int64, rows)}
	r := rand.New(rand.NewPCG(13, 14))
	for i := 0; i < rows; i++ {
		n := r.IntN(2 * per)
		if i == 70_000 {
			n = 20_000 // a row longer than a verification block
		}
		for j := 0; j < n; j++ {
			d.Index = append(d.Index, int32(j*(100_000/max(n, 1))))
			d.Value = append(d.Value, r.NormFloat64())
		}
		d.RowPtr[i+1] = int64(len(d.Index))
		d.Label[i] = r.NormFloat64()
		d.QID[i] = int64(i)
	}
	path := cnWriteTemp(t, d)
	for _, threads := range []int{1, 3} {
		got, err := cnOpen(t, path, csr.Options{KeepQID: true, Threads: threads})
		if err != nil {
			t.Fatal(err)
		}
		if diff := csrtest.Diff(got, d); diff != "" {
			t.Fatal(diff)
		}
	}
	full, _ := os.ReadFile(path)
	le := binary.LittleEndian
	secOff := func(s int) uint64 { return le.Uint64(full[chSections+s*chEntrySize:]) }
	dir := t.TempDir()
	for s := 0; s < cacheSections; s++ {
		b := bytes.Clone(full)
		n := le.Uint64(full[chSections+s*chEntrySize+8:])
		b[secOff(s)+n*3/4] ^= 4
		_, err := cnOpenBytes(t, dir, b, csr.Options{Threads: 2})
		if err == nil || !strings.Contains(err.Error(), cacheSectionNames[s]+" section checksum mismatch") {
			t.Errorf("%s: %v", cacheSectionNames[s], err)
		}
	}
	// Invariant violations in several pieces: the lowest row is reported.
	bad := *d
	bad.Index = append([]int32(nil), d.Index...)
	bad.Value = append([]float64(nil), d.Value...)
	bad.Value[bad.RowPtr[140_000]] = math.Inf(1)
	bad.Index[bad.RowPtr[120_001]+1] = bad.Index[bad.RowPtr[120_001]]
	bad.Label = append([]float64(nil), d.Label...)
	bad.Label[130_000] = math.NaN()
	for _, threads := range []int{1, 4} {
		_, err := cnOpen(t, cnRawCache(t, &bad), csr.Options{Threads: threads})
		want := "corrupt cache: row 120001: feature indices not strictly increasing"
		if bad.RowPtr[120_002]-bad.RowPtr[120_001] < 2 {
			t.Skip("row too short")
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("threads %d: %v; want %q", threads, err, want)
		}
	}
}
