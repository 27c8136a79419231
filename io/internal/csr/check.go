package csr

import (
	"fmt"
	"strings"
	"sync"
	"unsafe"
)

// Check verifies a matrix's shape (slice lengths against Rows and the
// non-zero count) and the invariants the kernels rely on.
func Check(d *Matrix, threads int) error {
	rows := d.Rows
	if rows < 0 || len(d.RowPtr) != rows+1 {
		return fmt.Errorf("%d row offsets for %d rows", len(d.RowPtr), rows)
	}
	if d.Features < 0 || int64(d.Features) > int64(IndexLimit) {
		return fmt.Errorf("feature count %d out of range", d.Features)
	}
	if d.RowPtr[0] != 0 {
		return fmt.Errorf("the row offsets start at %d, not 0", d.RowPtr[0])
	}
	rp := d.RowPtr
	for i := 1; i <= rows; i++ {
		if rp[i] < rp[i-1] {
			return fmt.Errorf("row %d: the row offsets decrease (%d after %d)", i-1, rp[i], rp[i-1])
		}
	}
	nnz := rp[rows]
	if int64(len(d.Index)) != nnz {
		return fmt.Errorf("the row offsets end at %d but there are %d feature indices", nnz, len(d.Index))
	}
	nv := len(d.Value) + len(d.Value32)
	if (d.Value == nil) == (d.Value32 == nil) || int64(nv) != nnz {
		return fmt.Errorf("need exactly one of Value (%d) and Value32 (%d) with %d entries", len(d.Value), len(d.Value32), nnz)
	}
	if len(d.Label) != rows {
		return fmt.Errorf("Label has %d entries for %d rows", len(d.Label), rows)
	}
	if d.QID != nil && len(d.QID) != rows {
		return fmt.Errorf("QID has %d entries for %d rows", len(d.QID), rows)
	}

	// Split rows into ranges of about equal non-zeros, checked in parallel;
	// the error in the lowest row wins.
	if threads < 1 {
		threads = 1
	}
	parts := threads
	if nnz+int64(rows) < 1<<16 {
		parts = 1
	}
	bounds := make([]int, parts+1)
	for p := 1; p < parts; p++ {
		target := nnz * int64(p) / int64(parts)
		lo, hi := bounds[p-1], rows
		for lo < hi { // first row whose start is >= target
			mid := int(uint(lo+hi) >> 1)
			if rp[mid] < target {
				lo = mid + 1
			} else {
				hi = mid
			}
		}
		bounds[p] = lo
	}
	bounds[parts] = rows
	errs := make([]error, parts)
	var wg sync.WaitGroup
	for p := 0; p < parts; p++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[p] = checkRows(d, bounds[p], bounds[p+1])
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// RowError is a problem of one row found by Check: "row N: Msg", N
// 0-based.
type RowError struct {
	Row int
	Msg string
}

func (e *RowError) Error() string { return fmt.Sprintf("row %d: %s", e.Row, e.Msg) }

// checkRows checks rows [r0, r1): indices, values and labels.
func checkRows(d *Matrix, r0, r1 int) error {
	rp := d.RowPtr
	if row, msg := CheckIndexRows(rp, d.Index, r0, r1, int64(d.Features)); msg != "" {
		return &RowError{Row: row, Msg: strings.TrimPrefix(msg, fmt.Sprintf("row %d: ", row))}
	}
	a, b := rp[r0], rp[r1]
	if d.Value != nil {
		if k := FirstNonFinite64(d.Value[a:b]); k >= 0 {
			return &RowError{Row: RowOf(rp, a+int64(k)), Msg: fmt.Sprintf("value %g is not finite", d.Value[a+int64(k)])}
		}
	} else if k := FirstNonFinite32(d.Value32[a:b]); k >= 0 {
		return &RowError{Row: RowOf(rp, a+int64(k)), Msg: fmt.Sprintf("value %g is not finite", d.Value32[a+int64(k)])}
	}
	if k := FirstNonFinite64(d.Label[r0:r1]); k >= 0 {
		return &RowError{Row: r0 + k, Msg: fmt.Sprintf("label %g is not finite", d.Label[r0+k])}
	}
	return nil
}

// RowOf is the row holding non-zero k.
func RowOf(rp []int64, k int64) int {
	lo, hi := 0, len(rp)-1
	for lo < hi { // last row whose start is <= k
		mid := int(uint(lo+hi+1) >> 1)
		if rp[mid] <= k {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	for lo+1 < len(rp) && rp[lo+1] <= k { // skip empty rows
		lo++
	}
	return lo
}

// CheckIndexRows checks that the indices of rows [r0, r1) are strictly
// increasing, non-negative and below features. rp must be valid for idx.
func CheckIndexRows(rp []int64, idx []int32, r0, r1 int, features int64) (row int, msg string) {
	for i := r0; i < r1; i++ {
		if ri := idx[rp[i]:rp[i+1]]; !RowIndicesOK(ri, features) {
			return i, DescribeBadRow(i, ri, features)
		}
	}
	return -1, ""
}

// RowIndicesOK is the branch-free test behind CheckIndexRows: x-prev-1 is
// negative exactly when x <= prev (in int64, without overflow).
func RowIndicesOK(ri []int32, features int64) bool {
	prev, bad := int64(-1), int64(0)
	for ; len(ri) >= 4; ri = ri[4:] {
		a, b, c, d := int64(ri[0]), int64(ri[1]), int64(ri[2]), int64(ri[3])
		bad |= (a - prev - 1) | (b - a - 1) | (c - b - 1) | (d - c - 1)
		prev = d
	}
	for _, j := range ri {
		bad |= int64(j) - prev - 1
		prev = int64(j)
	}
	return bad >= 0 && prev < features
}

// DescribeBadRow says what is wrong with the indices ri of row i, which
// RowIndicesOK rejected.
func DescribeBadRow(i int, ri []int32, features int64) string {
	prev := int64(-1)
	for _, j := range ri {
		switch {
		case j < 0:
			return fmt.Sprintf("row %d: negative feature index %d", i, j)
		case int64(j) <= prev:
			return fmt.Sprintf("row %d: feature indices not strictly increasing (%d after %d)", i, j, prev)
		case int64(j) >= features:
			return fmt.Sprintf("row %d: feature index %d is not below the feature count %d", i, j, features)
		}
		prev = int64(j)
	}
	return fmt.Sprintf("row %d: bad feature indices", i)
}

// FirstNonFinite64 is the position of the first NaN or ±Inf in s, or -1.
func FirstNonFinite64(s []float64) int {
	if len(s) == 0 {
		return -1
	}
	u := unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(s))), len(s))
	const e, one = 0x7ff << 52, 1 << 52
	for b := 0; b < len(u); b += 512 {
		blk := u[b:min(b+512, len(u))]
		// x&e + 1<<52 carries into bit 63 exactly when the exponent is all
		// ones (NaN or ±Inf).
		var bad uint64
		i := 0
		for ; i+4 <= len(blk); i += 4 {
			bad |= (blk[i]&e + one) | (blk[i+1]&e + one) | (blk[i+2]&e + one) | (blk[i+3]&e + one)
		}
		for ; i < len(blk); i++ {
			bad |= blk[i]&e + one
		}
		if bad>>63 != 0 {
			for i, x := range blk {
				if x&e == e {
					return b + i
				}
			}
		}
	}
	return -1
}

// FirstNonFinite32 is the position of the first NaN or ±Inf in s, or -1.
func FirstNonFinite32(s []float32) int {
	if len(s) == 0 {
		return -1
	}
	u := unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(s))), len(s))
	const e, one = 0xff << 23, 1 << 23
	for b := 0; b < len(u); b += 512 {
		blk := u[b:min(b+512, len(u))]
		var bad uint32
		i := 0
		for ; i+4 <= len(blk); i += 4 {
			bad |= (blk[i]&e + one) | (blk[i+1]&e + one) | (blk[i+2]&e + one) | (blk[i+3]&e + one)
		}
		for ; i < len(blk); i++ {
			bad |= blk[i]&e + one
		}
		if bad>>31 != 0 {
			for i, x := range blk {
				if x&e == e {
					return b + i
				}
			}
		}
	}
	return -1
}
