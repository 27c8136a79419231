package main

import (
	"fmt"
	"github.com/acfcd/acfcd"
	"math"
	"slices"
	"strconv"

	"github.com/acfcd/acfcd/bench/internal/benchkit"
)

// Problem names, as -problems takes them.
const (
	probSVM   = "svm"
	probLR    = "lr"
	probLasso = "lasso"
	probWW    = "ww"
)

// Anchors: external tools run next to acfcd.
const (
	anchorLiblinear = "liblinear"
	anchorSklearn   = "sklearn"
)

// setKind says what a data set's labels allow.
type setKind int

const (
	kindUnknown    setKind = iota
	kindBinary             // two integer labels
	kindMulticlass         // more than two integer labels
	kindRegression         // real labels
)

func (k setKind) String() string {
	return [...]string{"unknown", "binary", "multi-class", "regression"}[k]
}

// setGrid is one data set of a problem's grid with its values of C (svm,
// lr, ww) or of λ/λ_max (lasso).
type setGrid struct {
	Name   string    // short name, shown in the tables and accepted by -sets
	File   string    // file in the data directory without .bz2/.svm ("news20bin" is derived from news20)
	Values []float64 // C, or λ/λ_max
}

// problemGrid is the default grid of one problem.
type problemGrid struct {
	Problem string
	Solvers []int    // liblinear -s (svm: 3 and 1; lr: 7), or sLasso / sWW
	Selects []string // acfcd coordinate selections, baseline first
	Anchor  string   // external tool, "" for none
	Sets    []setGrid
}

// decades returns 10^lo, …, 10^hi.
func decades(lo, hi int) []float64 {
	var v []float64
	for k := lo; k <= hi; k++ {
		v = append(v, math.Pow(10, float64(k)))
	}
	return v
}

// defaultGrid is the paper's evaluation grid on the data of ../shared/data
// (see bench/paper/README.md for how it was chosen and what it costs).
func defaultGrid() []problemGrid {
	cs := decades(-2, 3)
	text := []setGrid{
		{"news20", "news20bin", cs},
		{"rcv1_small", "rcv1_small", cs},
		{"url", "url_Instances_1000", cs},
		{"debian-desc", "debian-desc.binary", cs},
		{"a9a", "a9a", cs},
		{"w8a", "w8a", cs},
	}
	return []problemGrid{
		{Problem: probSVM, Solvers: []int{3, 1}, Selects: []string{"uniform", "shrink", "acf", "acf+shrink"},
			Anchor: anchorLiblinear, Sets: text},
		// The logistic dual has no variable at a bound: acfcd's "shrink"
		// runs as "uniform" and "acf+shrink" as "acf", so they are left out.
		{Problem: probLR, Solvers: []int{7}, Selects: []string{"uniform", "acf"},
			Anchor: anchorLiblinear, Sets: text},
		// λ/λ_max from a few non-zeros to thousands (debian-desc at 0.001);
		// cpusmall is unscaled (features up to 1e6), so its non-zeros only
		// appear at tiny fractions; arcene is p ≫ n and slow for cyclic CD.
		{Problem: probLasso, Solvers: []int{sLasso}, Selects: []string{"uniform", "cyclic", "acf"},
			Anchor: anchorSklearn, Sets: []setGrid{
				{"debian-desc", "debian-desc.regression", []float64{0.1, 0.01, 0.001}},
				{"cpusmall", "cpusmall", []float64{1e-2, 1e-4, 1e-6, 1e-8}},
				{"housing", "housing_scale", []float64{0.1, 0.01, 0.001}},
				{"arcene", "arcene_train", []float64{0.3, 0.1, 0.03}},
			}},
		// C around the best test accuracy (measured with acf at eps 0.1,
		// the four largest sets on 10–30 % subsamples, where the best C of
		// the full set is likely lower); two values on the three largest
		// sets to bound the time (at C = 1, eps 0.01 uniform needs over a
		// minute on debian-desc, acf 24 s).
		{Problem: probWW, Solvers: []int{sWW}, Selects: []string{"uniform", "acf"}, Sets: []setGrid{
			{"iris", "iris.scale", decades(0, 2)},
			{"soybean", "soybean.onehot", decades(-2, 0)},
			{"dna", "dna.scale", decades(-2, 0)},
			{"news20", "news20", decades(-4, -2)},
			{"usps", "usps_zip.train", decades(-3, -1)},
			{"mnist", "mnist", decades(-3, -2)},
			{"debian-desc", "debian-desc.multiclass", decades(-1, 0)},
			{"wordnet", "wordnet-glosses.multiclass", decades(-1, 0)},
		}},
	}
}

// quickSets are -quick's data sets: small, one or two per problem.
var quickSets = []string{"heart_scale", "a1a", "iris", "housing"}

// sLasso and sWW stand for acfcd's -s lasso and -s ww in the grid's
// numeric -s column.
const (
	sLasso = 100
	sWW    = 101
)

// solverProblem returns the acfcd problem of the grid's -s value s.
func solverProblem(s int) (acfcd.Problem, error) {
	switch s {
	case sLasso:
		return acfcd.Lasso, nil
	case sWW:
		return acfcd.WestonWatkins, nil
	}
	return acfcd.ParseProblem(strconv.Itoa(s))
}

// config is one cell of the grid: a problem, a data set, a value of C or
// λ/λ_max and a tolerance. Every tool of the problem runs on it.
type config struct {
	Problem string
	S       int // liblinear -s (1, 3, 7), sLasso or sWW
	Set     string
	File    string
	Value   float64 // C, or λ/λ_max for the LASSO
	Eps     float64
}

// Variant names the problem and loss: "svm-s3", "svm-s1", "lr", "lasso", "ww".
func (c config) Variant() string {
	if c.Problem == probSVM {
		return "svm-s" + strconv.Itoa(c.S)
	}
	return c.Problem
}

// valueKey is the name of Value: "C", or "lambda" (a fraction of λ_max).
func (c config) valueKey() string {
	if c.Problem == probLasso {
		return "lambda"
	}
	return "C"
}

// valueText is Value as the benchmark name shows it: "1", "0.001", or for
// the LASSO "0.01max" (λ = 0.01·λ_max).
func (c config) valueText() string {
	v := fmtNum(c.Value)
	if c.Problem == probLasso {
		return v + "max"
	}
	return v
}

// fmtNum is the shortest exact text of v.
func fmtNum(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// variantTitle describes a variant for headings.
func variantTitle(v string) string {
	switch v {
	case "svm-s3":
		return "Linear SVM, hinge loss (-s 3, dual CD)"
	case "svm-s1":
		return "Linear SVM, squared hinge loss (-s 1, dual CD)"
	case "lr":
		return "Logistic regression (-s 7, dual CD)"
	case "lasso":
		return "LASSO (primal CD over features)"
	case "ww":
		return "Weston–Watkins multi-class SVM (dual block CD over examples)"
	}
	return v
}

// gridOptions narrow or override the default grid (nil/empty: keep).
type gridOptions struct {
	Problems []string  // svm, svm1, svm3, lr, lasso, ww
	Sets     []string  // short names or file names
	Cs       []float64 // C for svm, lr and ww
	Fracs    []float64 // λ/λ_max for the LASSO
	Eps      []float64
	Selects  []string // only these acfcd selections (those that apply to each problem)
}

// problemOf maps a -problems entry to the problem and its solvers.
func problemOf(name string) (string, []int, error) {
	switch name {
	case probSVM:
		return probSVM, nil, nil
	case "svm1", "svm-s1":
		return probSVM, []int{1}, nil
	case "svm3", "svm-s3":
		return probSVM, []int{3}, nil
	case probLR, probLasso, probWW:
		return name, nil, nil
	}
	return "", nil, fmt.Errorf("unknown problem %q (want svm, svm1, svm3, lr, lasso or ww)", name)
}

// fits reports whether a set of kind k can be trained as problem p.
func fits(p string, k setKind) bool {
	switch p {
	case probSVM, probLR:
		return k == kindBinary
	case probWW:
		return k == kindMulticlass
	case probLasso:
		return k == kindRegression
	}
	return false
}

// defaultValues are the values of C or λ/λ_max of a set given by -sets
// that the problem's default grid does not list.
func defaultValues(p string) []float64 {
	switch p {
	case probLasso:
		return []float64{0.1, 0.01, 0.001}
	case probWW:
		return decades(-2, 0)
	}
	return decades(-2, 3)
}

// expand lists the configurations of grids narrowed by o. A -sets name that
// a problem's grid does not list joins that problem when kind (called
// with the file name) says its labels fit and no other grid lists it.
// The order is problem, set, solver, value, eps: all runs on one data set
// come together.
func expand(grids []problemGrid, o gridOptions, kind func(file string) setKind) ([]config, error) {
	want := map[string][]int{} // problem → solvers (nil: all)
	for _, name := range o.Problems {
		p, ss, err := problemOf(name)
		if err != nil {
			return nil, err
		}
		if prev, ok := want[p]; ok {
			if prev == nil || ss == nil {
				ss = nil
			} else {
				ss = append(prev, ss...)
			}
		}
		want[p] = ss
	}
	if len(o.Problems) == 0 {
		for _, g := range grids {
			want[g.Problem] = nil
		}
	}
	if len(o.Eps) == 0 {
		return nil, fmt.Errorf("no tolerance (-eps)")
	}
	listed := map[string]bool{} // names any grid lists
	for _, g := range grids {
		for _, s := range g.Sets {
			listed[s.Name], listed[s.File] = true, true
		}
	}
	used := map[string]bool{}
	var out []config
	for _, g := range grids {
		ss, ok := want[g.Problem]
		if !ok {
			continue
		}
		solvers := g.Solvers
		if ss != nil {
			solvers = slices.DeleteFunc(slices.Clone(g.Solvers), func(s int) bool { return !slices.Contains(ss, s) })
		}
		sets := g.Sets
		if len(o.Sets) > 0 {
			sets = nil
			for _, name := range o.Sets {
				if i := slices.IndexFunc(g.Sets, func(s setGrid) bool { return s.Name == name || s.File == name }); i >= 0 {
					sets = append(sets, g.Sets[i])
					used[name] = true
				} else if !listed[name] && kind != nil && fits(g.Problem, kind(name)) {
					sets = append(sets, setGrid{Name: name, File: name, Values: defaultValues(g.Problem)})
					used[name] = true
				}
			}
		}
		for _, s := range sets {
			vals := s.Values
			if g.Problem == probLasso && len(o.Fracs) > 0 {
				vals = o.Fracs
			} else if g.Problem != probLasso && len(o.Cs) > 0 {
				vals = o.Cs
			}
			for _, sv := range solvers {
				for _, v := range vals {
					for _, e := range o.Eps {
						out = append(out, config{Problem: g.Problem, S: sv, Set: s.Name, File: s.File, Value: v, Eps: e})
					}
				}
			}
		}
	}
	for _, name := range o.Sets {
		if !used[name] {
			return nil, fmt.Errorf("-sets %s: not in the grid of any chosen problem (-problems) and its labels fit none of them", name)
		}
	}
	return out, nil
}

// selectsFor returns the acfcd selections run for problem p, narrowed to
// only (when given).
func selectsFor(g problemGrid, only []string) []string {
	if len(only) == 0 {
		return g.Selects
	}
	var out []string
	for _, s := range g.Selects {
		if slices.Contains(only, s) {
			out = append(out, s)
		}
	}
	return out
}

// gridOf returns the grid of problem p.
func gridOf(grids []problemGrid, p string) problemGrid {
	for _, g := range grids {
		if g.Problem == p {
			return g
		}
	}
	return problemGrid{}
}

// parseFloats parses a comma-separated list of positive numbers.
func parseFloats(s string) ([]float64, error) {
	return benchkit.ParseList(s, func(p string) (float64, error) {
		v, err := strconv.ParseFloat(p, 64)
		if err != nil {
			return 0, err
		}
		if !(v > 0) || math.IsInf(v, 0) {
			return 0, fmt.Errorf("%s: must be a positive number", p)
		}
		return v, nil
	})
}
