package kernel

import "fmt"

// IndexError is the panic value of a kernel given an index outside the
// dense vector. Like the runtime's own bounds error it implements
// runtime.Error.
type IndexError struct {
	Op    string // "Dot", "Axpy", ...
	K     int    // position in idx
	Index int32  // idx[K]
	Len   int    // len(w), or len(W)/K rows for the K forms
}

func (e *IndexError) Error() string {
	return fmt.Sprintf("kernel.%s: index out of range [%d] with length %d (idx[%d])", e.Op, e.Index, e.Len, e.K)
}

// RuntimeError marks IndexError as a runtime.Error.
func (e *IndexError) RuntimeError() {}

// LengthError is the panic value of a kernel given slices of inconsistent
// lengths (val shorter than idx, out or coef shorter than K, K < 0).
type LengthError struct {
	Op   string
	What string // e.g. "len(val) = 3 < len(idx) = 5"
}

func (e *LengthError) Error() string { return "kernel." + e.Op + ": " + e.What }

// RuntimeError marks LengthError as a runtime.Error.
func (e *LengthError) RuntimeError() {}

// The helpers below build panic values; callers write panic(helper(...))
// so that the compiler sees the panic and keeps the error path's spills
// off the fast path.

// valError reports len(val) < len(idx).
//
//go:noinline
func valError(op string, nidx, nval int) error {
	return &LengthError{op, fmt.Sprintf("len(val) = %d < len(idx) = %d", nval, nidx)}
}

// kError reports K < 0 or n = len(out) / len(coef) < K.
//
//go:noinline
func kError(op, what string, K, n int) error {
	if K < 0 {
		return &LengthError{op, fmt.Sprintf("K = %d < 0", K)}
	}
	return &LengthError{op, fmt.Sprintf("len(%s) = %d < K = %d", what, n, K)}
}

// indexErrorAt reports idx[k] outside [0, n).
//
//go:noinline
func indexErrorAt(op string, idx []int32, k, n int) error {
	return &IndexError{Op: op, K: k, Index: idx[k], Len: n}
}

// indexError reports the first idx[k] outside [0, n). The vector kernels
// call it when they report an out-of-range index; it returns a plain error
// if it finds none, as that would be a kernel bug.
//
//go:noinline
func indexError(op string, idx []int32, n int) error {
	for k, j := range idx {
		if uint(int(j)) >= uint(n) {
			return indexErrorAt(op, idx, k, n)
		}
	}
	return fmt.Errorf("kernel.%s: internal error: vector kernel reported a bad index that the check does not find", op)
}
