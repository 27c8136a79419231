// Package kernel holds the sparse-vector operations that coordinate-descent
// solvers spend their time in, with one implementation per instruction set
// and a pure-Go twin that is always compiled.
//
// # Contract
//
// A sparse vector is a pair (idx []int32, val []float64 or []float32): the
// k-th stored entry has position idx[k] and value val[k]. The functions
// use the first len(idx) elements of val.
//
//   - idx must be strictly increasing. Every implementation is memory safe
//     and gives the generic result even if it is not (a repeated index is
//     summed or updated in order).
//   - len(val) must be at least len(idx); otherwise the call panics with a
//     *LengthError before doing anything.
//   - Every idx[k] must be in [0, len(w)) (for the K forms: in
//     [0, len(W)/K), so the whole row W[idx[k]*K : idx[k]*K+K] exists).
//     Otherwise the call panics with an *IndexError naming k; no
//     implementation reads or writes outside the slices it was given,
//     whatever the input. An Axpy that panics may have updated w at some of
//     the indices before the bad one.
//   - Every implementation gives bit for bit the generic result (every
//     NaN counts as the same: its payload is the CPU's choice). The
//     generic code fixes one order of operations for all of them: Dot,
//     Dot32 and SqNorm add the k-th product into lane k mod 8 of eight
//     partial sums with a fused multiply-add and combine the lanes as
//     ((s0+s4) + (s2+s6)) + ((s1+s5) + (s3+s7)); DotK keeps two partial
//     sums per column (even and odd k); the Axpy forms do one fused
//     multiply-add per element, in order. So a model trained with the same
//     seed has the same bits on every CPU and architecture, with or
//     without the purego tag, which makes timings comparable across
//     machines (the same computation runs everywhere). On an amd64 CPU
//     without FMA3 the generic code's math.FMA is computed in software,
//     exactly but slowly.
//
// # Dispatch
//
// The implementations are "generic", the pure-Go loops that define the
// results, and those the CPU supports: "avx2" and "avx512" on amd64,
// "neon" on arm64, none when built with the purego tag. Each function
// tests package-level flags, set once at start-up, and calls its code
// directly; there is no function table. (The tests select each
// implementation in turn through an internal registry.) An implementation
// keeps AVX2's code or the generic loop where code of its own did not pay;
// which code runs changes the speed, never the bits:
//
//	        Dot, Dot32    SqNorm   Axpy, Axpy32   DotK, AxpyK
//	avx2    AVX2          AVX2     AVX2           AVX2
//	avx512  AVX-512       AVX-512  AVX2           AVX2
//	neon    NEON          NEON     NEON           generic
//
// At start-up the best implementation is selected (Available lists them,
// best last; Name says which is in use). The environment variable
// ACFCD_KERNEL=name selects another, e.g. ACFCD_KERNEL=generic to compare
// whole runs. A name that is unknown or not supported on this CPU keeps
// the best implementation and makes EnvError non-nil: programs should
// report it, as the acfcd command does, rather than run with a kernel the
// user did not ask for.
package kernel

// The functions below only forward to the architecture's dispatch (dot,
// axpy, ... in dispatch_*.go). They inline, so the caller calls that code
// directly; the dispatch itself, with a call per implementation, is over
// the inliner's budget.

// Dot returns Σ_k val[k]·w[idx[k]].
func Dot(idx []int32, val []float64, w []float64) float64 { return dot(idx, val, w) }

// Axpy does w[idx[k]] += a·val[k] for every k.
func Axpy(a float64, idx []int32, val []float64, w []float64) { axpy(a, idx, val, w) }

// SqNorm returns Σ_k val[k]².
func SqNorm(val []float64) float64 { return sqNorm(val) }

// Dot32 returns Σ_k float64(val[k])·w[idx[k]].
func Dot32(idx []int32, val []float32, w []float64) float64 { return dot32(idx, val, w) }

// Axpy32 does w[idx[k]] += a·float64(val[k]) for every k.
func Axpy32(a float64, idx []int32, val []float32, w []float64) { axpy32(a, idx, val, w) }

// DotK sets out[c] = Σ_k val[k]·W[idx[k]*K+c] for every c < K: the K dot
// products of the sparse vector with the weight vectors of a multi-class
// model stored feature-major (W[j*K+c] is weight j of class c). It needs
// K >= 0, len(out) >= K and idx[k] < len(W)/K; out[K:] is not touched.
func DotK(idx []int32, val []float64, W []float64, K int, out []float64) {
	dotK(idx, val, W, K, out)
}

// AxpyK does W[idx[k]*K+c] += coef[c]·val[k] for every k and c < K. It
// needs K >= 0, len(coef) >= K and idx[k] < len(W)/K.
func AxpyK(coef []float64, idx []int32, val []float64, W []float64, K int) {
	axpyK(coef, idx, val, W, K)
}
