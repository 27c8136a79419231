package solver

import (
	"sync"
	"sync/atomic"
)

// The read-only part of the full KKT passes (dual.go, ww.go), in chunks
// on the spare processors.

// kktChunkRows is the number of examples in a chunk of a full KKT pass.
// The pass is computed chunk by chunk whatever the number of goroutines,
// so this size, never GOMAXPROCS, fixes how the loss is summed. (A
// variable so that tests can cut small data into many chunks.)
var kktChunkRows = 1024

// kktParallelNNZ: a pass over fewer non-zeros runs on the calling
// goroutine alone (about 50 µs of work: starting helpers would not pay).
var kktParallelNNZ int64 = 1 << 16

// testHookKKTChunk, when set by a test, is called before each chunk of a
// full KKT pass is scanned, with whether a helper goroutine scans it. It
// may be called from several goroutines at once.
var testHookKKTChunk func(chunk int, helper bool)

// kktChunk is the read-only scan of one chunk of a KKT pass.
type kktChunk struct {
	viol, loss float64 // over the examples before stop
	ops        int64
	stop       int // with fix, the first example whose violation exceeds eps; -1 if none
}

// scanChunks fills chunks in order, chunks[c] with the scan of examples
// [c·kktChunkRows, (c+1)·kktChunkRows) of n, using the calling goroutine
// and, when the data (nnz non-zeros) is worth it, as many helpers as pool
// spares. Each goroutine gets its scan function from scanner (helper
// false for the caller). It stops after the first chunk whose scan set
// stop, and returns the number of chunks scanned: all of them, or up to
// and including that first one with a stop (chunks past it that helpers
// scanned ahead are discarded; the caller counts only the chunks
// returned in Operations, as a sequential loop would).
//
// The scans must only read (the point does not change before the first
// violator is stepped on, after every helper has returned). Each helper
// installs the fault guard (fault.go), and a panic in a helper, such as a
// memory fault on a truncated mapped file, is raised again on the calling
// goroutine, where Train turns it into an error.
func scanChunks(chunks []kktChunk, n int, nnz int64, pool *procPool, scanner func(helper bool) func(lo, hi int) kktChunk) int {
	nch := len(chunks)
	helpers := 0
	if nch > 1 && nnz >= kktParallelNNZ {
		helpers = pool.take(nch - 1)
	}
	if helpers == 0 {
		scan := scanner(false)
		for c := range chunks {
			if testHookKKTChunk != nil {
				testHookKKTChunk(c, false)
			}
			lo := c * kktChunkRows
			chunks[c] = scan(lo, min(lo+kktChunkRows, n))
			if chunks[c].stop >= 0 {
				return c + 1
			}
		}
		return nch
	}

	// Chunks are claimed in increasing order, and end only decreases (to
	// one past the lowest chunk with a stop), so every chunk below the
	// final end has been scanned once all have returned.
	var next, end atomic.Int64
	end.Store(int64(nch))
	run := func(helper bool) {
		scan := scanner(helper)
		for {
			c := next.Add(1) - 1
			if c >= end.Load() {
				return
			}
			if testHookKKTChunk != nil {
				testHookKKTChunk(int(c), helper)
			}
			lo := int(c) * kktChunkRows
			r := scan(lo, min(lo+kktChunkRows, n))
			chunks[c] = r
			for r.stop >= 0 {
				e := end.Load()
				if c+1 >= e || end.CompareAndSwap(e, c+1) {
					break
				}
			}
		}
	}
	runHelpers(pool, helpers, run, func() { end.Store(0) }) // the others stop after their chunk
	return int(end.Load())
}

// runHelpers runs run(true) on helpers goroutines, which hold tokens of
// pool (given back as each returns), and run(false) on the calling
// goroutine, and returns once all have returned. Each helper installs the
// fault guard (fault.go). A panic in any of them calls abort, which
// should make the others return soon, and is raised again on the calling
// goroutine once all have returned, so that Train turns a memory fault
// on a truncated mapped file into an error.
func runHelpers(pool *procPool, helpers int, run func(helper bool), abort func()) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	var panicked any
	for range helpers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer pool.give(1)
			defer guardFaults()()
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
