package main

import (
	"fmt"
	"strings"
)

// run is one deterministic acfcd train invocation, executed with the same
// arguments by both binaries.
type run struct {
	name   string
	data   string   // file in the data directory, or a derived set (see derived)
	args   []string // acfcd train arguments before DATA
	expect expect   // what the run is there to exercise, checked in its JSON report
}

// expect names what a run must show in its JSON report to exercise the code
// it is in the list for; the report warns when it does not.
type expect int

const (
	anything expect = iota
	finisher        // newton_steps > 0: primal Newton, Newton-CG or the interior-point method took over
	epochCap        // hit_epoch_cap: stopped by --max-epochs
)

// kind tells what a run prints and therefore what is compared.
type kind int

const (
	trainRun kind = iota // model and JSON report
	pathRun              // model, JSON report and the λ path table
	cvRun                // the cross-validation lines only
	textRun              // all of stdout (-C, λ by cross-validation) and the model
)

func (r run) kind() kind {
	cv, lasso, lambda := false, false, false
	for k, a := range r.args {
		switch a {
		case "-C":
			return textRun
		case "-v":
			cv = true
		case "--lambda":
			lambda = true
		case "-s":
			lasso = k+1 < len(r.args) && r.args[k+1] == "lasso"
		}
	}
	switch {
	case cv && lasso && !lambda:
		return textRun
	case cv:
		return cvRun
	}
	for _, a := range r.args {
		if a == "--lambda-path" || a == "-lambda-path" {
			return pathRun
		}
	}
	return trainRun
}

// dataName is the data set as shown in the report.
func (r run) dataName() string { return strings.TrimSuffix(r.data, ".bz2") }

var selections = []string{"uniform", "shrink", "acf", "acf+shrink"}

// runList is the fixed list of runs. Add a run with add(name, data file,
// expectation, arguments); names are unique and matched by -run.
func runList() []run {
	var rs []run
	add := func(name, data string, e expect, args string) {
		rs = append(rs, run{name: name, data: data, args: strings.Fields(args), expect: e})
	}

	// 1. Pure dual coordinate descent: every selection, no finisher.
	for _, set := range []struct {
		name, file string
		cs         []string
	}{
		{"heart", "heart_scale.bz2", []string{"1", "100"}},
		{"a1a", "a1a.bz2", []string{"1", "10"}},
		{"news20bin", "news20bin", []string{"1"}},
	} {
		for _, c := range set.cs {
			for _, s := range []string{"1", "3", "7"} {
				for _, sel := range selections {
					add(fmt.Sprintf("cd/%s/c%s/s%s/%s", set.name, c, s, sel), set.file, anything,
						fmt.Sprintf("-s %s -c %s --fallback none --select %s", s, c, sel))
				}
			}
		}
	}

	// 2. One-vs-rest on three classes, with and without the fallback.
	for _, s := range []string{"1", "3", "7"} {
		add("ovr/dna/s"+s, "dna.scale.bz2", anything, "-s "+s+" -c 1")
		add("ovr/dna/s"+s+"/nofallback", "dna.scale.bz2", anything, "-s "+s+" -c 1 --fallback none")
	}

	// 3. Weston–Watkins multi-class SVM.
	for _, set := range []struct{ name, file string }{
		{"dna", "dna.scale.bz2"}, {"iris", "iris.scale.bz2"}, {"soybean", "soybean.onehot.svm.bz2"},
	} {
		for _, sel := range []string{"acf", "uniform"} {
			for _, c := range []string{"0.1", "1"} {
				add(fmt.Sprintf("ww/%s/c%s/%s", set.name, c, sel), set.file, anything,
					fmt.Sprintf("-s ww -c %s --select %s", c, sel))
			}
		}
	}
	add("ww/dna/c1/acf/bias", "dna.scale.bz2", anything, "-s ww -c 1 --select acf -B 1")

	// 4. LASSO. λ_max is 10826 on housing_scale and 9.6e11 on cpusmall
	// (unscaled); these λ leave 9 of 13 and 10 of 12 weights non-zero after
	// 50 to 200 epochs.
	for _, sel := range []string{"cyclic", "uniform", "acf"} {
		add("lasso/housing/"+sel, "housing_scale.bz2", anything, "-s lasso --lambda 100 --select "+sel)
		add("lasso/cpusmall/"+sel, "cpusmall.svm.bz2", anything, "-s lasso --lambda 1e5 --select "+sel)
	}
	add("lasso/housing/intercept", "housing_scale.bz2", anything, "-s lasso --lambda 100 --intercept")
	add("lasso/cpusmall/gap", "cpusmall.svm.bz2", anything, "-s lasso --lambda 1e5 --gap 1e-3")
	add("lasso/housing/path", "housing_scale.bz2", anything, "-s lasso --lambda-path 10 --lambda-ratio 0.01")

	// 5. Default settings, which reach the finishers.
	add("finish/a9a/s1/c100", "a9a.bz2", finisher, "-s 1 -c 100")   // primal Newton
	add("finish/a9a/s7/c100", "a9a.bz2", finisher, "-s 7 -c 100")   // primal Newton
	add("finish/w8a/s3/c1000", "w8a.bz2", finisher, "-s 3 -c 1000") // interior-point method
	add("finish/breast/s3/c1000/e0.001", "breast-cancer_scale.bz2", finisher,
		"-s 3 -c 1000 -e 0.001") // second interior-point switch
	add("finish/news20bin/s7/c100", "news20bin", finisher, "-s 7 -c 100")                // Newton-CG (> 4095 features)
	add("finish/golub/s1/c100", "golub_leukemia_train.svm.bz2", finisher, "-s 1 -c 100") // Newton-CG for -s 1
	// news20bin -s 1 -c 100 converges by dual CD once the groups of
	// identical rows are solved together, without Newton-CG.
	add("finish/news20bin/s1/c100", "news20bin", anything, "-s 1 -c 100")
	add("finish/news20bin/s3/c1000", "news20bin", anything, "-s 3 -c 1000") // identical rows, opposite labels
	add("finish/mushrooms/s3/c10", "mushrooms.bz2", anything, "-s 3 -c 10") // converges before the switch
	add("finish/mushrooms/s3/c10/e0.001", "mushrooms.bz2", finisher, "-s 3 -c 10 -e 0.001")

	// 6. Options.
	add("opt/float32", "a9a.bz2", anything, "-s 1 -c 1 --float32")
	add("opt/bias", "a1a.bz2", anything, "-s 1 -B 1")
	for _, s := range []string{"1", "4", "6", "12"} { // liblinear's -B 0 layout
		add("opt/bias0/s"+s, "heart_scale.bz2", anything, "-s "+s+" -B 0")
	}
	add("opt/weight", "a1a.bz2", anything, "-s 3 -w1 5")
	add("opt/seed", "a1a.bz2", anything, "-s 1 --select acf --seed 2")
	for _, sel := range selections {
		add("opt/cap/"+sel, "a1a.bz2", epochCap, "-s 1 --fallback none -e 0.0001 --max-epochs 3 --select "+sel)
	}
	add("opt/cap/lasso", "cpusmall.svm.bz2", epochCap, "-s lasso --lambda 1e5 --select acf --max-epochs 2")
	add("opt/cv/heart", "heart_scale.bz2", anything, "-v 5")
	add("opt/cv/dna", "dna.scale.bz2", anything, "-v 5")

	// 7. The primal Newton solvers: dense Newton, Newton-CG (> 4095
	// weights), one-vs-rest, -R, the regression.
	for _, s := range []string{"0", "2"} {
		add("primal/a9a/s"+s, "a9a.bz2", anything, "-s "+s+" -c 1")
		add("primal/heart/s"+s+"/R", "heart_scale.bz2", anything, "-s "+s+" -c 10 -B 1 -R")
		add("primal/dna/s"+s, "dna.scale.bz2", anything, "-s "+s+" -c 1")
		add("primal/news20bin/s"+s, "news20bin", anything, "-s "+s+" -c 1")
	}
	add("primal/housing/s11", "housing_scale.bz2", anything, "-s 11 -c 1")
	add("primal/cpusmall/s11/p0", "cpusmall.svm.bz2", anything, "-s 11 -c 1 -p 0")

	// 8. Crammer–Singer: every selection, the push of identical rows.
	for _, set := range []struct{ name, file string }{{"dna", "dna.scale.bz2"}, {"iris", "iris.scale.bz2"}} {
		for _, sel := range selections {
			add(fmt.Sprintf("cs/%s/%s", set.name, sel), set.file, anything, "-s 4 -c 1 --select "+sel)
		}
	}
	add("cs/soybean/c0.1/bias", "soybean.onehot.svm.bz2", anything, "-s 4 -c 0.1 -B 1")
	add("cs/news20bin", "news20bin", anything, "-s 4 -c 1") // identical rows of different classes

	// 9. The L1-regularised classifiers: every selection, -R, one-vs-rest.
	for _, s := range []string{"5", "6"} {
		for _, sel := range append([]string{"cyclic"}, selections...) {
			add(fmt.Sprintf("l1/a1a/s%s/%s", s, sel), "a1a.bz2", anything, "-s "+s+" -c 1 --select "+sel)
		}
		add("l1/heart/s"+s+"/R", "heart_scale.bz2", anything, "-s "+s+" -c 10 -B 1 -R")
		add("l1/dna/s"+s, "dna.scale.bz2", anything, "-s "+s+" -c 1")
		add("l1/news20bin/s"+s, "news20bin", anything, "-s "+s+" -c 10")
	}

	// 10. The SVR duals: every selection, and the finishers at large C
	// (primal Newton for -s 12, the interior-point method for -s 13).
	for _, s := range []string{"12", "13"} {
		for _, sel := range selections {
			add(fmt.Sprintf("svr/housing/s%s/%s", s, sel), "housing_scale.bz2", anything, "-s "+s+" -c 1 --select "+sel)
		}
		add("svr/housing/s"+s+"/bias", "housing_scale.bz2", anything, "-s "+s+" -c 10 -B 1 -p 0.5")
	}
	add("finish/cpusmall/s12/c100", "cpusmall.svm.bz2", finisher, "-s 12 -c 100")
	add("finish/cpusmall/s13/c10", "cpusmall.svm.bz2", finisher, "-s 13 -c 10")

	// 11. The one-class SVM.
	for _, sel := range selections {
		add("oneclass/a1a/"+sel, "a1a.bz2", anything, "-s 21 --select "+sel)
	}
	add("oneclass/heart/nu0.1", "heart_scale.bz2", anything, "-s 21 -n 0.1")

	// 12. The LASSO's other options and its orchestration: the elastic
	// net, standardize, glmnet's rule, more features than examples (the
	// working sets, the continuation, the support Newton step), the CV of
	// one λ and λ by cross-validation.
	add("lasso/housing/alpha", "housing_scale.bz2", anything, "-s lasso --lambda 10 --alpha 0.5 --intercept")
	add("lasso/housing/standardize", "housing_scale.bz2", anything, "-s lasso --lambda 10 --standardize --intercept")
	add("lasso/cpusmall/thresh", "cpusmall.svm.bz2", anything, "-s lasso --lambda 1e5 --thresh 1e-7 --intercept")
	add("lasso/cpusmall/eps", "cpusmall.svm.bz2", anything, "-s lasso --lambda 1e5 -e 1")
	add("lasso/golub/small", "golub_leukemia_train.svm.bz2", anything, "-s lasso --lambda 0.01 --intercept")
	add("lasso/golub/thresh", "golub_leukemia_train.svm.bz2", anything, "-s lasso --lambda 0.01 --thresh 1e-7")
	add("lasso/golub/path", "golub_leukemia_train.svm.bz2", anything, "-s lasso --lambda-path 30 --lambda-ratio 1e-3")
	add("lasso/arcene/path", "arcene_train.svm.bz2", anything, "-s lasso --lambda-path 20 --intercept --standardize")
	add("lasso/housing/path/alpha", "housing_scale.bz2", anything, "-s lasso --lambda-path 10 --alpha 0.3 --intercept")
	add("lasso/housing/cv1", "housing_scale.bz2", anything, "-s lasso --lambda 100 -v 5")
	add("lasso/housing/cv", "housing_scale.bz2", anything, "-s lasso -v 5 --lambda-path 20 --intercept")
	add("lasso/housing/cv/min", "housing_scale.bz2", anything, "-s lasso -v 4 --lambda-path 10 --lambda-choice min --alpha 0.5")

	// 13. Cross-validation of every family, and liblinear's -C.
	for _, s := range []string{"0", "4", "5", "12", "21", "ww"} {
		file := "heart_scale.bz2"
		if s == "4" || s == "ww" {
			file = "iris.scale.bz2"
		}
		if s == "12" {
			file = "housing_scale.bz2"
		}
		add("cv/s"+s, file, anything, "-s "+s+" -v 5")
	}
	for _, s := range []string{"0", "1", "2", "3", "5", "6", "7"} {
		add("findc/heart/s"+s, "heart_scale.bz2", anything, "-C -s "+s)
	}
	add("findc/heart/s1/cold", "heart_scale.bz2", anything, "-C -s 1 --cold")
	add("findc/dna/s7", "dna.scale.bz2", anything, "-C -s 7 -v 3")
	add("findc/housing/s11", "housing_scale.bz2", anything, "-C -s 11 -v 3")
	add("findc/housing/s12", "housing_scale.bz2", anything, "-C -s 12 -v 3 -p 2")
	return rs
}
