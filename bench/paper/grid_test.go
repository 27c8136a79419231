package main

import (
	"io"
	"slices"
	"testing"
	"time"
)

func TestExpandDefaultGrid(t *testing.T) {
	g := defaultGrid()
	cfgs, err := expand(g, gridOptions{Eps: []float64{0.01, 0.001}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, p := range g {
		for _, s := range p.Sets {
			want += len(p.Solvers) * len(s.Values) * 2
		}
	}
	if len(cfgs) != want {
		t.Fatalf("%d configurations, want %d", len(cfgs), want)
	}
	seen := map[config]bool{}
	for _, c := range cfgs {
		if seen[c] {
			t.Fatalf("duplicate configuration %+v", c)
		}
		seen[c] = true
		if c.Problem == probLasso && (c.Value <= 0 || c.Value > 1) {
			t.Errorf("λ/λ_max %g outside (0, 1]", c.Value)
		}
	}
	// Every data set's runs come together (so that its files are used
	// while they are in the page cache), and within a set the solvers,
	// then the values, then eps.
	var order []string
	for _, c := range cfgs {
		k := c.Problem + "/" + c.Set
		if len(order) == 0 || order[len(order)-1] != k {
			if slices.Contains(order, k) {
				t.Fatalf("set %s comes back after another set", k)
			}
			order = append(order, k)
		}
	}
	if cfgs[0].Problem != probSVM || cfgs[0].S != 3 || cfgs[0].Eps != 0.01 || cfgs[1].Eps != 0.001 {
		t.Errorf("first configurations %+v, %+v", cfgs[0], cfgs[1])
	}
}

func TestExpandNarrowing(t *testing.T) {
	g := defaultGrid()
	cfgs, err := expand(g, gridOptions{Problems: []string{"svm1", "lasso"}, Sets: []string{"a9a", "housing"},
		Cs: []float64{1, 10}, Fracs: []float64{0.5}, Eps: []float64{0.1}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []config{
		{Problem: probSVM, S: 1, Set: "a9a", File: "a9a", Value: 1, Eps: 0.1},
		{Problem: probSVM, S: 1, Set: "a9a", File: "a9a", Value: 10, Eps: 0.1},
		{Problem: probLasso, S: sLasso, Set: "housing", File: "housing_scale", Value: 0.5, Eps: 0.1},
	}
	if !slices.Equal(cfgs, want) {
		t.Fatalf("got %+v\nwant %+v", cfgs, want)
	}
	// svm1 and svm3 together are both losses; svm alone is too.
	for _, ps := range [][]string{{"svm1", "svm3"}, {"svm"}, {"svm3", "svm"}} {
		cfgs, err := expand(g, gridOptions{Problems: ps, Sets: []string{"a9a"}, Cs: []float64{1}, Eps: []float64{0.1}}, nil)
		if err != nil || len(cfgs) != 2 {
			t.Errorf("%v: %d configurations, %v", ps, len(cfgs), err)
		}
	}
	// A file name selects the set as well as its short name.
	cfgs, err = expand(g, gridOptions{Problems: []string{"ww"}, Sets: []string{"usps_zip.train"}, Eps: []float64{0.1}}, nil)
	if err != nil || len(cfgs) != 3 || cfgs[0].Set != "usps" {
		t.Errorf("file name: %+v, %v", cfgs, err)
	}
}

func TestExpandUnlistedSets(t *testing.T) {
	g := defaultGrid()
	kind := func(file string) setKind {
		switch file {
		case "heart_scale":
			return kindBinary
		case "glass":
			return kindMulticlass
		case "bodyfat":
			return kindRegression
		}
		return kindUnknown
	}
	cfgs, err := expand(g, gridOptions{Sets: []string{"heart_scale", "glass", "bodyfat"}, Eps: []float64{0.01}}, kind)
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, c := range cfgs {
		count[c.Variant()+"/"+c.Set]++
	}
	want := map[string]int{
		"svm-s3/heart_scale": 6, "svm-s1/heart_scale": 6, "lr/heart_scale": 6,
		"ww/glass": 3, "lasso/bodyfat": 3,
	}
	if len(count) != len(want) {
		t.Fatalf("got %v, want %v", count, want)
	}
	for k, n := range want {
		if count[k] != n {
			t.Errorf("%s: %d configurations, want %d", k, count[k], n)
		}
	}
	if _, err := expand(g, gridOptions{Sets: []string{"nosuchset"}, Eps: []float64{0.01}}, kind); err == nil {
		t.Error("no error for a set that fits no problem")
	}
	if _, err := expand(g, gridOptions{Problems: []string{"svm2"}, Eps: []float64{0.01}}, kind); err == nil {
		t.Error("no error for an unknown problem")
	}
}

func TestConfigNames(t *testing.T) {
	c := config{Problem: probSVM, S: 3, Set: "a9a", Value: 1, Eps: 0.01}
	if c.Variant() != "svm-s3" || c.valueKey() != "C" || c.valueText() != "1" {
		t.Errorf("%s %s %s", c.Variant(), c.valueKey(), c.valueText())
	}
	l := config{Problem: probLasso, S: sLasso, Set: "housing", Value: 0.001, Eps: 0.01}
	if l.Variant() != "lasso" || l.valueKey() != "lambda" || l.valueText() != "0.001max" {
		t.Errorf("%s %s %s", l.Variant(), l.valueKey(), l.valueText())
	}
}

func TestSelectsFor(t *testing.T) {
	g := gridOf(defaultGrid(), probLR)
	if s := selectsFor(g, nil); !slices.Equal(s, []string{"uniform", "acf"}) {
		t.Errorf("lr: %v", s)
	}
	if s := selectsFor(gridOf(defaultGrid(), probSVM), []string{"acf", "shrink", "cyclic"}); !slices.Equal(s, []string{"shrink", "acf"}) {
		t.Errorf("svm narrowed: %v", s)
	}
}

func TestQuickPreset(t *testing.T) {
	o, err := parseOptions([]string{"-quick"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(o.Sets, quickSets) || !slices.Equal(o.Cs, []float64{0.1, 1, 10}) || o.Timeout != 10*time.Second {
		t.Errorf("quick: sets %v, C %v, timeout %s", o.Sets, o.Cs, o.Timeout)
	}
	o, err = parseOptions([]string{"-quick", "-timeout", "3s", "-sets", "iris"}, io.Discard)
	if err != nil || o.Timeout != 3*time.Second || !slices.Equal(o.Sets, []string{"iris"}) {
		t.Errorf("explicit flags must win over -quick: %+v, %v", o, err)
	}
	for _, bad := range [][]string{{"-eps", "0"}, {"-lambda", "2"}, {"-select", "greedy"}, {"-problems", "x"}, {"-rounds", "0"}, {"extra"}} {
		if _, err := parseOptions(bad, io.Discard); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
}
