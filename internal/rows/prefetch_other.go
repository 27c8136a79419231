//go:build !amd64 && !arm64

package rows

import "unsafe"

// prefetchRow is a no-op where no prefetch instruction is wired up.
func prefetchRow(idx unsafe.Pointer, nidx uintptr, val unsafe.Pointer, nval uintptr) {}
