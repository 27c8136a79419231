package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"

	"github.com/acfcd/acfcd"
	"github.com/acfcd/acfcd/cocoa"
)

func traceLine(data string, k int, epochs float64, sel string, round int, gap, primal, dual float64, steps int64) {
	fmt.Printf("data=%s K=%d epochs=%g select=%s round=%d gap=%.6g primal=%.10g dual=%.10g steps=%d\n",
		data, k, epochs, sel, round, gap, primal, dual, steps)
}

// runTextbook runs CoCoA+ for the SVM duals as Ma et al. (2015) state it,
// independently of package cocoa and of acfcd's solvers: example i in
// block i mod K; every round each block takes o.textbook sweeps (each in a
// fresh random order: in file order kdd-shaped data converges many times
// slower) of exact coordinate steps on its local subproblem
// wᵀX_kΔ + (K/2)‖X_kΔ‖² + Σ_{i∈k} ℓ*_i(α_i + Δ_i) from the shared w, and
// the K updates are added. It stops at the gap of -gap (or -gap-rel with
// -stop-rel) or -max-rounds.
func runTextbook(o options) error {
	if o.problem != acfcd.SquaredHingeDual && o.problem != acfcd.HingeDual {
		return fmt.Errorf("-textbook: -s 1 or 3")
	}
	for _, path := range o.data {
		d, err := acfcd.Load(path, acfcd.Options{})
		if err != nil {
			return err
		}
		labels, err := cocoa.Labels(nil, d.Label)
		if err != nil {
			return fmt.Errorf("%s: %v", path, err)
		}
		for _, k := range o.ks {
			textbook(o, filepath.Base(path), d, labels[0], k)
		}
		d.Close()
	}
	return nil
}

func textbook(o options, name string, d *acfcd.Dataset, pos float64, K int) {
	n, C := d.Rows, o.c
	y := make([]float64, n)
	xsq := make([]float64, n)
	for i := range n {
		y[i] = -1
		if d.Label[i] == pos {
			y[i] = 1
		}
		_, val := d.Row(i)
		for _, v := range val {
			xsq[i] += v * v
		}
	}
	D, U := 0.5/C, math.Inf(1)
	if o.problem == acfcd.HingeDual {
		D, U = 0, C
	}
	dot := func(i int, v []float64) float64 {
		idx, val := d.Row(i)
		var s float64
		for k, j := range idx {
			s += val[k] * v[j]
		}
		return s
	}
	axpy := func(c float64, i int, v []float64) {
		idx, val := d.Row(i)
		for k, j := range idx {
			v[j] += c * val[k]
		}
	}
	alpha := make([]float64, n)
	w := make([]float64, d.Features)
	sigma := float64(K)
	rng := rand.New(rand.NewPCG(1, uint64(K)))
	order := make([]int, 0, (n+K-1)/K)
	var steps int64
	for r := 0; ; r++ {
		var ww, P, f float64
		for _, v := range w {
			ww += v * v
		}
		for i := range n {
			h := max(0, 1-y[i]*dot(i, w))
			if o.problem == acfcd.HingeDual {
				P += C * h
			} else {
				P += C * h * h
			}
			f += 0.5*D*alpha[i]*alpha[i] - alpha[i]
		}
		P, f = P+ww/2, f+ww/2
		gap := P + f
		done := gap <= o.gap || o.stopRel && gap <= o.rel*P
		if o.trace > 0 && r%o.trace == 0 || done || r == o.maxRounds {
			traceLine(name, K, float64(o.textbook), "textbook", r, gap, P, f, steps)
		}
		if done || r == o.maxRounds {
			fmt.Printf("data=%s s=%s c=%g run=textbook K=%d sweeps=%d rounds=%d steps=%d converged=%v gap=%.3g primal=%.10g\n",
				name, o.problem.Flag(), C, K, o.textbook, r, steps, done, gap, P)
			return
		}
		next := append([]float64(nil), alpha...)
		dw := make([]float64, len(w))
		v := make([]float64, len(w))
		for k := range K {
			copy(v, w) // w + σ'·X_kΔ
			order = order[:0]
			for i := k; i < n; i += K {
				order = append(order, i)
			}
			for range o.textbook {
				rng.Shuffle(len(order), func(a, b int) { order[a], order[b] = order[b], order[a] })
				for _, i := range order {
					G := y[i]*dot(i, v) - 1 + D*next[i]
					a := min(max(next[i]-G/(sigma*xsq[i]+D), 0), U)
					if a != next[i] {
						axpy(sigma*(a-next[i])*y[i], i, v)
						next[i] = a
					}
					steps++
				}
			}
			for i := k; i < n; i += K {
				if dlt := next[i] - alpha[i]; dlt != 0 {
					axpy(dlt*y[i], i, dw)
				}
			}
		}
		alpha = next
		for j := range w {
			w[j] += dw[j]
		}
	}
}
