// Command solvers checks every liblinear solver of acfcd against
// liblinear 2.50 and 2.3.0 on the same files:
//
//	go run ./bench/solvers -train250 PATH/train -predict250 PATH/predict [flags]
//
// For each solver (-s 0 to 7, 11, 12, 13, 21), data set and C it splits the
// set 80/20 (the split of bench/liblinear -check), trains acfcd (in
// process, through the public API), liblinear 2.50 and liblinear 2.3.0
// (which has no -s 21) at liblinear's default -e of the solver, and
// reports
//
//   - the primal objective of every model, computed by this command from
//     the model file's weights and the training data alone, and acfcd's
//     excess over the best of the liblinears (≤ 0: at least as good);
//   - held-out predictions: how often acfcd and liblinear 2.50 agree, and
//     the accuracy (classifiers, one-class: the share predicted +1) or the
//     mean squared error (regression) of each;
//   - interoperability: liblinear 2.50's predict on acfcd's model file
//     gives acfcd's own predictions, and acfcd's Predict on liblinear
//     2.50's model file gives liblinear's;
//   - whole-process seconds (median of -rounds; acfcd's: Load + Train +
//     Save) and the ratio liblinear ÷ acfcd.
//
// With -spread N it also trains acfcd with seeds 1 to N and liblinear 2.50
// on N orders of the training rows, and reports the spread of the primal
// objectives: at liblinear's default -e the coordinate descent solvers
// stop at points whose objective depends on the path taken, and one run
// of each tool is one draw (spread.go).
//
// The sets come in three lists: binary classification (the sets of
// bench/liblinear -check, for every classifier and the one-class SVM),
// multi-class (one-vs-rest and -s 4) and regression (-s 11, 12, 13).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/acfcd/acfcd"
	"github.com/acfcd/acfcd/bench/internal/benchkit"
)

// solver is what the command knows of one -s value.
type solver struct {
	s       int
	eps     float64 // liblinear 2.50's default -e
	kind    string  // "binary" (and multi-class), "multi" (multi-class first), "regression", "oneclass"
	since23 bool    // liblinear 2.3.0 has it
}

// dual reports whether liblinear solves the solver's dual and prints its
// objective ("Objective value", minimised).
func (sv *solver) dual() bool {
	switch sv.s {
	case 1, 3, 4, 7, 12, 13, 21:
		return true
	}
	return false
}

var solvers = []solver{
	{0, 0.01, "binary", true}, {1, 0.1, "binary", true}, {2, 0.01, "binary", true},
	{3, 0.1, "binary", true}, {4, 0.1, "multi", true}, {5, 0.01, "binary", true},
	{6, 0.01, "binary", true}, {7, 0.1, "binary", true}, {11, 0.0001, "regression", true},
	{12, 0.1, "regression", true}, {13, 0.1, "regression", true}, {21, 0.01, "oneclass", false},
}

type options struct {
	DataDir, WorkDir                         string
	Solvers                                  []int
	Binary, Multi, Regression                []string
	Cs                                       []float64
	P, Nu                                    float64
	Train250, Predict250, Train23, Predict23 string
	Rounds                                   int
	Timeout                                  time.Duration
	MD, CSV                                  string
	Quiet                                    bool
	Spread                                   int
}

func parse(args []string) (*options, error) {
	o := &options{}
	fs := flag.NewFlagSet("solvers", flag.ContinueOnError)
	benchkit.SetUsage(fs, "go run ./bench/solvers", "Checks every liblinear solver of acfcd against liblinear 2.50 and 2.3.0: primal objectives, held-out predictions, model files both ways, times.")
	var ss, binary, multi, regression, cs string
	fs.StringVar(&o.DataDir, "data", benchkit.DataDir(), "data directory (../shared/data or $ACFCD_DATA)")
	fs.StringVar(&o.WorkDir, "workdir", "", "where decompressed and split files go (default: a temporary directory)")
	fs.StringVar(&ss, "s", "0,1,2,3,4,5,6,7,11,12,13,21", "solvers")
	fs.StringVar(&binary, "binary", "heart_scale,breast-cancer_scale,diabetes_scale,a1a,a9a,w8a,mushrooms,rcv1_small,news20bin", "binary sets (classifiers and -s 21)")
	fs.StringVar(&multi, "multi", "iris.scale,dna.scale,soybean.onehot.svm", "multi-class sets (one-vs-rest and -s 4)")
	fs.StringVar(&regression, "regression", "housing_scale,cpusmall.svm", "regression sets (-s 11, 12, 13)")
	fs.StringVar(&cs, "c", "1", "values of C")
	fs.Float64Var(&o.P, "p", 0.1, "the SVRs' epsilon")
	fs.Float64Var(&o.Nu, "n", 0.5, "the one-class SVM's nu")
	fs.StringVar(&o.Train250, "train250", "", "liblinear 2.50's train (required)")
	fs.StringVar(&o.Predict250, "predict250", "", "liblinear 2.50's predict (default: predict beside -train250)")
	fs.StringVar(&o.Train23, "train23", "liblinear-train", "liblinear 2.3.0's train (\"\" to leave it out)")
	fs.StringVar(&o.Predict23, "predict23", "liblinear-predict", "liblinear 2.3.0's predict")
	fs.IntVar(&o.Rounds, "rounds", 3, "runs of every tool; times are medians")
	fs.DurationVar(&o.Timeout, "timeout", 3*time.Minute, "limit of one training run")
	fs.StringVar(&o.MD, "md", "", "also write the Markdown report to this file")
	fs.StringVar(&o.CSV, "csv", "", "write one CSV line per run to this file")
	fs.BoolVar(&o.Quiet, "q", false, "no progress on stderr")
	fs.IntVar(&o.Spread, "spread", 0, "also train acfcd with seeds 1 to N and liblinear 2.50 on N orders of the rows, and report the spread of the primal objectives")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	var err error
	if o.Solvers, err = benchkit.ParseList(ss, strconv.Atoi); err != nil {
		return nil, fmt.Errorf("-s: %v", err)
	}
	for _, s := range o.Solvers {
		if info(s) == nil {
			return nil, fmt.Errorf("-s %d: not a liblinear solver", s)
		}
	}
	if o.Cs, err = benchkit.ParseList(cs, func(s string) (float64, error) { return strconv.ParseFloat(s, 64) }); err != nil {
		return nil, fmt.Errorf("-c: %v", err)
	}
	o.Binary, o.Multi, o.Regression = benchkit.SplitList(binary), benchkit.SplitList(multi), benchkit.SplitList(regression)
	if o.Train250 == "" {
		return nil, errors.New("-train250 is required (a liblinear 2.50 build)")
	}
	if o.Predict250 == "" {
		o.Predict250 = filepath.Join(filepath.Dir(o.Train250), "predict")
	}
	if o.Rounds < 1 {
		return nil, errors.New("-rounds must be at least 1")
	}
	return o, nil
}

func info[T int | string](s T) *solver {
	for i := range solvers {
		if fmt.Sprint(solvers[i].s) == fmt.Sprint(s) {
			return &solvers[i]
		}
	}
	return nil
}

// setsOf returns the sets a solver runs on.
func (o *options) setsOf(sv *solver) []string {
	switch sv.kind {
	case "multi":
		return append(slices.Clone(o.Multi), o.Binary...)
	case "regression":
		return o.Regression
	case "oneclass":
		return o.Binary
	}
	return append(slices.Clone(o.Binary), o.Multi...)
}

func main() {
	benchkit.Main("solvers", parse, run)
}

func run(o *options) error {
	ws, err := benchkit.NewWorkspace(o.DataDir, o.WorkDir, o.Quiet)
	if err != nil {
		return err
	}
	defer ws.Close()
	var rows []*result
	for _, s := range o.Solvers {
		sv := info(s)
		for _, set := range o.setsOf(sv) {
			ds, err := ws.Prepare(set)
			if err != nil {
				return err
			}
			train, test, err := ws.Split(ds, 1, 20)
			if err != nil {
				return err
			}
			for _, c := range o.Cs {
				if !o.Quiet {
					fmt.Fprintf(os.Stderr, "-s %d %s C=%g\n", s, set, c)
				}
				rows = append(rows, o.runOne(ws, sv, set, train, test, c))
			}
		}
	}
	var md strings.Builder
	writeMD(&md, o, rows)
	fmt.Print(md.String())
	if o.MD != "" {
		if err := os.WriteFile(o.MD, []byte(md.String()), 0o644); err != nil {
			return err
		}
	}
	if o.CSV != "" {
		if err := writeCSV(o.CSV, rows); err != nil {
			return err
		}
	}
	return nil
}

// tool is one trainer's outcome on one configuration.
type tool struct {
	name    string
	model   *acfcd.Model
	file    string
	seconds []float64
	primal  float64
	pred    []float64 // predictions on the held-out split (acfcd's Predict of this model)
	status  string    // "ok", or what went wrong
	dual    float64   // the dual objective printed (liblinear) or Result.Objective (acfcd); NaN if none
}

// result is one configuration's row.
type result struct {
	s       int
	set     string
	c       float64
	eps     float64
	tools   []*tool // acfcd, 2.50, 2.3.0 (nil when left out)
	resPrim float64 // acfcd's Result.Primal
	conv    bool
	agree   float64 // % of held-out rows where acfcd's and 2.50's predictions agree (regression: max |Δ|/scale)
	metric  [3]float64
	interop string
	spread  *spread // -spread
}

func (o *options) runOne(ws *benchkit.Workspace, sv *solver, set, train, test string, c float64) *result {
	r := &result{s: sv.s, set: set, c: c, eps: sv.eps, resPrim: math.NaN(), agree: math.NaN()}
	base := ws.Path(fmt.Sprintf("%s.s%d.c%s", set, sv.s, benchkit.FmtArg(c)))
	d, err := acfcd.Load(train, acfcd.Options{})
	if err != nil {
		r.tools = []*tool{{name: "acfcd", status: "error: " + err.Error()}}
		return r
	}
	td, err := acfcd.Load(test, acfcd.Options{})
	if err != nil {
		r.tools = []*tool{{name: "acfcd", status: "error: " + err.Error()}}
		return r
	}
	nan := math.NaN()
	a := &tool{name: "acfcd", file: base + ".acfcd.model", status: "ok", dual: nan}
	ll := &tool{name: "2.50", file: base + ".250.model", status: "ok", dual: nan}
	var old *tool
	if sv.since23 && o.Train23 != "" {
		old = &tool{name: "2.3.0", file: base + ".230.model", status: "ok", dual: nan}
	}
	args := []string{"-s", strconv.Itoa(sv.s), "-c", benchkit.FmtArg(c), "-e", benchkit.FmtArg(sv.eps)}
	switch sv.kind {
	case "regression":
		args = append(args, "-p", benchkit.FmtArg(o.P))
	case "oneclass":
		args = append(args, "-n", benchkit.FmtArg(o.Nu))
	}
	prob, _ := acfcd.ParseProblem(strconv.Itoa(sv.s))
	params := acfcd.Params{Problem: prob, C: c, Eps: sv.eps, P: o.P, Nu: o.Nu}
	if o.P == 0 {
		params.P = -1
	}
	for round := 0; round < o.Rounds; round++ {
		if a.status == "ok" {
			o.runACFCD(a, r, train, params, round == 0)
		}
		for _, t := range []*tool{ll, old} {
			if t == nil || t.status != "ok" {
				continue
			}
			bin := o.Train250
			if t == old {
				bin = o.Train23
			}
			ctx, cancel := context.WithTimeout(context.Background(), o.Timeout)
			pr, err := benchkit.RunProcess(ctx, bin, append(slices.Clone(args), train, t.file)...)
			cancel()
			switch {
			case err != nil:
				t.status = "error: " + firstLine(err.Error())
			case pr.TimedOut:
				t.status = fmt.Sprintf("timeout > %v", o.Timeout)
			default:
				t.seconds = append(t.seconds, pr.Seconds)
				if out, err := benchkit.ParseLiblinearOutput(pr.Output); err == nil && sv.dual() && out.NObj > 0 && out.Switched == "" {
					t.dual = out.Objective
				}
			}
		}
	}
	r.tools = []*tool{a, ll, old}
	for _, t := range r.tools {
		if t == nil || t.status != "ok" {
			continue
		}
		if t.model == nil {
			if t.model, err = acfcd.LoadModel(t.file); err != nil {
				t.status = "error: " + err.Error()
				continue
			}
		}
		t.primal = benchkit.Primal(t.model, d, sv.s, c, params.P, params.Nu)
		t.pred = predictAll(t.model, td)
	}
	r.metric = [3]float64{math.NaN(), math.NaN(), math.NaN()}
	for k, t := range r.tools {
		if t != nil && t.status == "ok" {
			r.metric[k] = metric(sv, t.pred, td.Label)
		}
	}
	if a.status == "ok" && ll.status == "ok" {
		r.agree = agreement(sv, a.pred, ll.pred)
		r.interop = o.interop(sv, a, ll, test)
	}
	if o.Spread > 0 {
		o.runSpread(ws, sv, r, train, d, args, params)
	}
	return r
}

func (o *options) runACFCD(a *tool, r *result, train string, p acfcd.Params, first bool) {
	ctx, cancel := context.WithTimeout(context.Background(), o.Timeout)
	defer cancel()
	start := time.Now()
	d, err := acfcd.Load(train, acfcd.Options{})
	if err != nil {
		a.status = "error: " + err.Error()
		return
	}
	m, res, err := acfcd.Train(ctx, d, p)
	if err != nil {
		a.status = "error: " + firstLine(err.Error())
		return
	}
	if err := m.Save(a.file); err != nil {
		a.status = "error: " + err.Error()
		return
	}
	a.seconds = append(a.seconds, time.Since(start).Seconds())
	if first {
		a.model, r.resPrim, r.conv = m, res.Primal, res.Converged
		if sv := info(p.Problem.Flag()); sv != nil && sv.dual() {
			a.dual = res.Objective
		}
	}
}

// interop predicts the held-out split with liblinear 2.50's predict on
// acfcd's model file and with acfcd on liblinear's, and compares each with
// the other tool's own predictions of that model.
func (o *options) interop(sv *solver, a, ll *tool, test string) string {
	ctx, cancel := context.WithTimeout(context.Background(), o.Timeout)
	defer cancel()
	var notes []string
	theirs, err := benchkit.PredictLabels(ctx, o.Predict250, test, a.file, a.file+".pred250")
	switch {
	case err != nil:
		notes = append(notes, "2.50 predict on acfcd's model: "+firstLine(err.Error()))
	default:
		notes = append(notes, "2.50 reads acfcd's: "+compare(sv, theirs, a.pred))
	}
	ownOfTheirs, err := benchkit.PredictLabels(ctx, o.Predict250, test, ll.file, ll.file+".pred250")
	if err != nil {
		notes = append(notes, "2.50 predict on its own model: "+firstLine(err.Error()))
	} else {
		notes = append(notes, "acfcd reads 2.50's: "+compare(sv, ll.pred, ownOfTheirs))
	}
	return strings.Join(notes, "; ")
}

// compare says whether two prediction lists are the same: labels exactly,
// regression values to 1e-12 relative (the dot products sum in different
// orders).
func compare(sv *solver, x, y []float64) string {
	if len(x) != len(y) {
		return fmt.Sprintf("%d predictions against %d", len(x), len(y))
	}
	bad := 0
	for i := range x {
		if sv.kind == "regression" {
			if math.Abs(x[i]-y[i]) > 1e-12*max(1, math.Abs(y[i])) {
				bad++
			}
		} else if x[i] != y[i] {
			bad++
		}
	}
	if bad == 0 {
		return "same"
	}
	return fmt.Sprintf("%d of %d differ", bad, len(x))
}

func predictAll(m *acfcd.Model, d *acfcd.Dataset) []float64 {
	out := make([]float64, d.Rows)
	for i := range out {
		idx, val := d.Row(i)
		out[i] = m.Predict(idx, val)
	}
	return out
}

// metric is the held-out accuracy in % (classifiers), the share predicted
// +1 in % (one-class), or the mean squared error (regression).
func metric(sv *solver, pred, y []float64) float64 {
	var s benchkit.Sum
	for i, p := range pred {
		switch sv.kind {
		case "regression":
			s.Add((p - y[i]) * (p - y[i]))
		case "oneclass":
			if p > 0 {
				s.Add(100)
			}
		default:
			if p == y[i] {
				s.Add(100)
			}
		}
	}
	return s.Value() / float64(len(pred))
}

// agreement is the % of held-out rows with the same prediction, or for
// regression the largest |Δ| over the spread of the predictions, in %.
func agreement(sv *solver, x, y []float64) float64 {
	if sv.kind == "regression" {
		lo, hi, big := math.Inf(1), math.Inf(-1), 0.0
		for i := range x {
			lo, hi = min(lo, y[i]), max(hi, y[i])
			big = max(big, math.Abs(x[i]-y[i]))
		}
		return 100 * big / max(hi-lo, 1e-300)
	}
	same := 0
	for i := range x {
		if x[i] == y[i] {
			same++
		}
	}
	return 100 * float64(same) / float64(max(1, len(x)))
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
