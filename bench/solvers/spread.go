package main

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"

	"github.com/acfcd/acfcd"
	"github.com/acfcd/acfcd/bench/internal/benchkit"
)

// With -spread N the command measures how much the primal objective at
// the solver's default -e depends on the path that coordinate descent
// (or newGLMNET's inner CD) happens to take: acfcd trained with seeds 1
// to N, and liblinear 2.50 (whose rand() is never seeded) on the
// training rows in N orders, the file's own and N−1 shuffles. Where the
// stopping rule leaves the objective spread wider than the two tools'
// difference, which of them ends lower in one run is a draw.

// spread is the primal objectives of one configuration's runs.
type spread struct {
	acfcd, ll []float64
}

// runSpread fills r.spread. train is the training file, d its data.
func (o *options) runSpread(ws *benchkit.Workspace, sv *solver, r *result, train string, d *acfcd.Dataset, args []string, p acfcd.Params) {
	sp := &spread{}
	for seed := 1; seed <= o.Spread; seed++ {
		p.Seed = uint64(seed)
		ctx, cancel := context.WithTimeout(context.Background(), o.Timeout)
		m, _, err := acfcd.Train(ctx, d, p)
		cancel()
		if err != nil {
			sp.acfcd = append(sp.acfcd, math.NaN())
			continue
		}
		sp.acfcd = append(sp.acfcd, benchkit.Primal(m, d, sv.s, p.C, p.P, p.Nu))
	}
	text, err := os.ReadFile(train)
	if err != nil {
		return
	}
	lines := bytes.SplitAfter(bytes.TrimRight(text, "\n"), []byte("\n"))
	for k := 0; k < o.Spread; k++ {
		file := train
		if k > 0 {
			perm := rand.New(rand.NewPCG(uint64(k), 0x9e3779b97f4a7c15)).Perm(len(lines))
			var b bytes.Buffer
			for _, i := range perm {
				b.Write(bytes.TrimRight(lines[i], "\n"))
				b.WriteByte('\n')
			}
			file = ws.Path(fmt.Sprintf("%s.order%d.svm", strings.TrimSuffix(base(train), ".svm"), k))
			if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
				return
			}
		}
		mfile := file + fmt.Sprintf(".s%d.c%s.250.model", sv.s, benchkit.FmtArg(p.C))
		ctx, cancel := context.WithTimeout(context.Background(), o.Timeout)
		_, err := benchkit.RunProcess(ctx, o.Train250, append(slices.Clone(args), file, mfile)...)
		cancel()
		m, lerr := acfcd.LoadModel(mfile)
		if err != nil || lerr != nil {
			sp.ll = append(sp.ll, math.NaN())
			continue
		}
		sp.ll = append(sp.ll, benchkit.Primal(m, d, sv.s, p.C, p.P, p.Nu))
	}
	r.spread = sp
}

func base(path string) string {
	if i := strings.LastIndexByte(path, '/'); i >= 0 {
		return path[i+1:]
	}
	return path
}

// summary is min, median and max of xs (NaNs left out).
func summary(xs []float64) (lo, med, hi float64) {
	var v []float64
	for _, x := range xs {
		if !math.IsNaN(x) {
			v = append(v, x)
		}
	}
	if len(v) == 0 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	slices.Sort(v)
	return v[0], benchkit.Median(v), v[len(v)-1]
}

// writeSpread writes the table of -spread.
func writeSpread(w *strings.Builder, o *options, rows []*result) {
	fmt.Fprintf(w, "\n## The spread of the primal objective over paths (-spread %d)\n\n", o.Spread)
	fmt.Fprintf(w, "acfcd with seeds 1 to %d; liblinear 2.50 on the training rows in %d orders (the file's and %d shuffles). Relative to liblinear 2.50's median: min / median / max of each, and how many acfcd runs end at or below liblinear's median.\n\n", o.Spread, o.Spread, o.Spread-1)
	fmt.Fprintln(w, "| -s | set | C | -e | 2.50's median | acfcd min / med / max | 2.50 min / med / max | acfcd ≤ 2.50's median |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|")
	for _, r := range rows {
		if r.spread == nil {
			continue
		}
		_, ref, _ := summary(r.spread.ll)
		rel := func(xs []float64) string {
			lo, med, hi := summary(xs)
			return fmt.Sprintf("%+.1e / %+.1e / %+.1e", (lo-ref)/math.Abs(ref), (med-ref)/math.Abs(ref), (hi-ref)/math.Abs(ref))
		}
		below := 0
		for _, x := range r.spread.acfcd {
			if x <= ref {
				below++
			}
		}
		fmt.Fprintf(w, "| %d | %s | %g | %g | %.10g | %s | %s | %d of %d |\n", r.s, r.set, r.c, r.eps, ref, rel(r.spread.acfcd), rel(r.spread.ll), below, len(r.spread.acfcd))
	}
}
