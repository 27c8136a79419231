//go:build amd64 || arm64

package rows

import "unsafe"

// prefetchRow hints the CPU to fetch the given byte ranges into cache. It
// only issues prefetch instructions, which never fault, so any addresses
// are safe; it reads nothing and writes nothing.
//
//go:noescape
func prefetchRow(idx unsafe.Pointer, nidx uintptr, val unsafe.Pointer, nval uintptr)
