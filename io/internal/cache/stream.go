package cache

// Streaming cache writer: builds a binary cache (layout in cache.go) row by
// row, for data that is produced on the fly and never held in memory as a
// whole. The file it writes is byte-identical to Write of the same matrix.
// Package io's CacheStreamOptions, CacheStreamWriter and WriteCacheStream
// are these, documented for its callers.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"

	"github.com/acfcd/acfcd/internal/atomicfile"
	"github.com/acfcd/acfcd/io/internal/csr"
)

// StreamOptions shape a cache written by WriteStream. They are
// dataio.CacheStreamOptions, documented there, which converts to them.
type StreamOptions struct {
	Features   int
	Float32    bool
	KnownShape bool
	Rows       int
	NNZ        int64
}

// StreamWriter writes a binary cache row by row in O(1) memory (a few MiB
// of buffers); WriteStream hands one to its fill function. It is the
// writer behind dataio.CacheStreamWriter, which documents the contract.
type StreamWriter struct {
	opt    StreamOptions
	spill  [secLabel + 1]*os.File // spill files of the unknown-shape mode
	spillN [secLabel + 1]string   // their names, while they still have one
	sink   [secLabel + 1]*sectionSink
	rows   int
	nnz    int64
	feats  int64 // features declared by opt and WriteRows datasets
	maxIdx int64 // largest index written, -1 for none
	err    error // sticky I/O error
	done   bool  // fill has returned
	conv   []byte
	rp1    [1]int64 // WriteRow's RowPtr entry and label
	label1 [1]float64
}

// sectionSink buffers one section and writes it at increasing offsets of
// a file, keeping the section's CRC-32C.
type sectionSink struct {
	f   *os.File
	off int64 // file offset of the next write
	buf []byte
	crc uint32
	n   uint64 // bytes accepted
}

const streamBufSize = 1 << 20

func (s *sectionSink) put(b []byte) error {
	s.n += uint64(len(b))
	for len(b) > 0 {
		if len(s.buf) == 0 && len(b) >= cap(s.buf) {
			// Large writes go straight to the file.
			k := len(b) - len(b)%cap(s.buf)
			if err := s.writeOut(b[:k]); err != nil {
				return err
			}
			b = b[k:]
			continue
		}
		k := min(len(b), cap(s.buf)-len(s.buf))
		s.buf = append(s.buf, b[:k]...)
		b = b[k:]
		if len(s.buf) == cap(s.buf) {
			if err := s.flush(); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s *sectionSink) flush() error {
	if len(s.buf) == 0 {
		return nil
	}
	err := s.writeOut(s.buf)
	s.buf = s.buf[:0]
	return err
}

func (s *sectionSink) writeOut(b []byte) error {
	s.crc = crc32.Update(s.crc, castagnoli, b)
	_, err := s.f.WriteAt(b, s.off)
	s.off += int64(len(b))
	return err
}

// WriteStream writes a binary cache to path from the rows that fill
// passes to the writer: byte for byte what Write would write for the same
// rows, and atomically as Write does (dataio.WriteCacheStream has the
// details).
func WriteStream(path string, opt StreamOptions, fill func(w *StreamWriter) error) error {
	if opt.Features < 0 || int64(opt.Features) > cacheMaxFeatures {
		return fmt.Errorf("write cache %s: feature count %d out of range", path, opt.Features)
	}
	if opt.KnownShape && (opt.Rows < 0 || opt.NNZ < 0) {
		return fmt.Errorf("write cache %s: negative shape: %d rows, %d non-zeros", path, opt.Rows, opt.NNZ)
	}
	return atomicfile.WriteFile(path, func(f *os.File) error {
		w := &StreamWriter{opt: opt, feats: int64(opt.Features), maxIdx: -1}
		defer w.release()
		if err := w.start(f, path); err != nil {
			return err
		}
		err := fill(w)
		if err == nil {
			err = w.err
		}
		if err != nil {
			return err
		}
		return w.finish(f)
	})
}

// start sets up the section sinks on the (empty) cache file f.
func (w *StreamWriter) start(f *os.File, path string) error {
	newSink := func(f *os.File, off int64) *sectionSink {
		return &sectionSink{f: f, off: off, buf: make([]byte, 0, streamBufSize)}
	}
	if w.opt.KnownShape {
		secs, _ := cacheLayout(uint64(w.opt.Rows), uint64(w.opt.NNZ), w.opt.Float32, false)
		for s := range w.sink {
			w.sink[s] = newSink(f, int64(secs[s].off))
		}
	} else {
		w.sink[secRowPtr] = newSink(f, cacheHeaderSize) // RowPtr starts at the header's end whatever the shape
		for s := secIndex; s <= secLabel; s++ {
			// Named as atomicfile's temporary files, so that atomicfile.IsTemp
			// knows a stray one.
			sf, err := os.CreateTemp(filepath.Dir(path), atomicfile.TempPattern(filepath.Base(path), ".tmp-"+cacheSectionNames[s]+"-"))
			if err != nil {
				return fmt.Errorf("spill file: %w", err)
			}
			w.spill[s], w.spillN[s] = sf, sf.Name()
			if runtime.GOOS != "windows" && os.Remove(sf.Name()) == nil {
				w.spillN[s] = "" // gone with the descriptor, even after a crash
			}
			w.sink[s] = newSink(sf, 0)
		}
	}
	var zero [8]byte
	return w.sink[secRowPtr].put(zero[:]) // RowPtr[0]
}

// release closes and removes the spill files; the writer is unusable after.
func (w *StreamWriter) release() {
	w.done = true
	for s := range w.spill {
		if w.spill[s] != nil {
			w.spill[s].Close()
			w.spill[s] = nil
		}
		if w.spillN[s] != "" {
			os.Remove(w.spillN[s])
			w.spillN[s] = ""
		}
	}
}

// Rows is the number of rows written so far.
func (w *StreamWriter) Rows() int { return w.rows }

// NNZ is the number of non-zeros written so far.
func (w *StreamWriter) NNZ() int64 { return w.nnz }

// usable reports the reason the writer can take no more rows.
func (w *StreamWriter) usable() error {
	if w.done {
		return errors.New("cache stream writer used after its fill function returned")
	}
	return w.err
}

// room checks that rows and nnz more fit the declared shape.
func (w *StreamWriter) room(rows int, nnz int64) error {
	if !w.opt.KnownShape {
		return nil
	}
	if rows > w.opt.Rows-w.rows || nnz > w.opt.NNZ-w.nnz {
		return fmt.Errorf("more than the declared %d rows and %d non-zeros (at row %d)", w.opt.Rows, w.opt.NNZ, w.rows)
	}
	return nil
}

// WriteRow appends one row: its label, its 0-based feature indices
// (strictly increasing) and their values.
func (w *StreamWriter) WriteRow(label float64, index []int32, value []float64) error {
	if err := w.usable(); err != nil {
		return err
	}
	if len(index) != len(value) {
		return fmt.Errorf("row %d: %d indices but %d values", w.rows, len(index), len(value))
	}
	if math.IsNaN(label) || math.IsInf(label, 0) {
		return fmt.Errorf("row %d: label %g is not finite", w.rows, label)
	}
	if !csr.RowIndicesOK(index, cacheMaxFeatures) {
		return errors.New(csr.DescribeBadRow(w.rows, index, cacheMaxFeatures))
	}
	if k := csr.FirstNonFinite64(value); k >= 0 {
		return fmt.Errorf("row %d: value %g is not finite", w.rows, value[k])
	}
	if w.opt.Float32 {
		for _, v := range value {
			if math.IsInf(float64(float32(v)), 0) {
				return fmt.Errorf("row %d: value %g does not fit in float32", w.rows, v)
			}
		}
	}
	if err := w.room(1, int64(len(index))); err != nil {
		return err
	}
	w.rp1[0], w.label1[0] = w.nnz+int64(len(index)), label
	w.appendRows(1, w.rp1[:], index, value, nil, w.label1[:])
	return w.err
}

// WriteRows appends every row of d, which must be a valid matrix (as
// Write requires) without QID. d.Features counts as declared features
// (see StreamOptions.Features).
func (w *StreamWriter) WriteRows(d *csr.Matrix) error {
	if err := w.usable(); err != nil {
		return err
	}
	if d == nil {
		return errors.New("nil dataset")
	}
	if d.QID != nil {
		return errors.New("a streamed cache has no QID section")
	}
	c := *d
	if c.Value == nil && c.Value32 == nil && len(c.RowPtr) > 0 && c.RowPtr[len(c.RowPtr)-1] == 0 {
		c.Value = []float64{}
	}
	if err := csr.Check(&c, 1); err != nil {
		return fmt.Errorf("rows %d..: %v", w.rows, err)
	}
	nnz := c.RowPtr[c.Rows]
	if w.opt.Float32 && c.Value != nil {
		for i, v := range c.Value {
			if math.IsInf(float64(float32(v)), 0) {
				return fmt.Errorf("row %d: value %g does not fit in float32", w.rows+csr.RowOf(c.RowPtr, int64(i)), v)
			}
		}
	}
	if err := w.room(c.Rows, nnz); err != nil {
		return err
	}
	w.feats = max(w.feats, int64(c.Features))
	if c.Rows == 0 {
		return nil
	}
	rp := make([]int64, 0, min(c.Rows, 8192))
	for r0 := 0; r0 < c.Rows && w.err == nil; r0 += cap(rp) {
		r1 := min(r0+cap(rp), c.Rows)
		rp = rp[:0]
		for _, p := range c.RowPtr[r0+1 : r1+1] {
			rp = append(rp, w.nnz+p-c.RowPtr[r0])
		}
		a, b := c.RowPtr[r0], c.RowPtr[r1]
		var v64 []float64
		var v32 []float32
		if c.Value != nil {
			v64 = c.Value[a:b]
		} else {
			v32 = c.Value32[a:b]
		}
		w.appendRows(r1-r0, rp, c.Index[a:b], v64, v32, c.Label[r0:r1])
	}
	return w.err
}

// appendRows writes checked rows: their RowPtr entries (absolute), indices,
// values (one of v64, v32) and labels.
func (w *StreamWriter) appendRows(rows int, rp []int64, idx []int32, v64 []float64, v32 []float32, label []float64) {
	put := func(s int, b []byte) {
		if w.err == nil {
			if err := w.sink[s].put(b); err != nil {
				w.err = err
			}
		}
	}
	putElems(w, secRowPtr, rp, put)
	putElems(w, secIndex, idx, put)
	switch {
	case w.opt.Float32 && v32 != nil:
		putElems(w, secValue, v32, put)
	case !w.opt.Float32 && v64 != nil:
		putElems(w, secValue, v64, put)
	case w.opt.Float32: // float64 → float32, range checked by the caller
		for k := 0; k < len(v64); k += 4096 {
			part := v64[k:min(k+4096, len(v64))]
			b := w.conv[:0]
			for _, v := range part {
				b = binary.LittleEndian.AppendUint32(b, math.Float32bits(float32(v)))
			}
			w.conv = b
			put(secValue, b)
		}
	default: // float32 → float64
		for k := 0; k < len(v32); k += 4096 {
			part := v32[k:min(k+4096, len(v32))]
			b := w.conv[:0]
			for _, v := range part {
				b = binary.LittleEndian.AppendUint64(b, math.Float64bits(float64(v)))
			}
			w.conv = b
			put(secValue, b)
		}
	}
	putElems(w, secLabel, label, put)
	if w.err == nil {
		base := w.nnz
		w.rows += rows
		w.nnz = rp[len(rp)-1]
		w.maxIdx = max(w.maxIdx, int64(maxRowEnd(rp, idx, base)))
	}
}

// maxRowEnd is the largest index in idx, whose rows end at the absolute
// positions rp (idx starts at absolute position base); the last index of
// a row is its largest.
func maxRowEnd(rp []int64, idx []int32, base int64) int32 {
	m := int32(-1)
	prev := base
	for _, p := range rp {
		if p > prev {
			m = max(m, idx[p-1-base])
		}
		prev = p
	}
	return m
}

// putElems writes s little-endian to section sec: straight from memory on
// little-endian hosts, through the conversion buffer otherwise.
func putElems[T int64 | int32 | float64 | float32](w *StreamWriter, sec int, s []T, put func(int, []byte)) {
	if hostLittleEndian {
		put(sec, bytesView(s))
		return
	}
	for k := 0; k < len(s); k += 4096 {
		b := w.conv[:0]
		for _, v := range s[k:min(k+4096, len(s))] {
			b = appendLE(b, v)
		}
		w.conv = b
		put(sec, b)
	}
}

// finish completes the cache image in f: the sections still buffered or
// spilled, and the header.
func (w *StreamWriter) finish(f *os.File) error {
	w.done = true
	if w.opt.KnownShape && (w.rows != w.opt.Rows || w.nnz != w.opt.NNZ) {
		return fmt.Errorf("wrote %d rows and %d non-zeros, declared %d and %d", w.rows, w.nnz, w.opt.Rows, w.opt.NNZ)
	}
	features := max(w.feats, w.maxIdx+1)
	rows, nnz := uint64(w.rows), uint64(w.nnz)
	secs, fileSize := cacheLayout(rows, nnz, w.opt.Float32, false)
	for s := range w.sink {
		if err := w.sink[s].flush(); err != nil {
			return err
		}
		if w.sink[s].n != secs[s].len {
			return fmt.Errorf("internal error: %s section has %d bytes, layout says %d", cacheSectionNames[s], w.sink[s].n, secs[s].len)
		}
		secs[s].crc = w.sink[s].crc
	}
	if !w.opt.KnownShape {
		for s := secIndex; s <= secLabel; s++ {
			if err := copySection(f, int64(secs[s].off), w.spill[s], int64(secs[s].len)); err != nil {
				return fmt.Errorf("assembling the %s section: %w", cacheSectionNames[s], err)
			}
		}
	}
	// Holes between sections read as zeros; Truncate also extends the file
	// when the last sections are empty.
	if err := f.Truncate(int64(fileSize)); err != nil {
		return err
	}
	var flags uint32
	if w.opt.Float32 {
		flags |= cacheFlagFloat32
	}
	_, err := f.WriteAt(encodeCacheHeader(flags, rows, uint64(features), nnz, fileSize, &secs), 0)
	return err
}

// copySection copies n bytes from the start of src to dst at off.
func copySection(dst *os.File, off int64, src *os.File, n int64) error {
	if n == 0 {
		return nil
	}
	if _, err := dst.Seek(off, io.SeekStart); err != nil {
		return err
	}
	if _, err := src.Seek(0, io.SeekStart); err != nil {
		return err
	}
	// *os.File to *os.File: copy_file_range on Linux.
	got, err := io.Copy(dst, io.LimitReader(src, n))
	if err == nil && got != n {
		err = fmt.Errorf("copied %d of %d bytes", got, n)
	}
	return err
}
