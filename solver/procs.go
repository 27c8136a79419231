package solver

import "sync/atomic"

// Processor budget.
//
// Train and CrossValidate run work on several goroutines at three levels:
// cross-validation folds, one-vs-rest classes, and the chunks of a full
// KKT pass of one subproblem. Each level on its own would start
// GOMAXPROCS goroutines, and nested they would oversubscribe the
// processors (folds × classes × chunks goroutines on GOMAXPROCS cores).
// Instead one call shares a procPool of GOMAXPROCS tokens: a goroutine
// doing solver work holds one token; the caller's goroutine holds one
// from the start. A level that wants helpers takes spare tokens without
// waiting (take) and runs with as many as it got, possibly none, and
// gives them back as soon as a helper has nothing left to do, so a
// one-vs-rest class or a fold that finishes early lends its processor to
// the KKT passes of the work still running.
//
// How many tokens a level gets depends on timing, so nothing a level
// computes may depend on it: classes have their own seeds, folds their
// own rows, and the KKT pass fixed chunks combined in a fixed order. The
// same seed gives the same bits at any GOMAXPROCS.
type procPool struct {
	free atomic.Int64
}

// newProcPool returns a pool with n spare tokens (the caller's own
// goroutine is not counted: it holds its token already).
func newProcPool(n int) *procPool {
	p := &procPool{}
	p.free.Store(int64(max(n, 0)))
	return p
}

// take takes up to n spare tokens without waiting and returns how many.
// A nil pool has none.
func (p *procPool) take(n int) int {
	if p == nil || n <= 0 {
		return 0
	}
	for {
		f := p.free.Load()
		k := min(f, int64(n))
		if k <= 0 {
			return 0
		}
		if p.free.CompareAndSwap(f, f-k) {
			return int(k)
		}
	}
}

// give returns n tokens to the pool.
func (p *procPool) give(n int) {
	if p != nil && n > 0 {
		p.free.Add(int64(n))
	}
}
