package fit

import (
	"context"
	"fmt"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/acfcd/acfcd/internal/fault"
	"github.com/acfcd/acfcd/internal/mix"
	"github.com/acfcd/acfcd/internal/procs"
	dataio "github.com/acfcd/acfcd/io"
	"github.com/acfcd/acfcd/model"
)

// Subproblem is one binary problem of liblinear's train(): class k (or
// class 0 of two) against the rest.
type Subproblem struct {
	Class  int
	Cp, Cn float64 // the C of the positive and the negative examples
	Seed   uint64  // its own stream, whatever goroutine trains it
	Res    Result
}

// Subproblems returns liblinear's train() subproblems of the classes
// labels under s: two classes give one problem with class 0 positive,
// Cp = weighted C of class 0 and Cn = that of class 1; otherwise (one
// class included) one-vs-rest with Cp = weighted C of class k and Cn = C.
// The warnings name -wi labels that do not occur, in label order.
func Subproblems(labels []float64, s *Spec) (subs []Subproblem, warnings []string) {
	weighted, warnings := ClassCosts(labels, s)
	nsub := len(labels)
	if nsub == 2 {
		nsub = 1
	}
	subs = make([]Subproblem, nsub)
	for k := range subs {
		sp := &subs[k]
		sp.Class = k
		if len(labels) == 2 {
			sp.Cp, sp.Cn = weighted[0], weighted[1]
		} else {
			sp.Cp, sp.Cn = weighted[k], s.C
		}
		sp.Seed = mix.Seed(s.Seed, uint64(k))
	}
	return subs, warnings
}

// ClassCosts returns the C of each class under s, C times its -wi weight,
// and the warnings for weights of labels that do not occur, in label
// order.
func ClassCosts(labels []float64, s *Spec) ([]float64, []string) {
	weighted := make([]float64, len(labels))
	for j := range weighted {
		weighted[j] = s.C
	}
	wlabels := make([]float64, 0, len(s.Weights))
	for lab := range s.Weights {
		wlabels = append(wlabels, lab)
	}
	sort.Float64s(wlabels) // deterministic warnings
	var warnings []string
	for _, lab := range wlabels {
		j := IndexOf(labels, lab)
		if j < 0 {
			warnings = append(warnings, fmt.Sprintf("class label %g specified in weight is not found", lab))
			continue
		}
		weighted[j] *= s.Weights[lab]
	}
	return weighted, warnings
}

// Each trains subproblems 0 to nsub−1 on up to min(GOMAXPROCS, nsub)
// workers: the caller's processor and the spare ones of the pool. Each
// worker calls start once for its solve function (its own buffers), then
// solves the subproblems it claims; once ctx is cancelled the subproblems
// not started go to cancelled instead. A worker that finds no subproblem
// left gives its processor back to the pool, for the passes of the
// subproblems still running; the last one keeps it for the caller. A
// fault in a worker (a truncated mapped file) is returned as the error.
func Each(ctx context.Context, d *dataio.Dataset, pool *procs.Pool, nsub int, start func() func(k int), cancelled func(k int)) error {
	workers := 1 + pool.Take(min(runtime.GOMAXPROCS(0), nsub)-1)
	var alive atomic.Int64
	alive.Store(int64(workers))
	var next atomic.Int64
	var wg sync.WaitGroup
	var faultMu sync.Mutex
	var faultErr error
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if alive.Add(-1) > 0 {
					pool.Give(1)
				}
			}()
			defer fault.Guard()()
			var err error
			defer func() {
				if err != nil {
					faultMu.Lock()
					faultErr = err
					faultMu.Unlock()
				}
			}()
			defer fault.Recover(d.Source, &err)
			solve := start()
			for {
				k := int(next.Add(1) - 1)
				if k >= nsub {
					return
				}
				if ctx.Err() != nil {
					cancelled(k) // its weights stay 0
					continue
				}
				solve(k)
			}
		}()
	}
	wg.Wait()
	return faultErr
}

// LockedProgress makes f safe to call from several goroutines, one call
// at a time.
func LockedProgress(f func(Progress)) func(Progress) {
	if f == nil {
		return nil
	}
	var mu sync.Mutex
	return func(pr Progress) {
		mu.Lock()
		defer mu.Unlock()
		f(pr)
	}
}

// OneVsRest is the model of nsub binary subproblems over nf features in
// liblinear's layout: weight j of subproblem k at W[j·nsub + k], the
// bias weight last when bias > 0. Its weights are w's (a subproblem that
// trains in place), or new when w is nil.
func OneVsRest(labels []float64, nf int, bias float64, nsub int, w []float64) *model.Model {
	rows := nf
	if bias > 0 {
		rows++
	}
	if w == nil {
		w = make([]float64, rows*nsub)
	}
	return &model.Model{Labels: labels, NumFeature: nf, Bias: bias, NrW: nsub, W: w[:rows*nsub]}
}

// Rows is the number of weights a subproblem has in m: its features and
// the bias.
func Rows(m *model.Model) int { return len(m.W) / m.NrW }

// CopyOut stores subproblem k's weights w in m.
func CopyOut(m *model.Model, k int, w []float64) {
	nsub := m.NrW
	for j := range Rows(m) {
		m.W[j*nsub+k] = w[j]
	}
}

// Total sums the subproblems' results into res (whose Select, C and Eps
// they take), keeps them in res.Classes when there are several, counts
// the model's non-zeros and marks it partial unless all converged.
func Total(res *Result, subs []Subproblem, m *model.Model) {
	res.Converged = true
	for k := range subs {
		r := &subs[k].Res
		r.Select, r.C, r.Eps = res.Select, res.C, res.Eps
		res.Add(r)
	}
	res.NNZW = m.NNZ()
	if len(subs) > 1 {
		res.Classes = make([]Result, len(subs))
		for k := range subs {
			res.Classes[k] = subs[k].Res
		}
	}
	m.Partial = !res.Converged || res.Cancelled
}
