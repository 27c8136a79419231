// Package kernel holds the sparse-vector operations that coordinate-descent
// solvers spend their time in, with one implementation per instruction set
// and a pure-Go twin that is always compiled.
//
// A sparse vector is a pair (idx []int32, val []float64) with idx strictly
// increasing; w is a dense vector. The active implementation is chosen once
// at start-up from cpuid and can be switched with Use (tests, benchmarks,
// the ACFCD_KERNEL environment variable).
package kernel

// Impl is one implementation of the kernels. All function fields are set.
type Impl struct {
	Name string // e.g. "generic", "avx2", "avx512", "neon"

	// Dot returns Σ val[k]·w[idx[k]].
	Dot func(idx []int32, val []float64, w []float64) float64
	// Axpy does w[idx[k]] += a·val[k] for every k.
	Axpy func(a float64, idx []int32, val []float64, w []float64)
	// SqNorm returns Σ val[k]².
	SqNorm func(val []float64) float64
}

var impls []*Impl

// active is the implementation the package-level functions call.
var active *Impl

// register adds an implementation usable on this CPU. Called from init
// functions in the order generic first, best last.
func register(im *Impl) {
	impls = append(impls, im)
	active = im
}

// Impls returns every implementation usable on this CPU, generic first.
func Impls() []*Impl { return append([]*Impl(nil), impls...) }

// Active returns the implementation in use.
func Active() *Impl { return active }

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

// Dot returns Σ val[k]·w[idx[k]].
func Dot(idx []int32, val []float64, w []float64) float64 { return active.Dot(idx, val, w) }

// Axpy does w[idx[k]] += a·val[k].
func Axpy(a float64, idx []int32, val []float64, w []float64) { active.Axpy(a, idx, val, w) }

// SqNorm returns Σ val[k]².
func SqNorm(val []float64) float64 { return active.SqNorm(val) }
