// Package amd64 holds the x86-64 assembly kernels behind package kernel:
// an AVX2+FMA set and an AVX-512 set. The functions are declared only on
// amd64 (files *_amd64.go / *_amd64.s); this file, which has no build
// constraint, lets the package exist (empty) on every architecture.
//
// Callers must check the CPU before calling: the AVX2 functions need AVX2
// and FMA3, the AVX-512 ones AVX512F and AVX512VL. Package kernel does
// that once at start-up with github.com/klauspost/cpuid/v2.
//
// Memory safety. Every function here is safe for any slice arguments: the
// element count is min(len(idx), len(val)) (or as documented), and an index
// j with j < 0 or j >= len(w) is never dereferenced. Functions that take an
// index vector return ok=false when they meet such an index; the Go loop
// each one replaces would have panicked there. Functions that write to w
// stop at the first bad group, having updated only in-range elements
// before it. Summation order differs from the Go loop, so results agree
// with it to rounding, not bit for bit, and an FMA is rounded once.
//
// Indices are expected to be strictly increasing, as package kernel's
// contract says. The functions stay memory safe if they are not, but the
// vector scatter forms may then lose an update when a group of lanes holds
// the same index twice.
package amd64
