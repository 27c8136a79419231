package main

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"

	"github.com/acfcd/acfcd"
	"github.com/acfcd/acfcd/cocoa"
)

// runModes measures where the error of K blocks lies after -modes rounds:
// with α* from one block run to a gap of 1e-9·P, block k's part of
// w − w* is u_k = X_k(α_k − α*_k). It prints ‖Σ_k u_k‖² / Σ_k ‖u_k‖²
// (1 for errors at right angles, K for errors all alike, near 0 for errors
// that cancel in w), the mean cosine between two blocks' u_k, and the
// share of Σ_k ‖u_k‖² on the 20 features found in the most examples.
func runModes(o options) error {
	for _, path := range o.data {
		d, err := acfcd.Load(path, acfcd.Options{})
		if err != nil {
			return err
		}
		labels, err := cocoa.Labels(nil, d.Label)
		if err != nil {
			return fmt.Errorf("%s: %v", path, err)
		}
		spec := cocoa.Spec{Problem: o.problem, C: o.c, K: 1, Features: d.Features, Labels: labels, Select: o.selects[0]}
		b1, err := cocoa.NewBlock(spec, 0, d)
		if err != nil {
			return err
		}
		w := make([]float64, spec.Dim())
		b1.Start().AddTo(w)
		oneRounds := 0
		for ; oneRounds < 1000; oneRounds++ {
			loss, conj := b1.Gap(w)
			var ww float64
			for _, v := range w {
				ww += v * v
			}
			if P := ww/2 + loss; P+ww/2+conj <= 1e-9*P {
				break
			}
			b1.Round(w, int64(4*b1.Len())).DW.AddTo(w)
		}
		opt := b1.Alpha()
		freq := make([]int, d.Features)
		for i := range d.Rows {
			idx, _ := d.Row(i)
			for _, j := range idx {
				freq[j]++
			}
		}
		top := make([]int, d.Features)
		for j := range top {
			top[j] = j
		}
		slices.SortFunc(top, func(a, b int) int { return freq[b] - freq[a] })
		top = top[:min(20, len(top))]
		for _, K := range o.ks {
			if K < 2 {
				continue
			}
			spec.K = K
			parts := cocoa.Partition(d, K)
			blocks := make([]*cocoa.Block, K)
			w := make([]float64, spec.Dim())
			for k, part := range parts {
				if blocks[k], err = cocoa.NewBlock(spec, k, part); err != nil {
					return err
				}
				blocks[k].Start().AddTo(w)
			}
			for range o.modes {
				var ups []cocoa.Update
				for _, b := range blocks {
					ups = append(ups, b.Round(w, int64(math.Ceil(o.epochs[0]*float64(b.Len())))))
				}
				for _, u := range ups {
					u.DW.AddTo(w)
				}
			}
			u := make([][]float64, K)
			sum := make([]float64, spec.Dim())
			for k, part := range parts {
				u[k] = make([]float64, spec.Dim())
				for i, a := range blocks[k].Alpha() {
					e := a - opt[i*K+k]
					if part.Label[i] != labels[0] {
						e = -e
					}
					idx, val := part.Row(i)
					for n, j := range idx {
						u[k][j] += e * val[n]
					}
				}
				for j, v := range u[k] {
					sum[j] += v
				}
			}
			var each, onTop float64
			for k := range u {
				for _, v := range u[k] {
					each += v * v
				}
				for _, j := range top {
					onTop += u[k][j] * u[k][j]
				}
			}
			var all, cos float64
			for _, v := range sum {
				all += v * v
			}
			pairs := 0
			for a := range u {
				for b := a + 1; b < K; b++ {
					var ab, aa, bb float64
					for j := range u[a] {
						ab += u[a][j] * u[b][j]
						aa += u[a][j] * u[a][j]
						bb += u[b][j] * u[b][j]
					}
					cos += ab / math.Sqrt(aa*bb)
					pairs++
				}
			}
			fmt.Printf("data=%s s=%s c=%g K=%d epochs=%g select=%s rounds=%d one_block_rounds=%d sum_over_each=%.4g mean_cos=%.4f top20_share=%.4f\n",
				filepath.Base(path), o.problem.Flag(), o.c, K, o.epochs[0], o.selects[0], o.modes, oneRounds, all/each, cos/float64(pairs), onTop/each)
		}
		d.Close()
	}
	return nil
}
