package rows

import "unsafe"

// PrefetchRanges asks for the bytes [a, a+na) and [b, b+nb) ahead of use
// (every 64-byte line), as Prefetch does for a row: it reads and writes
// nothing, and prefetches never fault.
func PrefetchRanges(a unsafe.Pointer, na uintptr, b unsafe.Pointer, nb uintptr) {
	prefetchRow(a, na, b, nb)
}
