package folds

import (
	"context"
	"sync"

	"github.com/acfcd/acfcd/internal/procs"
)

// CellError is the error of Chain: the first cell that failed, in the
// order of a sequential run (point by point, fold by fold).
type CellError struct {
	Point, Fold int // 0-based
	Err         error
}

func (e *CellError) Error() string { return e.Err.Error() }
func (e *CellError) Unwrap() error { return e.Err }

// Chain runs the cells of a grid of n points by nf folds on conc
// goroutines, the pool lending the processors they leave: the cells of a
// parameter search, where a point is one C and fold f at point k starts
// from its solution at point k−1 (its warm start) but needs no other
// fold. The workers take the fold whose next point is the smallest, so
// that the points complete in order while no worker waits for the others
// to finish a point. cell trains one cell under a context of its own and
// reports whether it was cut short by the cancellation of ctx, or an
// error; successive cells of a fold never run at once.
//
// Once every fold has done point k, final(k) is called, in order and one
// at a time; it returns true to end the search there: cells started on a
// later point are cancelled and their outcome dropped. No cell starts
// after an error (those running finish). Chain returns the number of
// points final and, unless all of them up to the last are, the error: a
// *CellError for the first cell that failed, else an *Interrupted naming
// the folds of the next point that were cut short or never trained.
func Chain(ctx context.Context, n, nf, conc int, pool *procs.Pool,
	cell func(ctx context.Context, k, f int) (cut bool, err error), final func(k int) (last bool)) (int, error) {
	type outcome struct {
		done, cut bool
		err       error
	}
	cells := make([][]outcome, n)
	for k := range cells {
		cells[k] = make([]outcome, nf)
	}
	next := make([]int, nf)
	running := make([]bool, nf)
	cancels := make([]context.CancelFunc, nf)
	limit := n - 1 // the last point that may be trained
	done := 0      // the next point to finalise
	failed := false
	var mu sync.Mutex

	// finalise completes the points whose folds are all done (mu held).
	finalise := func() {
		for done <= limit && !failed {
			for f := range nf {
				if c := cells[done][f]; !c.done || c.cut || c.err != nil {
					return
				}
			}
			if final(done) {
				limit = done
				for f := range nf {
					if running[f] && next[f] > done {
						cancels[f]() // beyond the end: its outcome is dropped
					}
				}
			}
			done++
		}
	}

	var wg sync.WaitGroup
	for range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer pool.Give(1) // no fold left: lend the processor to those still training
			for {
				mu.Lock()
				f := -1
				for g := range nf {
					if !running[g] && next[g] <= limit && (f < 0 || next[g] < next[f]) {
						f = g
					}
				}
				if f < 0 || failed || ctx.Err() != nil {
					// Every other fold is running or done; a running fold's
					// next point is taken by the worker that trains it.
					mu.Unlock()
					return
				}
				k := next[f]
				fctx, cancel := context.WithCancel(ctx)
				running[f], cancels[f] = true, cancel
				mu.Unlock()

				cut, err := cell(fctx, k, f)
				cancel()

				mu.Lock()
				running[f] = false
				next[f]++
				if k <= limit {
					cells[k][f] = outcome{done: true, cut: cut, err: err}
					failed = failed || err != nil
					finalise()
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if failed {
		for k := range cells {
			for f, c := range cells[k] {
				if c.err != nil {
					return done, &CellError{Point: k, Fold: f, Err: c.err}
				}
			}
		}
	}
	if done <= limit {
		intr := &Interrupted{Err: ctx.Err()}
		if intr.Err == nil {
			intr.Err = context.Canceled
		}
		for f := range nf {
			if c := cells[done][f]; !c.done || c.cut {
				intr.Folds = append(intr.Folds, f+1)
			}
		}
		return done, intr
	}
	return done, nil
}
