// Package cache reads and writes acfcd's binary cache for package io: a
// versioned, checksummed CSR image that loads by mmap.
//
// `acfcd convert DATA OUT` writes one with dataio.WriteCache (Write here);
// every command that accepts DATA loads it through Open. Loading maps the
// file read-only, verifies it, and points the dataset's slices straight
// into the mapping: no parsing and no copy, so a load costs about one
// checksum pass over the file.
//
// # Layout, format version 1
//
// All integers and floats are little-endian.
//
//	offset  size  field
//	     0     8  magic "ACFCDCSR"
//	     8     4  format version, uint32 (1)
//	    12     4  flags, uint32: bit 0 values are float32 (else float64),
//	              bit 1 a QID section is present; other bits are 0
//	    16     4  header size, uint32 (192)
//	    20     4  reserved, 0
//	    24     8  rows, uint64
//	    32     8  features, uint64 (every index is < features; at most 2^31)
//	    40     8  nnz, uint64
//	    48     8  file size in bytes, uint64
//	    56   120  section table: 5 entries of 24 bytes, in the order
//	              RowPtr, Index, Value, Label, QID; each entry is
//	              offset uint64, length uint64, CRC-32C uint32, reserved uint32 (0)
//	   176    12  reserved, 0
//	   188     4  CRC-32C of bytes 0..187
//	   192     …  the sections, in table order
//
// Sections hold RowPtr as (rows+1) int64, Index as nnz int32 (0-based),
// Value as nnz float64 or float32, Label as rows float64 and QID as rows
// int64. The layout is canonical: the first section starts at 192, each
// following one at the next multiple of 64 after the end of the previous
// one (so every slice is 64-byte aligned in the mapping), the bytes in
// between are zero, and the file ends where the last section ends. An
// absent QID section has offset, length and CRC 0. CRC-32C is the
// Castagnoli polynomial (hash/crc32), computed over each section's exact
// bytes (not its padding, which must be zero instead).
//
// A dataset with zero rows is a valid cache (RowPtr holds a single 0).
//
// # What Open checks
//
// Before any slice is handed out: magic, version (a newer version gets its
// own message), header checksum, flags and reserved fields, the file size
// (a short file is reported as "truncated cache"), counts (rejected when
// they cannot fit in the file, before anything is allocated), the section
// table against the canonical layout, zero padding, every section's CRC,
// and then the CSR invariants the kernels rely on: RowPtr[0] = 0,
// non-decreasing, RowPtr[rows] = nnz; every index in [0, features) and
// strictly increasing within its row; values and labels finite.
//
// The mapping stays valid until Dataset.Close (Open's release). Rewriting a
// cache that is in use is safe because Write replaces the file by rename;
// truncating a mapped cache in place (which acfcd never does) would fault
// the process.
//
// Options.Float32 asks for float32 values: when the file's value storage
// differs from the request, the Value section is converted into a freshly
// allocated slice (float64 → float32 rejects values beyond float32's
// range); every other section still points into the mapping. KeepQID
// false drops a QID section (it is still checksummed). On big-endian
// machines every section is decoded into fresh slices.
package cache

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"unsafe"

	"github.com/acfcd/acfcd/internal/atomicfile"
	"github.com/acfcd/acfcd/io/internal/csr"
)

const (
	cacheMagic      = "ACFCDCSR"
	cacheVersion    = 1
	cacheHeaderSize = 192
	cacheAlign      = 64

	cacheFlagFloat32 = 1 << 0
	cacheFlagQID     = 1 << 1
	cacheFlagsKnown  = cacheFlagFloat32 | cacheFlagQID

	cacheMaxFeatures = csr.IndexLimit

	// header field offsets
	chVersion    = 8
	chFlags      = 12
	chHeaderSize = 16
	chReserved1  = 20
	chRows       = 24
	chFeatures   = 32
	chNNZ        = 40
	chFileSize   = 48
	chSections   = 56
	chEntrySize  = 24
	chReserved2  = chSections + cacheSections*chEntrySize // 176
	chHeaderCRC  = 188
)

// Section numbers, in file order.
const (
	secRowPtr = iota
	secIndex
	secValue
	secLabel
	secQID
	cacheSections
)

var cacheSectionNames = [cacheSections]string{"RowPtr", "Index", "Value", "Label", "QID"}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// cacheForceDecode makes Open decode sections into fresh slices, as on
// a big-endian machine, instead of pointing into the mapping (for tests).
var cacheForceDecode = false

var hostLittleEndian = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

// HasMagic reports whether a file starting with prefix is an acfcd binary
// cache.
func HasMagic(prefix []byte) bool {
	return len(prefix) >= len(cacheMagic) && string(prefix[:len(cacheMagic)]) == cacheMagic
}

type cacheSection struct {
	off, len uint64
	crc      uint32
}

// cacheLayout is the canonical section table for the given shape.
func cacheLayout(rows, nnz uint64, float32Values, qid bool) (secs [cacheSections]cacheSection, fileSize uint64) {
	valSize := uint64(8)
	if float32Values {
		valSize = 4
	}
	lens := [cacheSections]uint64{(rows + 1) * 8, nnz * 4, nnz * valSize, rows * 8, 0}
	if qid {
		lens[secQID] = rows * 8
	}
	end := uint64(cacheHeaderSize)
	for s := range secs {
		if s == secQID && !qid {
			continue
		}
		off := alignUp(end)
		secs[s] = cacheSection{off: off, len: lens[s]}
		end = off + lens[s]
	}
	return secs, end
}

func alignUp(n uint64) uint64 { return (n + cacheAlign - 1) &^ (cacheAlign - 1) }

// Open maps a binary cache file and verifies it (see the layout above).
// Unless release is nil, slices of m point into the mapping, and release
// unmaps it once they are no longer used.
func Open(path string, opt csr.Options) (m *csr.Matrix, release func() error, err error) {
	mem, unmap, err := mapCacheFile(path)
	if err != nil {
		return nil, nil, err
	}
	d, inMapping, err := decodeCacheGuarded(path, mem, opt)
	if err != nil || !inMapping {
		if uerr := unmap(); err == nil && uerr != nil {
			err = fmt.Errorf("%s: %w", path, uerr)
		}
		if err != nil {
			return nil, nil, err
		}
		return d, nil, nil
	}
	return d, unmap, nil
}

// errCacheFault reports a memory fault while reading a mapped cache: the
// file shrank (was truncated in place) while it was being verified.
var errCacheFault = errors.New("cache file changed while being read (memory fault); was it truncated or rewritten in place?")

// decodeCacheGuarded is decodeCache with memory faults in the mapping
// turned into errCacheFault instead of crashing the process.
func decodeCacheGuarded(path string, mem []byte, opt csr.Options) (d *csr.Matrix, inMapping bool, err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(interface{ Addr() uintptr }); !ok {
				panic(r)
			}
			d, inMapping, err = nil, false, fmt.Errorf("%s: %w", path, errCacheFault)
		}
	}()
	return decodeCache(path, mem, opt)
}

// cacheError is a problem with a cache file: "PATH: msg".
func cacheError(path, format string, a ...any) error {
	return fmt.Errorf("%s: %s", path, fmt.Sprintf(format, a...))
}

// decodeCache verifies mem (the whole file) and builds a Matrix over it.
// inMapping reports whether any slice of the result points into mem.
func decodeCache(path string, mem []byte, opt csr.Options) (d *csr.Matrix, inMapping bool, err error) {
	n := uint64(len(mem))
	le := binary.LittleEndian
	if n < uint64(len(cacheMagic)) {
		if bytes.HasPrefix([]byte(cacheMagic), mem) {
			return nil, false, cacheError(path, "truncated cache: file is %d bytes, smaller than the %d-byte header", n, cacheHeaderSize)
		}
		return nil, false, cacheError(path, "not an acfcd binary cache (bad magic)")
	}
	if !HasMagic(mem) {
		return nil, false, cacheError(path, "not an acfcd binary cache (bad magic)")
	}
	if n < chVersion+4 {
		return nil, false, cacheError(path, "truncated cache: file is %d bytes, smaller than the %d-byte header", n, cacheHeaderSize)
	}
	switch v := le.Uint32(mem[chVersion:]); {
	case v > cacheVersion:
		return nil, false, cacheError(path, "cache format version %d is newer than this build of acfcd reads (version %d); upgrade acfcd or re-create the cache with this build's `acfcd convert`", v, cacheVersion)
	case v != cacheVersion:
		return nil, false, cacheError(path, "corrupt cache: invalid format version %d", v)
	}
	if n < cacheHeaderSize {
		return nil, false, cacheError(path, "truncated cache: file is %d bytes, smaller than the %d-byte header", n, cacheHeaderSize)
	}
	hdr := mem[:cacheHeaderSize]
	if got, want := crc32.Checksum(hdr[:chHeaderCRC], castagnoli), le.Uint32(hdr[chHeaderCRC:]); got != want {
		return nil, false, cacheError(path, "corrupt cache: header checksum mismatch (stored %08x, computed %08x)", want, got)
	}
	flags := le.Uint32(hdr[chFlags:])
	if flags&^cacheFlagsKnown != 0 {
		return nil, false, cacheError(path, "corrupt cache: unknown header flags %#x", flags)
	}
	if hs := le.Uint32(hdr[chHeaderSize:]); hs != cacheHeaderSize {
		return nil, false, cacheError(path, "corrupt cache: header size %d, want %d", hs, cacheHeaderSize)
	}
	if le.Uint32(hdr[chReserved1:]) != 0 || !allZero(hdr[chReserved2:chHeaderCRC]) {
		return nil, false, cacheError(path, "corrupt cache: reserved header fields are not zero")
	}
	rows, features, nnz := le.Uint64(hdr[chRows:]), le.Uint64(hdr[chFeatures:]), le.Uint64(hdr[chNNZ:])
	fileSize := le.Uint64(hdr[chFileSize:])
	if n < fileSize {
		return nil, false, cacheError(path, "truncated cache: file is %d bytes, header says %d", n, fileSize)
	}
	if n > fileSize {
		return nil, false, cacheError(path, "corrupt cache: %d unexpected bytes after the end recorded in the header (%d bytes)", n-fileSize, fileSize)
	}
	// Counts are checked against the file size before any arithmetic that
	// could overflow, and before anything is allocated.
	switch {
	case rows >= n/8:
		return nil, false, cacheError(path, "corrupt cache: %d rows cannot fit in %d bytes", rows, n)
	case nnz > n/4:
		return nil, false, cacheError(path, "corrupt cache: %d non-zeros cannot fit in %d bytes", nnz, n)
	case features > cacheMaxFeatures:
		return nil, false, cacheError(path, "corrupt cache: %d features exceeds the int32 index limit", features)
	case rows+1 > math.MaxInt || nnz > math.MaxInt || features > math.MaxInt:
		return nil, false, cacheError(path, "cache too large for this platform: %d rows, %d non-zeros", rows, nnz)
	}
	f32, hasQID := flags&cacheFlagFloat32 != 0, flags&cacheFlagQID != 0
	want, wantSize := cacheLayout(rows, nnz, f32, hasQID)
	if wantSize != fileSize {
		return nil, false, cacheError(path, "corrupt cache: file size %d does not match %d rows and %d non-zeros (want %d)", fileSize, rows, nnz, wantSize)
	}
	var secs [cacheSections]cacheSection
	for s := range secs {
		e := hdr[chSections+s*chEntrySize:]
		secs[s] = cacheSection{off: le.Uint64(e), len: le.Uint64(e[8:]), crc: le.Uint32(e[16:])}
		if le.Uint32(e[20:]) != 0 {
			return nil, false, cacheError(path, "corrupt cache: reserved field of the %s section entry is not zero", cacheSectionNames[s])
		}
		if secs[s].off != want[s].off || secs[s].len != want[s].len || (s == secQID && !hasQID && secs[s].crc != 0) {
			return nil, false, cacheError(path, "corrupt cache: %s section at offset %d length %d, want offset %d length %d",
				cacheSectionNames[s], secs[s].off, secs[s].len, want[s].off, want[s].len)
		}
	}
	// Padding between sections must be zero, so every byte of the file is
	// covered by a check.
	end := uint64(cacheHeaderSize)
	for s := range secs {
		if secs[s].len == 0 && secs[s].off == 0 {
			continue
		}
		if !allZero(mem[end:secs[s].off]) {
			return nil, false, cacheError(path, "corrupt cache: non-zero padding before the %s section", cacheSectionNames[s])
		}
		end = secs[s].off + secs[s].len
	}
	// Build views (or decoded copies); nothing is returned before the
	// checksums and the CSR invariants were verified.
	nr, nz := int(rows), int(nnz)
	direct := hostLittleEndian && !cacheForceDecode
	bytesOf := func(s int) []byte { return mem[secs[s].off : secs[s].off+secs[s].len] }
	d = &csr.Matrix{Rows: nr, Features: int(features), InputBytes: int64(n)}
	v := &cacheVerifier{mem: mem, secs: &secs, rows: nr, nnz: int64(nnz), feats: int64(features),
		check: direct, threads: verifyThreads(opt.Threads)}
	if direct {
		d.RowPtr = viewSlice[int64](bytesOf(secRowPtr), nr+1)
		d.Index = viewSlice[int32](bytesOf(secIndex), nz)
		if f32 {
			d.Value32 = viewSlice[float32](bytesOf(secValue), nz)
		} else {
			d.Value = viewSlice[float64](bytesOf(secValue), nz)
		}
		d.Label = viewSlice[float64](bytesOf(secLabel), nr)
		if hasQID && opt.KeepQID {
			d.QID = viewSlice[int64](bytesOf(secQID), nr)
		}
		v.rp, v.idx, v.v64, v.v32, v.label = d.RowPtr, d.Index, d.Value, d.Value32, d.Label
		inMapping = true
	}
	if err := v.run(); err != nil {
		if errors.Is(err, errCacheFault) {
			return nil, false, fmt.Errorf("%s: %w", path, err)
		}
		return nil, false, cacheError(path, "corrupt cache: %v", err)
	}
	if !direct {
		d.RowPtr = decodeSlice[int64](bytesOf(secRowPtr), nr+1)
		d.Index = decodeSlice[int32](bytesOf(secIndex), nz)
		if f32 {
			d.Value32 = decodeSlice[float32](bytesOf(secValue), nz)
		} else {
			d.Value = decodeSlice[float64](bytesOf(secValue), nz)
		}
		d.Label = decodeSlice[float64](bytesOf(secLabel), nr)
		if hasQID && opt.KeepQID {
			d.QID = decodeSlice[int64](bytesOf(secQID), nr)
		}
		if err := csr.Check(d, v.threads); err != nil {
			return nil, false, cacheError(path, "corrupt cache: %v", err)
		}
	}
	if opt.MaxFeatures > 0 && d.Features > opt.MaxFeatures {
		return nil, false, &csr.ParseError{File: path, Msg: fmt.Sprintf("cache has %d features, more than the cap of %d", d.Features, opt.MaxFeatures),
			Hint: csr.CapHint(int64(d.Features))}
	}
	switch {
	case opt.Float32 && d.Value != nil:
		v32 := make([]float32, nz)
		for i, v := range d.Value {
			v32[i] = float32(v)
			if math.IsInf(float64(v32[i]), 0) {
				return nil, false, cacheError(path, "value %g (non-zero %d) does not fit in float32", v, i)
			}
		}
		d.Value, d.Value32 = nil, v32
	case !opt.Float32 && d.Value32 != nil:
		v64 := make([]float64, nz)
		for i, v := range d.Value32 {
			v64[i] = float64(v)
		}
		d.Value, d.Value32 = v64, nil
	}
	return d, inMapping, nil
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// viewSlice reinterprets b (little-endian, suitably aligned) as n elements.
func viewSlice[T int64 | int32 | float64 | float32](b []byte, n int) []T {
	if n == 0 {
		return []T{}
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), n)
}

// decodeSlice decodes n little-endian elements of b into a fresh slice.
func decodeSlice[T int64 | int32 | float64 | float32](b []byte, n int) []T {
	out := make([]T, n)
	le := binary.LittleEndian
	var zero T
	switch any(zero).(type) {
	case int64:
		o := any(out).([]int64)
		for i := range o {
			o[i] = int64(le.Uint64(b[8*i:]))
		}
	case float64:
		o := any(out).([]float64)
		for i := range o {
			o[i] = math.Float64frombits(le.Uint64(b[8*i:]))
		}
	case int32:
		o := any(out).([]int32)
		for i := range o {
			o[i] = int32(le.Uint32(b[4*i:]))
		}
	case float32:
		o := any(out).([]float32)
		for i := range o {
			o[i] = math.Float32frombits(le.Uint32(b[4*i:]))
		}
	}
	return out
}

// bytesView is the in-memory bytes of s (little-endian hosts only).
func bytesView[T int64 | int32 | float64 | float32](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(s[0])))
}

// Write writes d to path as a binary cache (layout above), atomically
// with internal/atomicfile: it writes a temporary file in the same
// directory (".BASE.tmp…"), fsyncs it, renames it over path and fsyncs the
// directory. On any error the temporary file is removed and an existing
// file at path is left untouched; path must be a regular file or not
// exist (a device or pipe is refused). d is checked
// first with the same invariants Open enforces, so a cache that was
// written always loads. Zero rows are allowed. The new file gets the
// permissions of the file it replaces, or 0644.
func Write(path string, d *csr.Matrix) error {
	fail := func(format string, a ...any) error {
		return fmt.Errorf("write cache %s: %s", path, fmt.Sprintf(format, a...))
	}
	if d == nil {
		return fail("nil dataset")
	}
	if d.Value == nil && d.Value32 == nil && len(d.RowPtr) > 0 && d.RowPtr[len(d.RowPtr)-1] == 0 {
		// An empty matrix may come without a value slice.
		c := *d
		c.Value = []float64{}
		d = &c
	}
	if err := csr.Check(d, runtime.GOMAXPROCS(0)); err != nil {
		return fail("invalid dataset: %v", err)
	}
	// Temporary file, fsync, rename, fsync of the folder: internal/atomicfile.
	return atomicfile.WriteFile(path, func(f *os.File) error { return writeCacheTo(f, d) })
}

// encodeCacheHeader is the 192-byte header of a cache with the given
// flags, shape and section table (CRCs filled in).
func encodeCacheHeader(flags uint32, rows, features, nnz, fileSize uint64, secs *[cacheSections]cacheSection) []byte {
	hdr := make([]byte, cacheHeaderSize)
	le := binary.LittleEndian
	copy(hdr, cacheMagic)
	le.PutUint32(hdr[chVersion:], cacheVersion)
	le.PutUint32(hdr[chFlags:], flags)
	le.PutUint32(hdr[chHeaderSize:], cacheHeaderSize)
	le.PutUint64(hdr[chRows:], rows)
	le.PutUint64(hdr[chFeatures:], features)
	le.PutUint64(hdr[chNNZ:], nnz)
	le.PutUint64(hdr[chFileSize:], fileSize)
	for s, sec := range secs {
		e := hdr[chSections+s*chEntrySize:]
		le.PutUint64(e, sec.off)
		le.PutUint64(e[8:], sec.len)
		le.PutUint32(e[16:], sec.crc)
	}
	le.PutUint32(hdr[chHeaderCRC:], crc32.Checksum(hdr[:chHeaderCRC], castagnoli))
	return hdr
}

// writeCacheTo writes the cache image of a checked dataset to f.
func writeCacheTo(f *os.File, d *csr.Matrix) error {
	rows, nnz := uint64(d.Rows), uint64(d.RowPtr[d.Rows])
	f32, hasQID := d.Value32 != nil, d.QID != nil
	secs, fileSize := cacheLayout(rows, nnz, f32, hasQID)

	w := &cacheWriter{f: f, pos: 0}
	w.write(make([]byte, cacheHeaderSize)) // header goes in last
	writeSec := func(s int, data func(h *crcWriter)) {
		if w.err != nil || (secs[s].len == 0 && s == secQID) {
			return
		}
		w.write(make([]byte, secs[s].off-w.pos))
		h := &crcWriter{w: w}
		data(h)
		secs[s].crc = h.crc
	}
	writeSec(secRowPtr, func(h *crcWriter) { writeElems(h, d.RowPtr) })
	writeSec(secIndex, func(h *crcWriter) { writeElems(h, d.Index[:nnz]) })
	writeSec(secValue, func(h *crcWriter) {
		if f32 {
			writeElems(h, d.Value32[:nnz])
		} else {
			writeElems(h, d.Value[:nnz])
		}
	})
	writeSec(secLabel, func(h *crcWriter) { writeElems(h, d.Label) })
	if hasQID {
		writeSec(secQID, func(h *crcWriter) { writeElems(h, d.QID) })
	}
	if w.err != nil {
		return w.err
	}
	if w.pos != fileSize {
		return fmt.Errorf("internal error: wrote %d bytes, layout says %d", w.pos, fileSize)
	}

	var flags uint32
	if f32 {
		flags |= cacheFlagFloat32
	}
	if hasQID {
		flags |= cacheFlagQID
	}
	hdr := encodeCacheHeader(flags, rows, uint64(d.Features), nnz, fileSize, &secs)
	_, err := f.WriteAt(hdr, 0)
	return err
}

type cacheWriter struct {
	f   *os.File
	pos uint64
	err error
}

func (w *cacheWriter) write(b []byte) {
	if w.err != nil || len(b) == 0 {
		return
	}
	n, err := w.f.Write(b)
	w.pos += uint64(n)
	w.err = err
}

type crcWriter struct {
	w   *cacheWriter
	crc uint32
}

func (h *crcWriter) write(b []byte) {
	h.crc = crc32.Update(h.crc, castagnoli, b)
	h.w.write(b)
}

// appendLE appends v to b in little-endian byte order.
func appendLE[T int64 | int32 | float64 | float32](b []byte, v T) []byte {
	le := binary.LittleEndian
	switch x := any(v).(type) {
	case int64:
		return le.AppendUint64(b, uint64(x))
	case float64:
		return le.AppendUint64(b, math.Float64bits(x))
	case int32:
		return le.AppendUint32(b, uint32(x))
	case float32:
		return le.AppendUint32(b, math.Float32bits(x))
	}
	return b
}

// writeElems writes s little-endian: straight from memory on little-endian
// hosts, through a small buffer otherwise.
func writeElems[T int64 | int32 | float64 | float32](h *crcWriter, s []T) {
	if hostLittleEndian {
		const block = 8 << 20 // bound each write call
		b := bytesView(s)
		for len(b) > 0 {
			k := min(len(b), block)
			h.write(b[:k])
			b = b[k:]
		}
		return
	}
	buf := make([]byte, 0, 64<<10)
	for _, v := range s {
		buf = appendLE(buf, v)
		if len(buf) > cap(buf)-8 {
			h.write(buf)
			buf = buf[:0]
		}
	}
	h.write(buf)
}
