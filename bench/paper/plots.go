package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// toolColors gives every tool one colour in every plot.
var toolColors = map[string]string{
	"uniform":     "#1f77b4",
	"shrink":      "#ff7f0e",
	"cyclic":      "#ff7f0e",
	"acf":         "#d62728",
	"acf+shrink":  "#2ca02c",
	toolLiblinear: "#555555",
	toolSklearn:   "#9467bd",
}

// plotFile is one written plot.
type plotFile struct {
	Variant, Set, Metric string
	Path                 string // relative to -out
}

// plotKey groups the configurations of one plot.
type plotKey struct{ variant, set string }

// markOf maps a status to a point mark.
func markOf(status string) string {
	switch status {
	case stTimeout:
		return markTimeout
	case stCap:
		return markCap
	}
	return markOK
}

// buildCharts makes, per variant and data set, a chart of training
// seconds against C (or λ/λ_max) and one of CD steps against it: one line
// per tool and eps (the first eps solid, the others dashed), log–log.
// External tools appear in the time chart only (their iterations are not
// CD steps).
func buildCharts(cfgs []config, m map[cellKey]*cell, toolsOf func(config) []string, skTol float64) map[plotKey][2]chart {
	out := map[plotKey][2]chart{}
	var keys []plotKey
	groups := map[plotKey][]config{}
	for _, c := range cfgs {
		k := plotKey{c.Variant(), c.Set}
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], c)
	}
	for _, k := range keys {
		cs := groups[k]
		var epss []float64
		for _, c := range cs {
			if !slices.Contains(epss, c.Eps) {
				epss = append(epss, c.Eps)
			}
		}
		xl := "C"
		if cs[0].Problem == probLasso {
			xl = "λ / λ_max"
		}
		tc := chart{Title: fmt.Sprintf("%s — %s: training time", k.set, k.variant), XLabel: xl, YLabel: "seconds (training only)"}
		ic := chart{Title: fmt.Sprintf("%s — %s: iterations", k.set, k.variant), XLabel: xl, YLabel: "CD steps"}
		tools := toolsOf(cs[0])
		for ei, e := range epss {
			for _, t := range tools {
				if t == toolSklearn && ei > 0 {
					continue // one scikit-learn line: it does not take eps
				}
				name := fmt.Sprintf("%s eps=%s", t, fmtNum(e))
				if t == toolSklearn {
					name = fmt.Sprintf("%s tol=%s", t, fmtNum(skTol))
				}
				ts := series{Name: name, Color: toolColors[t], Dashed: ei > 0}
				is := ts
				for _, c := range cs {
					if c.Eps != e {
						continue
					}
					x := lookup(m, c, t)
					if x == nil || x.Status == stError {
						continue
					}
					ts.Points = append(ts.Points, point{c.Value, x.Sec, markOf(x.Status)})
					if t != toolLiblinear && t != toolSklearn && x.First.Steps >= 0 {
						is.Points = append(is.Points, point{c.Value, float64(x.First.Steps), markOf(x.Status)})
					}
				}
				if ts.Color == "" {
					ts.Color, is.Color = "#000000", "#000000"
				}
				ts.Points = sortPoints(ts.Points)
				is.Points = sortPoints(is.Points)
				if len(ts.Points) > 0 {
					tc.Series = append(tc.Series, ts)
				}
				if len(is.Points) > 0 {
					ic.Series = append(ic.Series, is)
				}
			}
		}
		tc.Note = "hollow circle: epoch cap (not converged); triangle: stopped at the time limit (a lower bound)"
		switch cs[0].Problem {
		case probSVM, probLR:
			tc.Note = "liblinear: process time minus its parse+write baseline; " + tc.Note
		case probLasso:
			tc.Note = "scikit-learn: Lasso.fit time at its own tolerance; " + tc.Note
		}
		ic.Note = "acfcd coordinate-descent steps (Result.Iterations); a triangle is the count at the time limit"
		out[k] = [2]chart{tc, ic}
	}
	return out
}

func sortPoints(p []point) []point {
	slices.SortFunc(p, func(a, b point) int {
		switch {
		case a.X < b.X:
			return -1
		case a.X > b.X:
			return 1
		}
		return 0
	})
	return p
}

// writePlots writes the charts as SVG files under dir/plots and returns
// them in grid order.
func writePlots(dir string, cfgs []config, charts map[plotKey][2]chart) ([]plotFile, error) {
	if err := os.MkdirAll(filepath.Join(dir, "plots"), 0o755); err != nil {
		return nil, err
	}
	var files []plotFile
	seen := map[plotKey]bool{}
	for _, c := range cfgs {
		k := plotKey{c.Variant(), c.Set}
		if seen[k] {
			continue
		}
		seen[k] = true
		ch, ok := charts[k]
		if !ok {
			continue
		}
		for i, metric := range []string{"time", "iters"} {
			if len(ch[i].Series) == 0 {
				continue
			}
			rel := filepath.Join("plots", fmt.Sprintf("%s_%s_%s.svg", metric, k.variant, fileSafe(k.set)))
			if err := os.WriteFile(filepath.Join(dir, rel), ch[i].SVG(), 0o644); err != nil {
				return nil, err
			}
			files = append(files, plotFile{Variant: k.variant, Set: k.set, Metric: metric, Path: rel})
		}
	}
	return files, nil
}

// fileSafe keeps letters, digits, '.', '-' and '_'.
func fileSafe(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-', r == '_':
			return r
		}
		return '_'
	}, s)
}
