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
//     even if it is not, but the vector ones may then return a different
//     result from the generic one (an Axpy may lose one of two updates
//     of the same element).
//   - len(val) must be at least len(idx); otherwise the call panics with a
//     *LengthError before doing anything.
//   - Every idx[k] must be in [0, len(w)) (for the K forms: in
//     [0, len(W)/K), so the whole row W[idx[k]*K : idx[k]*K+K] exists).
//     Otherwise the call panics with an *IndexError naming k; no
//     implementation reads or writes outside the slices it was given,
//     whatever the input. An Axpy that panics may have updated w at some of
//     the indices before the bad one.
//   - Results agree with the generic implementation up to rounding: the
//     vector implementations sum in a different order and use fused
//     multiply-adds. The tests hold every implementation to
//     1e-12·Σ|val[k]·w[idx[k]]|.
//
// # Dispatch
//
// At start-up the package registers "generic" and every implementation the
// CPU supports ("avx2" and "avx512" on amd64, "neon" on arm64; none when
// built with the purego tag) and activates the last, best one. The
// environment variable ACFCD_KERNEL=name selects another one; an unknown
// or unsupported name keeps the best and leaves a message in Warning.
// Use switches at run time (tests, benchmarks).
package kernel

import (
	"fmt"
	"os"
	"strings"
)

// Impl is one implementation of the kernels. All function fields are set.
type Impl struct {
	Name string // "generic", "avx2", "avx512", "neon"

	// Dot returns Σ_k val[k]·w[idx[k]].
	Dot func(idx []int32, val []float64, w []float64) float64
	// Axpy does w[idx[k]] += a·val[k] for every k.
	Axpy func(a float64, idx []int32, val []float64, w []float64)
	// SqNorm returns Σ_k val[k]².
	SqNorm func(val []float64) float64

	// Dot32 is Dot with float32 values.
	Dot32 func(idx []int32, val []float32, w []float64) float64
	// Axpy32 is Axpy with float32 values.
	Axpy32 func(a float64, idx []int32, val []float32, w []float64)

	// DotK sets out[c] = Σ_k val[k]·W[idx[k]*K+c] for c < K, where W
	// holds K weight vectors feature-major (row j is W[j*K : j*K+K]).
	DotK func(idx []int32, val []float64, W []float64, K int, out []float64)
	// AxpyK does W[idx[k]*K+c] += coef[c]·val[k] for every k and c < K.
	AxpyK func(coef []float64, idx []int32, val []float64, W []float64, K int)
}

var (
	impls   []*Impl
	active  *Impl
	warning string
)

// vectorMaxLen is the length of w above which the amd64 implementations
// hand Dot, Axpy, Dot32 and Axpy32 over to the generic loop, which is
// faster once w is far beyond the caches (see dispatch_amd64.go). Tests
// lower it to cover both paths.
var vectorMaxLen = 1 << 20

func init() {
	impls = append([]*Impl{genericImpl}, archImpls()...)
	active = impls[len(impls)-1]
	if name := os.Getenv("ACFCD_KERNEL"); name != "" && !Use(name) {
		warning = fmt.Sprintf("kernel: ACFCD_KERNEL=%q is not available on this CPU (have %s); using %q",
			name, strings.Join(names(), ", "), active.Name)
	}
}

func names() []string {
	var s []string
	for _, im := range impls {
		s = append(s, im.Name)
	}
	return s
}

// Impls returns every implementation usable on this CPU, generic first,
// best last.
func Impls() []*Impl { return append([]*Impl(nil), impls...) }

// Active returns the implementation in use.
func Active() *Impl { return active }

// Warning returns why the ACFCD_KERNEL setting was ignored at start-up, or
// "" if it was honoured or not set.
func Warning() string { return warning }

// Use switches to the named implementation and reports whether it exists
// on this CPU. Not safe to call concurrently with the kernels.
func Use(name string) bool {
	for _, im := range impls {
		if im.Name == name {
			active = im
			return true
		}
	}
	return false
}

// Dot returns Σ_k val[k]·w[idx[k]].
func Dot(idx []int32, val []float64, w []float64) float64 { return active.Dot(idx, val, w) }

// Axpy does w[idx[k]] += a·val[k] for every k.
func Axpy(a float64, idx []int32, val []float64, w []float64) { active.Axpy(a, idx, val, w) }

// SqNorm returns Σ_k val[k]².
func SqNorm(val []float64) float64 { return active.SqNorm(val) }

// Dot32 returns Σ_k float64(val[k])·w[idx[k]].
func Dot32(idx []int32, val []float32, w []float64) float64 { return active.Dot32(idx, val, w) }

// Axpy32 does w[idx[k]] += a·float64(val[k]) for every k.
func Axpy32(a float64, idx []int32, val []float32, w []float64) { active.Axpy32(a, idx, val, w) }

// DotK sets out[c] = Σ_k val[k]·W[idx[k]*K+c] for every c < K: the K dot
// products of the sparse vector with the weight vectors of a multi-class
// model stored feature-major (W[j*K+c] is weight j of class c). It needs
// K >= 0, len(out) >= K and idx[k] < len(W)/K; out[K:] is not touched.
func DotK(idx []int32, val []float64, W []float64, K int, out []float64) {
	active.DotK(idx, val, W, K, out)
}

// AxpyK does W[idx[k]*K+c] += coef[c]·val[k] for every k and c < K. It
// needs K >= 0, len(coef) >= K and idx[k] < len(W)/K.
func AxpyK(coef []float64, idx []int32, val []float64, W []float64, K int) {
	active.AxpyK(coef, idx, val, W, K)
}
