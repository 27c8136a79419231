package cocoa

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sync"
	"time"

	"github.com/acfcd/acfcd"
	dataio "github.com/acfcd/acfcd/io"
)

// Partition returns the K blocks of d: example i goes to block i mod K,
// so that every block sees the file's mix of classes and lengths.
func Partition(d *dataio.Dataset, k int) []*dataio.Dataset {
	out := make([]*dataio.Dataset, k)
	for b := range out {
		var rows []int
		for i := b; i < d.Rows; i += k {
			rows = append(rows, i)
		}
		out[b] = d.Subset(rows)
	}
	return out
}

// Options configure Simulate.
type Options struct {
	// Epochs is the local budget of a round in epochs of the block: a
	// block of n_k examples takes ⌈Epochs·n_k⌉ coordinate steps. 0 means 1.
	Epochs float64
	// Gap stops at the first round whose duality gap is at most Gap
	// (absolute, in the units of liblinear's objectives); 0 means 1e-3.
	Gap float64
	// RelGap > 0 stops too at the first round whose gap is at most RelGap
	// times the primal objective (which then exceeds the optimum by less
	// than that fraction).
	RelGap float64
	// MaxRounds caps the rounds; 0 means 1000.
	MaxRounds int
	// Procs is the number of goroutines that run the blocks of a round;
	// 0 means GOMAXPROCS.
	Procs int
	// LineSearch scales the sum of a round's updates by the γ ≥ 0 that
	// minimises the dual along it (-s 1 and 3, whose dual is quadratic):
	// every block sends three numbers more and receives γ with the next
	// w. Without it γ = 1, which needs σ' = K.
	LineSearch bool
	// OuterRounds, with Spec.Kappa > 0, is the rounds of CoCoA+ on each
	// proximal problem of Catalyst (see Catalyst) before its centre moves
	// (0: DefaultOuterRounds).
	OuterRounds int
	// Progress, if set, is called after every round's gap.
	Progress func(Round)
}

// Round describes the point after a round (round 0: the start).
type Round struct {
	Round  int
	Gap    float64 // P(w) + f(α)
	Primal float64 // P(w) = ½‖w‖² + Σ_i C_i loss_i(w)
	Dual   float64 // f(α), liblinear's dual objective (minimised)
	// Steps are the local coordinate steps of all blocks up to this point.
	Steps int64
	// Gamma is the line search's step on the sum of the updates that
	// led to this point (1 without it, 0 at round 0).
	Gamma float64
	// Bytes are the bytes communicated by the stage that measured this
	// point and took the round from it: w sent to every block (none in
	// round 0, where the blocks start from their own α), two gap parts
	// and Δw sent back.
	Bytes int64
	// Seconds since the start, setup included.
	Seconds float64
}

// Result is what Simulate returns.
type Result struct {
	W         []float64 // len Spec.Dim()
	Rounds    []Round
	Converged bool // the gap reached Options.Gap or RelGap
}

// Simulate trains spec on d split by Partition into spec.K blocks, run in
// this process, round by round until the duality gap is at most opt.Gap.
func Simulate(ctx context.Context, d *dataio.Dataset, spec Spec, opt Options) (*Result, error) {
	start := time.Now()
	if d.Rows == 0 {
		return nil, ErrEmpty
	}
	if opt.Epochs == 0 {
		opt.Epochs = 1
	}
	if !(opt.Epochs > 0) || math.IsInf(opt.Epochs, 0) {
		return nil, fmt.Errorf("cocoa: local budget of %g epochs (want > 0)", opt.Epochs)
	}
	if opt.Gap == 0 {
		opt.Gap = 1e-3
	}
	if opt.MaxRounds == 0 {
		opt.MaxRounds = 1000
	}
	if opt.Procs <= 0 {
		opt.Procs = runtime.GOMAXPROCS(0)
	}
	if err := spec.check(); err != nil {
		return nil, err
	}
	if opt.LineSearch && spec.Problem == acfcd.LogisticDual {
		return nil, fmt.Errorf("cocoa: the line search needs a quadratic dual (-s 1 or 3), not -s %s", spec.Problem.Flag())
	}
	if !opt.LineSearch && spec.sigma() < float64(spec.K) {
		return nil, fmt.Errorf("cocoa: σ' = %g below K = %d needs the line search", spec.sigma(), spec.K)
	}
	parts := Partition(d, spec.K)
	blocks := make([]*Block, spec.K)
	for k, part := range parts {
		b, err := NewBlock(spec, k, part)
		if err != nil {
			return nil, err
		}
		blocks[k] = b
	}
	parts = nil
	w := make([]float64, spec.Dim())
	for _, b := range blocks {
		b.Start().AddTo(w)
	}
	res := &Result{W: w}
	var steps int64
	gaps := make([][2]float64, len(blocks))
	ups := make([]Update, len(blocks))
	var dw []float64 // the sum of a round's updates, for the line search
	if opt.LineSearch {
		dw = make([]float64, len(w))
	}
	dws := make([]Sparse, len(blocks))
	gamma := 0.0
	var cat *Catalyst
	if spec.Kappa > 0 {
		cat = NewCatalyst(spec.Kappa, opt.OuterRounds, w)
	}
	for r := 0; ; r++ {
		// The gap at w, then (unless it is small enough) a round from w:
		// what an engine does in one stage.
		var bytes int64
		if r > 0 {
			bytes = int64(len(blocks)) * VectorBytes(w)
		}
		last := r == opt.MaxRounds
		each(opt.Procs, len(blocks), func(k int) {
			gaps[k][0], gaps[k][1] = blocks[k].Gap(w)
		})
		rd := measure(w, gaps, cat)
		bytes += 16 * int64(len(blocks))
		if err := ctx.Err(); err != nil {
			return res, err
		}
		done := rd.Gap <= opt.Gap || rd.Gap <= opt.RelGap*math.Abs(rd.Primal)
		if !done && !last {
			each(opt.Procs, len(blocks), func(k int) {
				b := blocks[k]
				ups[k] = b.Round(w, int64(math.Ceil(opt.Epochs*float64(b.Len()))))
			})
		}
		rd.Steps, rd.Gamma = steps, gamma
		if !done && !last {
			for k := range ups {
				steps += ups[k].Steps
				bytes += ups[k].DW.Bytes()
			}
			lin, quad, top := 0.0, 0.0, math.Inf(1)
			for k, b := range blocks {
				dws[k] = ups[k].DW
				if opt.LineSearch {
					l, q, t, _ := b.Line()
					lin, quad, top = lin+l, quad+q, min(top, t)
				}
			}
			gamma = Apply(w, dw, dws, opt.LineSearch, lin, quad, top, cat, r, rd.Primal)
			if opt.LineSearch {
				bytes += 24 * int64(len(blocks))
				for _, b := range blocks {
					b.Scale(gamma)
				}
			}
		}
		rd.Round, rd.Bytes = r, bytes
		rd.Seconds = time.Since(start).Seconds()
		res.Rounds = append(res.Rounds, rd)
		if opt.Progress != nil {
			opt.Progress(rd)
		}
		if done || last {
			res.Converged = done
			return res, nil
		}
	}
}

// Apply moves w by a round's updates dws and returns the step γ taken:
// with search, the line search's (LineGamma, with lin, quad and top the
// sums and the smallest of the blocks' Block.Line parts), else 1. Under
// Catalyst (cat not nil) w moves by γ/(1+κ) times the updates and cat
// keeps its v and, at the end of round r (primal measured at its start),
// moves the centre. Both drivers, Simulate and the Beam module's, call it;
// the blocks apply γ themselves (Block.Scale). scratch (len(w)) is left
// all 0.
func Apply(w, scratch []float64, dws []Sparse, search bool, lin, quad, top float64, cat *Catalyst, r int, primal float64) float64 {
	scale := 1.0
	if cat != nil {
		scale = cat.Scale()
	}
	gamma := 1.0
	if search {
		gamma = LineGamma(w, scratch, dws, lin, quad, top, scale)
	}
	for _, d := range dws {
		for n, j := range d.Index {
			w[j] += float64(gamma * scale * d.Value[n])
		}
		if cat != nil {
			cat.Add(gamma, d)
		}
	}
	if cat != nil {
		cat.EndRound(r, w, primal)
	}
	return gamma
}

// LineGamma returns the γ ≥ 0 that minimises the (quadratic) dual along
// the sum Δw = Σ_k dws[k] of a round's updates at w, within every block's
// box: f(α + γΔ) − f(α) = γ(wᵀΔw + lin) + ½γ²(scale·‖Δw‖² + quad), where
// lin, quad are the sums of the blocks' Block.Line parts and top the
// smallest of theirs, and scale is 1, or 1/(1+κ) under Catalyst (whose
// dual has ‖Σ α_i y_i x_i‖²/(1+κ)). It is at least as good as γ = 1, which
// every box allows. scratch (len(w)) is left all 0.
func LineGamma(w, scratch []float64, dws []Sparse, lin, quad, top, scale float64) float64 {
	for _, d := range dws {
		d.AddTo(scratch)
	}
	for j, d := range scratch {
		if d != 0 {
			lin += float64(w[j] * d)
			quad += float64(scale * d * d)
		}
	}
	clear(scratch)
	if !(quad > 0) || lin >= 0 {
		return 1 // no step, or none that descends: the plain sum
	}
	return min(-lin/quad, top)
}

// measure returns the objectives at w from the blocks' parts; under
// Catalyst (cat not nil) the dual's Σ α_i y_i x_i is cat's v, not w.
func measure(w []float64, parts [][2]float64, cat *Catalyst) Round {
	var ww, loss, conj float64
	for _, x := range w {
		ww += float64(x * x)
	}
	for _, p := range parts {
		loss += p[0]
		conj += p[1]
	}
	vv := ww
	if cat != nil {
		vv = cat.VV()
	}
	P := float64(0.5*ww) + loss
	f := float64(0.5*vv) + conj
	return Round{Gap: P + f, Primal: P, Dual: f}
}

// each runs f(0..n−1) on up to procs goroutines.
func each(procs, n int, f func(k int)) {
	if procs <= 1 || n <= 1 {
		for k := range n {
			f(k)
		}
		return
	}
	var wg sync.WaitGroup
	next := make(chan int, n)
	for k := range n {
		next <- k
	}
	close(next)
	for range min(procs, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range next {
				f(k)
			}
		}()
	}
	wg.Wait()
}
