package cache

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acfcd/acfcd/io/internal/csr"
	"github.com/acfcd/acfcd/io/internal/csrtest"
)

// csRows is rows [a, b) of d as a dataset of their own.
func csRows(d *csr.Matrix, a, b int) *csr.Matrix {
	p, q := d.RowPtr[a], d.RowPtr[b]
	c := &csr.Matrix{Rows: b - a, Features: d.Features, Index: d.Index[p:q], Label: d.Label[a:b]}
	for _, x := range d.RowPtr[a : b+1] {
		c.RowPtr = append(c.RowPtr, x-p)
	}
	if d.Value32 != nil {
		c.Value32 = d.Value32[p:q]
	} else {
		c.Value = d.Value[p:q]
	}
	return c
}

// csRowValues is row i's values as float64.
func csRowValues(d *csr.Matrix, i int) []float64 {
	p, q := d.RowPtr[i], d.RowPtr[i+1]
	if d.Value != nil {
		return d.Value[p:q]
	}
	v := make([]float64, 0, q-p)
	for _, x := range d.Value32[p:q] {
		v = append(v, float64(x))
	}
	return v
}

// csNoTemps fails when dir holds anything but the names in keep.
func csNoTemps(t *testing.T, dir string, keep ...string) {
	t.Helper()
	ents, _ := os.ReadDir(dir)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != strings.Join(keep, " ") {
		t.Errorf("directory holds %q, want %q", names, keep)
	}
}

// TestCacheStreamMatchesWrite: row by row, in blocks, with the shape
// known or not, the streamed cache is byte-identical to Write's.
func TestCacheStreamMatchesWrite(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	big := cnRandomDataset(r, 3000, 300, false, false, 7) // sections beyond the 1 MiB buffers
	datasets := map[string]*csr.Matrix{
		"random":    cnRandomDataset(r, 200, 40, false, false, 0),
		"empty-row": cnRandomDataset(r, 50, 9, false, false, 3),
		"float32":   cnRandomDataset(r, 120, 30, true, false, 5),
		"big":       big,
		"no-rows":   {Rows: 0, Features: 0, RowPtr: []int64{0}, Value: []float64{}, Label: []float64{}},
		"no-nnz":    {Rows: 3, Features: 0, RowPtr: []int64{0, 0, 0, 0}, Value: []float64{}, Label: []float64{1, -1, 1}},
		"wide":      {Rows: 2, Features: 1 << 20, RowPtr: []int64{0, 1, 3}, Index: []int32{5, 0, 7}, Value: []float64{1, 2, 3}, Label: []float64{1, -1}},
	}
	for name, d := range datasets {
		f32 := d.Value32 != nil
		want, err := os.ReadFile(cnWriteTemp(t, d))
		if err != nil {
			t.Fatal(err)
		}
		for _, known := range []bool{false, true} {
			for _, mode := range []string{"rows", "blocks", "whole"} {
				dir := t.TempDir()
				path := filepath.Join(dir, "s.acf")
				opt := StreamOptions{Features: d.Features, Float32: f32, KnownShape: known, Rows: d.Rows, NNZ: d.RowPtr[d.Rows]}
				if mode != "rows" {
					opt.Features = 0 // the blocks declare it
				}
				err := WriteStream(path, opt, func(w *StreamWriter) error {
					switch mode {
					case "rows":
						for i := 0; i < d.Rows; i++ {
							p, q := d.RowPtr[i], d.RowPtr[i+1]
							if err := w.WriteRow(d.Label[i], d.Index[p:q], csRowValues(d, i)); err != nil {
								return err
							}
						}
					case "blocks":
						for a := 0; a < d.Rows; {
							b := min(d.Rows, a+1+r.IntN(40))
							if err := w.WriteRows(csRows(d, a, b)); err != nil {
								return err
							}
							a = b
						}
						if d.Rows == 0 {
							return w.WriteRows(d)
						}
					case "whole":
						return w.WriteRows(d)
					}
					if w.Rows() != d.Rows || w.NNZ() != d.RowPtr[d.Rows] {
						t.Errorf("%s: writer counts %d rows %d nnz", name, w.Rows(), w.NNZ())
					}
					return nil
				})
				if err != nil {
					t.Fatalf("%s known=%v %s: %v", name, known, mode, err)
				}
				got, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("%s known=%v %s: %d bytes differ from Write's %d", name, known, mode, len(got), len(want))
				}
				csNoTemps(t, dir, "s.acf")
				l, err := cnOpen(t, path, csr.Options{Float32: f32})
				if err != nil {
					t.Fatal(err)
				}
				if diff := csrtest.Diff(l, cnExpected(d, f32, false)); diff != "" {
					t.Errorf("%s: loaded: %s", name, diff)
				}
			}
		}
	}
}

// TestCacheStreamConvertsValues: float32 blocks into a float64 cache and
// float64 rows into a float32 cache.
func TestCacheStreamConvertsValues(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	d32 := cnRandomDataset(r, 80, 20, true, false, 4)
	d64 := cnExpected(d32, false, false)
	for _, c := range []struct {
		in, want *csr.Matrix
		f32      bool
	}{{d32, d64, false}, {d64, d32, true}} {
		want, _ := os.ReadFile(cnWriteTemp(t, c.want))
		path := filepath.Join(t.TempDir(), "c.acf")
		err := WriteStream(path, StreamOptions{Float32: c.f32}, func(w *StreamWriter) error {
			if err := w.WriteRows(csRows(c.in, 0, 30)); err != nil {
				return err
			}
			for i := 30; i < c.in.Rows; i++ {
				p, q := c.in.RowPtr[i], c.in.RowPtr[i+1]
				if err := w.WriteRow(c.in.Label[i], c.in.Index[p:q], csRowValues(c.in, i)); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(path); !bytes.Equal(got, want) {
			t.Errorf("float32=%v: bytes differ from Write", c.f32)
		}
	}
}

// TestCacheStreamRejects: bad rows are refused without harm; a shape that
// does not match, Abort and a failed Close leave nothing behind.
func TestCacheStreamRejects(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "c.acf")
	old := &csr.Matrix{Rows: 1, Features: 3, RowPtr: []int64{0, 1}, Index: []int32{2}, Value: []float64{4}, Label: []float64{1}}
	if err := Write(path, old); err != nil {
		t.Fatal(err)
	}
	oldBytes, _ := os.ReadFile(path)

	var leaked *StreamWriter
	good := &csr.Matrix{Rows: 2, Features: 6, RowPtr: []int64{0, 2, 3}, Index: []int32{0, 5, 1}, Value32: []float32{1, 2, 3}, Label: []float64{-1, 1}}
	err := WriteStream(path, StreamOptions{Float32: true}, func(w *StreamWriter) error {
		leaked = w
		for _, c := range []struct {
			label float64
			idx   []int32
			val   []float64
			want  string
		}{
			{1, []int32{3, 3}, []float64{1, 2}, "not strictly increasing"},
			{1, []int32{-1}, []float64{1}, "row 0"},
			{math.NaN(), nil, nil, "label NaN is not finite"},
			{1, []int32{1}, []float64{math.Inf(1)}, "value +Inf is not finite"},
			{1, []int32{1}, []float64{1e300}, "does not fit in float32"},
			{1, []int32{1, 2}, []float64{1}, "2 indices but 1 values"},
		} {
			err := w.WriteRow(c.label, c.idx, c.val)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%v %v %v: %v, want %q", c.label, c.idx, c.val, err, c.want)
			}
		}
		if err := w.WriteRows(&csr.Matrix{Rows: 1, Features: 2, RowPtr: []int64{0, 1}, Index: []int32{2}, Value: []float64{1}, Label: []float64{1}}); err == nil {
			t.Error("index beyond the block's Features accepted")
		}
		if err := w.WriteRows(&csr.Matrix{Rows: 1, Features: 2, RowPtr: []int64{0, 0}, Value: []float64{}, Label: []float64{1}, QID: []int64{4}}); err == nil {
			t.Error("QID accepted")
		}
		// The writer is still usable: the good rows make the cache.
		for i := 0; i < 2; i++ {
			p, q := good.RowPtr[i], good.RowPtr[i+1]
			if err := w.WriteRow(good.Label[i], good.Index[p:q], csRowValues(good, i)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile(cnWriteTemp(t, good))
	if got, _ := os.ReadFile(path); !bytes.Equal(got, want) {
		t.Error("cache after refused rows differs from Write of the good rows")
	}
	if err := leaked.WriteRow(1, nil, nil); err == nil {
		t.Error("WriteRow after fill returned succeeded")
	}
	if err := Write(path, old); err != nil {
		t.Fatal(err)
	}

	// Known shape: too many rows or non-zeros are refused, too few fail.
	err = WriteStream(path, StreamOptions{KnownShape: true, Rows: 2, NNZ: 2}, func(w *StreamWriter) error {
		if err := w.WriteRow(1, []int32{0, 1, 2}, []float64{1, 1, 1}); err == nil || !strings.Contains(err.Error(), "declared") {
			t.Errorf("too many non-zeros: %v", err)
		}
		return w.WriteRow(1, []int32{0}, []float64{1})
	})
	if err == nil || !strings.Contains(err.Error(), "declared 2 and 2") || !strings.Contains(err.Error(), path) {
		t.Errorf("short stream: %v", err)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, oldBytes) {
		t.Error("failed stream changed the existing file")
	}
	csNoTemps(t, dir, "c.acf")

	// fill failing or panicking, with or without spill files.
	for _, known := range []bool{false, true} {
		boom := errors.New("boom")
		var err error
		func() {
			defer func() {
				if r := recover(); r != nil {
					err = r.(error)
				}
			}()
			err = WriteStream(path, StreamOptions{KnownShape: known, Rows: 1, NNZ: 1}, func(w *StreamWriter) error {
				if err := w.WriteRow(1, []int32{0}, []float64{1}); err != nil {
					t.Fatal(err)
				}
				if known {
					panic(boom)
				}
				return boom
			})
		}()
		if !errors.Is(err, boom) {
			t.Errorf("fill error: %v", err)
		}
		if got, _ := os.ReadFile(path); !bytes.Equal(got, oldBytes) {
			t.Error("failed fill changed the existing file")
		}
		csNoTemps(t, dir, "c.acf")
	}

	noop := func(*StreamWriter) error { return nil }
	if err := WriteStream(filepath.Join(dir, "no", "c.acf"), StreamOptions{}, noop); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("missing directory: %v", err)
	}
	if err := WriteStream(dir, StreamOptions{}, noop); err == nil {
		t.Error("cache over a directory")
	}
	if err := WriteStream(path, StreamOptions{Features: -1}, noop); err == nil {
		t.Error("negative features accepted")
	}
}

// TestCacheStreamEncodes covers the element-by-element encoding that
// big-endian hosts use.
func TestCacheStreamEncodes(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 26))
	for _, d := range []*csr.Matrix{cnRandomDataset(r, 60, 20, false, false, 4), cnRandomDataset(r, 60, 20, true, false, 0)} {
		want, _ := os.ReadFile(cnWriteTemp(t, d))
		path := filepath.Join(t.TempDir(), "e.acf")
		saved := hostLittleEndian
		hostLittleEndian = false
		err := WriteStream(path, StreamOptions{Float32: d.Value32 != nil}, func(w *StreamWriter) error {
			if err := w.WriteRows(csRows(d, 0, 25)); err != nil {
				return err
			}
			for i := 25; i < d.Rows; i++ {
				p, q := d.RowPtr[i], d.RowPtr[i+1]
				if err := w.WriteRow(d.Label[i], d.Index[p:q], csRowValues(d, i)); err != nil {
					return err
				}
			}
			return nil
		})
		hostLittleEndian = saved
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(path); !bytes.Equal(got, want) {
			t.Errorf("float32=%v: bytes differ from Write", d.Value32 != nil)
		}
	}
}
