// Package arm64 holds the ARM64 (NEON / AdvSIMD) assembly kernels behind
// package kernel. The functions are declared only on arm64 (files
// *_arm64.go / *_arm64.s) and not with the purego build tag; this file,
// which has no build constraint, lets the package exist (empty) everywhere
// else.
//
// NEON has no gather, so the sparse kernels use unrolled scalar loads
// (the index pairs with LDPW, the values with FLDPD) and FMADDD into
// several independent accumulators; SqNorm, which is dense, uses VFMLA.
// ASIMD and FP are part of the ARMv8-A base, so every arm64 CPU runs them.
//
// Memory safety. Every function here is safe for any slice arguments: the
// element count is min(len(idx), len(val)), and an index j with j < 0 or
// j >= len(w) is never dereferenced: the functions that take an index
// vector check each index (unsigned compare against min(len(w), 1<<31))
// and return ok=false at the first bad one, having processed, for Axpy,
// the elements before it. Results are bit for bit those of package
// kernel's generic loops, which fix the order of operations.
package arm64
