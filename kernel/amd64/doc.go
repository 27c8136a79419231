// Package amd64 holds the x86-64 assembly kernels behind package kernel:
// an AVX2+FMA set and an AVX-512 set. The functions are declared only on
// amd64 (files *_amd64.go / *_amd64.s) and not with the purego build tag;
// this file, which has no build constraint, lets the package exist (empty)
// everywhere else.
//
// Callers must check the CPU first: the AVX2 functions need AVX2 and FMA3,
// the AVX-512 ones AVX512F and AVX512VL. Package kernel does that once at
// start-up with github.com/klauspost/cpuid/v2.
//
// Memory safety. Every function here is safe for any slice arguments:
// the element count is min(len(idx), len(val)), and an index j with j < 0
// or j >= len(w) (for the K forms: j >= len(W)/K) is never dereferenced.
// Such an index makes the function return ok=false instead of the
// panic of the Go loop it replaces: the gathers are masked by the range
// check (the lanes that fail it are not loaded) and the flag is tested at
// the end; the functions that store check each index before its store and
// stop there, having updated the elements before it.
//
// Results are bit for bit those of package kernel's generic loops, which
// fix the order of operations (partial sums, tree, FMA) for every
// implementation. Indices are expected to be strictly increasing, as
// package kernel's contract says, but nothing here relies on it: repeated
// indices are summed or updated in order.
//
// Note for anyone editing the assembly: Go assembles MOVQ/MOVSD to an X
// register as legacy SSE, and an SSE instruction executed while the upper
// halves of the YMM registers are dirty can cost a large penalty on every
// call (it did on the AMD EPYC the kernels were tuned on; measurements:
// docs/tuning.md). The kernels use VMOVQ inside AVX code and only use SSE
// moves before the first VEX.256 instruction or after VZEROUPPER.
package amd64
