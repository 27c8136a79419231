// Package procs shares the processors of one training call between the
// levels that want helpers: cross-validation folds, one-vs-rest classes,
// the chunks of a full KKT pass and the passes of the interior-point
// method.
//
// Each level on its own would start GOMAXPROCS goroutines, and nested they
// would oversubscribe the processors. Instead one call shares a Pool of
// GOMAXPROCS tokens: a goroutine doing solver work holds one token, the
// caller's from the start. A level that wants helpers takes spare tokens
// without waiting and runs with as many as it got, possibly none, and gives
// each back as soon as its helper has nothing left to do, so a class or a
// fold that finishes early lends its processor to the work still running.
//
// How many tokens a level gets depends on timing, so nothing a level
// computes may depend on it: classes have their own seeds, folds their own
// rows, and the passes fixed chunks combined in a fixed order. The same
// seed gives the same bits at any GOMAXPROCS.
package procs

import (
	"sync"
	"sync/atomic"

	"github.com/acfcd/acfcd/internal/fault"
)

// Pool is a budget of spare processors. A nil *Pool has none.
type Pool struct {
	free atomic.Int64
}

// NewPool returns a pool with n spare tokens (the caller's own goroutine
// is not counted: it holds its token already).
func NewPool(n int) *Pool {
	p := &Pool{}
	p.free.Store(int64(max(n, 0)))
	return p
}

// Take takes up to n spare tokens without waiting and returns how many.
func (p *Pool) Take(n int) int {
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

// Give returns n tokens to the pool.
func (p *Pool) Give(n int) {
	if p != nil && n > 0 {
		p.free.Add(int64(n))
	}
}

// Run runs run(true) on helpers goroutines, which hold tokens of p (each
// given back as its goroutine returns), and run(false) on the calling
// goroutine, and returns once all have returned. Each helper installs the
// fault guard (package fault). A panic in any of them calls abort, which
// should make the others return soon, and is raised again on the calling
// goroutine once all have returned, so that a memory fault on a truncated
// mapped file becomes the caller's error.
func (p *Pool) Run(helpers int, run func(helper bool), abort func()) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	var panicked any
	for range helpers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer p.Give(1)
			defer fault.Guard()()
			defer func() {
				if r := recover(); r != nil {
					abort()
					mu.Lock()
					if panicked == nil {
						panicked = r
					}
					mu.Unlock()
				}
			}()
			run(true)
		}()
	}
	func() {
		defer wg.Wait() // no helper outlives the call, even if this goroutine faults
		defer func() {
			if r := recover(); r != nil {
				abort()
				panic(r)
			}
		}()
		run(false)
	}()
	if panicked != nil {
		panic(panicked)
	}
}
