package solver

import (
	"sync/atomic"

	"github.com/acfcd/acfcd/internal/procs"
)

// Chunk is the read-only scan of one chunk of rows of a full pass.
type Chunk struct {
	Viol, Loss float64 // over the rows before Stop
	Ops        int64
	Stop       int // with repair, the first row whose violation exceeds eps; −1 if none
}

// RowPass runs the full pass of a problem whose coordinates are the n
// rows of the data (nnz non-zeros): scan(helper) returns a function that
// scans rows [lo, hi) without changing anything (several goroutines call
// it at once; helper is false for the calling goroutine's), and with
// repair stops at the first violator. From the first violator on the pass
// goes on sequentially through rest, which repairs and adds each row's
// violation and loss to *viol and *loss. It returns the largest violation,
// the loss (chunk sums added in chunk order, then the rest in row order),
// the non-zeros the scans read, and whether no row violated.
//
// Up to the first violator nothing changes, so that part runs in chunks
// of Tuning.KKTChunkRows rows on the spare processors of pool, with the
// same result as the plain sequential loop: the same steps in the same
// order, and the same sums, since the chunking never depends on the
// number of processors.
func RowPass(t *Tuning, pool *procs.Pool, chunks *[]Chunk, n int, nnz int64,
	scan func(helper bool) func(lo, hi int) Chunk, rest func(first int, viol, loss *float64)) (viol, loss float64, ops int64, ok bool) {
	size := t.KKTChunkRows
	nch := (n + size - 1) / size
	if cap(*chunks) < nch {
		*chunks = make([]Chunk, nch)
	}
	cs := (*chunks)[:nch]
	done := scanChunks(t, pool, cs, n, nnz, scan)
	for _, c := range cs[:done] {
		viol = max(viol, c.Viol)
		loss += c.Loss
		ops += c.Ops
	}
	ok = true
	if done > 0 && cs[done-1].Stop >= 0 {
		ok = false
		rest(cs[done-1].Stop, &viol, &loss)
	}
	return viol, loss, ops, ok
}

// Primal returns ½‖w‖² + loss, the primal objective of the L2-regularised
// problems at w, summed in index order.
func Primal(w []float64, loss float64) float64 {
	var ww float64
	for _, x := range w {
		ww += float64(x * x)
	}
	return float64(0.5*ww) + loss
}

// scanChunks fills cs in order, cs[c] with the scan of rows
// [c·size, (c+1)·size), using the calling goroutine and, when the data is
// worth it, as many helpers as pool spares. It stops after the first
// chunk whose scan set Stop and returns the number of chunks scanned up to
// and including it (chunks beyond it that helpers scanned ahead are
// discarded, as a sequential loop would never have read them).
//
// The scans must only read: the point does not change before the first
// violator is repaired, after every helper has returned.
func scanChunks(t *Tuning, pool *procs.Pool, cs []Chunk, n int, nnz int64, scanner func(helper bool) func(lo, hi int) Chunk) int {
	size := t.KKTChunkRows
	nch := len(cs)
	helpers := 0
	if nch > 1 && nnz >= t.KKTParallelNNZ {
		helpers = pool.Take(nch - 1)
	}
	if helpers == 0 {
		scan := scanner(false)
		for c := range cs {
			lo := c * size
			cs[c] = scan(lo, min(lo+size, n))
			if cs[c].Stop >= 0 {
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
	pool.Run(helpers, func(helper bool) {
		scan := scanner(helper)
		for {
			c := next.Add(1) - 1
			if c >= end.Load() {
				return
			}
			lo := int(c) * size
			r := scan(lo, min(lo+size, n))
			cs[c] = r
			for r.Stop >= 0 {
				e := end.Load()
				if c+1 >= e || end.CompareAndSwap(e, c+1) {
					break
				}
			}
		}
	}, func() { end.Store(0) }) // the others stop after their chunk
	return int(end.Load())
}
