package cache

// Verification of a mapped cache at about checksum speed: every section is
// cut into pieces of a few MB that are checksummed in parallel (the piece
// CRCs are joined with crc32cCombine), and on little-endian hosts each
// piece's CSR invariants are checked right after its bytes were
// checksummed, while they are still in cache, so the file is read once.

import (
	"fmt"
	"hash/crc32"
	"runtime"
	"runtime/debug"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/acfcd/acfcd/io/internal/csr"
)

// crc32cPow2[k] is x^(2^k) mod P for the CRC-32C polynomial P.
var crc32cPow2 = func() (t [64]uint32) {
	t[0] = 1 << 30 // x^1 in the reflected bit order (bit 31 is x^0)
	for k := 1; k < len(t); k++ {
		t[k] = crc32cMul(t[k-1], t[k-1])
	}
	return t
}()

// crc32cMul multiplies two polynomials modulo the CRC-32C polynomial, both
// in the reflected bit order CRC-32C uses (bit 31 holds x^0).
func crc32cMul(a, b uint32) uint32 {
	const poly = 0x82f63b78 // reflected Castagnoli polynomial, x^32 omitted
	var p uint32
	for m := uint32(1) << 31; m != 0; m >>= 1 {
		if a&m != 0 {
			p ^= b
		}
		if b&1 != 0 { // b *= x: the x^31 term overflows into x^32 ≡ poly
			b = b>>1 ^ poly
		} else {
			b >>= 1
		}
	}
	return p
}

// crc32cCombine returns the CRC-32C of A‖B from crc(A), crc(B) and len(B):
// crc(A)·x^(8·len(B)) + crc(B) mod P (the pre/post inversions cancel).
func crc32cCombine(crcA, crcB uint32, lenB uint64) uint32 {
	shift := uint32(1) << 31 // x^0
	for k := 3; lenB != 0; k, lenB = k+1, lenB>>1 {
		if lenB&1 != 0 {
			shift = crc32cMul(shift, crc32cPow2[k%64])
		}
	}
	return crc32cMul(crcA, shift) ^ crcB
}

const (
	verifyPiece = 4 << 20  // bytes per parallel piece
	verifyBlock = 64 << 10 // bytes checksummed, then checked, while in cache
)

type verifyTask struct {
	sec      int
	off, end uint64 // absolute byte range in the file
	r0, r1   int    // rows (Index pieces when checking)
	crc      uint32
	errRow   int // row of the first invariant violation, or -1
	err      error
}

// cacheVerifier checks a mapped cache whose header was already validated.
type cacheVerifier struct {
	mem     []byte
	secs    *[cacheSections]cacheSection
	rows    int
	nnz     int64
	feats   int64
	check   bool // also check the CSR invariants (little-endian views)
	threads int

	rp    []int64
	idx   []int32
	v64   []float64
	v32   []float32
	label []float64
}

// run checksums every section and, when v.check is set, checks the CSR
// invariants. A checksum mismatch wins over an invariant violation, and of
// those the one in the lowest row is reported.
func (v *cacheVerifier) run() error {
	if v.check {
		if v.rp[0] != 0 {
			if err := v.crcOnly(secRowPtr); err != nil {
				return err
			}
			return fmt.Errorf("the row offsets start at %d, not 0", v.rp[0])
		}
		if last := v.rp[v.rows]; last != v.nnz {
			if err := v.crcOnly(secRowPtr); err != nil {
				return err
			}
			return fmt.Errorf("the row offsets end at %d, not at the %d non-zeros", last, v.nnz)
		}
	}
	// Phase 1: RowPtr, which phase 2 relies on to cut Index into rows.
	if err := v.runTasks(v.byteTasks(secRowPtr, 8)); err != nil {
		return err
	}
	// Phase 2: everything else.
	var tasks []verifyTask
	if v.check {
		tasks = append(tasks, v.indexTasks()...)
	} else {
		tasks = append(tasks, v.byteTasks(secIndex, 4)...)
	}
	tasks = append(tasks, v.byteTasks(secValue, 4)...)
	tasks = append(tasks, v.byteTasks(secLabel, 8)...)
	tasks = append(tasks, v.byteTasks(secQID, 8)...)
	return v.runTasks(tasks)
}

func (v *cacheVerifier) crcOnly(s int) error {
	sec := v.secs[s]
	if got := crc32.Checksum(v.mem[sec.off:sec.off+sec.len], castagnoli); got != sec.crc {
		return fmt.Errorf("%s section checksum mismatch (stored %08x, computed %08x)", cacheSectionNames[s], sec.crc, got)
	}
	return nil
}

// byteTasks cuts a section into pieces at multiples of elem bytes.
func (v *cacheVerifier) byteTasks(s int, elem uint64) []verifyTask {
	sec := v.secs[s]
	if sec.len == 0 {
		return nil
	}
	var ts []verifyTask
	step := uint64(verifyPiece) / elem * elem
	for a := sec.off; a < sec.off+sec.len; a += step {
		ts = append(ts, verifyTask{sec: s, off: a, end: min(a+step, sec.off+sec.len)})
	}
	return ts
}

// indexTasks cuts the Index section at row boundaries.
func (v *cacheVerifier) indexTasks() []verifyTask {
	sec := v.secs[secIndex]
	pieces := int(sec.len/verifyPiece) + 1
	var ts []verifyTask
	r0 := 0
	for p := 1; p <= pieces; p++ {
		r1 := v.rows
		if p < pieces {
			target := v.nnz * int64(p) / int64(pieces)
			r1 = r0 + sort.Search(v.rows-r0, func(i int) bool { return v.rp[r0+i] >= target })
		}
		if r1 > r0 {
			ts = append(ts, verifyTask{sec: secIndex, r0: r0, r1: r1,
				off: sec.off + uint64(v.rp[r0])*4, end: sec.off + uint64(v.rp[r1])*4})
		}
		r0 = r1
	}
	return ts
}

func (v *cacheVerifier) runTasks(ts []verifyTask) error {
	if len(ts) == 0 {
		return nil
	}
	var next atomic.Int64
	var fault atomic.Bool
	work := func() {
		// A fault in the mapping (the file shrank meanwhile) becomes an
		// error instead of crashing the process.
		defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
		defer func() {
			if r := recover(); r != nil {
				if _, ok := r.(interface{ Addr() uintptr }); !ok {
					panic(r)
				}
				fault.Store(true)
			}
		}()
		for {
			k := int(next.Add(1)) - 1
			if k >= len(ts) {
				return
			}
			v.do(&ts[k])
		}
	}
	if w := min(v.threads, len(ts)); w > 1 {
		var wg sync.WaitGroup
		for i := 0; i < w; i++ {
			wg.Add(1)
			go func() { defer wg.Done(); work() }()
		}
		wg.Wait()
	} else {
		work()
	}
	if fault.Load() {
		return errCacheFault
	}
	// Join the piece checksums of each section in file order.
	var crcs [cacheSections]uint32
	var seen [cacheSections]bool
	for _, t := range ts {
		if !seen[t.sec] {
			crcs[t.sec], seen[t.sec] = t.crc, true
		} else {
			crcs[t.sec] = crc32cCombine(crcs[t.sec], t.crc, t.end-t.off)
		}
	}
	for s := range crcs {
		if seen[s] && crcs[s] != v.secs[s].crc {
			return fmt.Errorf("%s section checksum mismatch (stored %08x, computed %08x)", cacheSectionNames[s], v.secs[s].crc, crcs[s])
		}
	}
	var first *verifyTask
	for i := range ts {
		if t := &ts[i]; t.err != nil && (first == nil || t.errRow < first.errRow) {
			first = t
		}
	}
	if first != nil {
		return first.err
	}
	return nil
}

// do checksums one piece in blocks, checking each block right after.
func (v *cacheVerifier) do(t *verifyTask) {
	t.errRow = -1
	fail := func(row int, format string, a ...any) {
		if t.err == nil {
			t.errRow, t.err = row, fmt.Errorf(format, a...)
		}
	}
	if t.sec == secIndex && v.check {
		// Whole rows per block.
		for r := t.r0; r < t.r1; {
			r1 := r + 1
			for r1 < t.r1 && (v.rp[r1+1]-v.rp[r])*4 <= verifyBlock {
				r1++
			}
			a, b := v.rp[r], v.rp[r1]
			base := v.secs[secIndex].off
			t.crc = crc32.Update(t.crc, castagnoli, v.mem[base+uint64(a)*4:base+uint64(b)*4])
			if t.err == nil {
				if row, msg := csr.CheckIndexRows(v.rp, v.idx, r, r1, v.feats); msg != "" {
					fail(row, "%s", msg)
				}
			}
			r = r1
		}
		return
	}
	base := v.secs[t.sec].off
	for a := t.off; a < t.end; a += verifyBlock {
		b := min(a+verifyBlock, t.end)
		t.crc = crc32.Update(t.crc, castagnoli, v.mem[a:b])
		if !v.check || t.err != nil {
			continue
		}
		switch t.sec {
		case secRowPtr:
			e0, e1 := int((a-base)/8), int((b-base)/8)
			for k := max(e0, 1); k < e1; k++ {
				if v.rp[k] < v.rp[k-1] {
					fail(k-1, "row %d: the row offsets decrease (%d after %d)", k-1, v.rp[k], v.rp[k-1])
					break
				}
			}
		case secValue:
			if v.v64 != nil {
				e0, e1 := int((a-base)/8), int((b-base)/8)
				if k := csr.FirstNonFinite64(v.v64[e0:e1]); k >= 0 {
					row := csr.RowOf(v.rp, int64(e0+k))
					fail(row, "row %d: value %g is not finite", row, v.v64[e0+k])
				}
			} else {
				e0, e1 := int((a-base)/4), int((b-base)/4)
				if k := csr.FirstNonFinite32(v.v32[e0:e1]); k >= 0 {
					row := csr.RowOf(v.rp, int64(e0+k))
					fail(row, "row %d: value %g is not finite", row, v.v32[e0+k])
				}
			}
		case secLabel:
			e0, e1 := int((a-base)/8), int((b-base)/8)
			if k := csr.FirstNonFinite64(v.label[e0:e1]); k >= 0 {
				fail(e0+k, "row %d: label %g is not finite", e0+k, v.label[e0+k])
			}
		}
	}
}

func verifyThreads(n int) int {
	if n <= 0 {
		return runtime.GOMAXPROCS(0)
	}
	return n
}
