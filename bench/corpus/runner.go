package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/acfcd/acfcd"
	"github.com/acfcd/acfcd/bench/internal/benchkit"
)

// problem is one column of the corpus: an acfcd solver at its defaults and
// the anchor runs that solve the same optimisation problem.
type problem struct {
	name  string // acfcd's -s
	kinds []kind
	// loss is benchkit.Primal's solver code of the problem (the dual and
	// primal liblinear solvers of one problem share it).
	loss int
	// anchors are liblinear -s values run by liblinear 2.50 and, at -m 1,
	// by multi-core liblinear; shark: Shark's Weston–Watkins.
	anchors []int
	shark   bool
}

var classes = []kind{binary, multi}

var problems = []problem{
	{name: "1", kinds: classes, loss: 1, anchors: []int{1, 2}},
	{name: "2", kinds: classes, loss: 1, anchors: []int{1, 2}},
	{name: "3", kinds: classes, loss: 3, anchors: []int{3}},
	{name: "7", kinds: classes, loss: 7, anchors: []int{7, 0}},
	{name: "0", kinds: classes, loss: 7, anchors: []int{7, 0}},
	{name: "5", kinds: classes, loss: 5, anchors: []int{5}},
	{name: "6", kinds: classes, loss: 6, anchors: []int{6}},
	{name: "4", kinds: []kind{multi}, loss: 4, anchors: []int{4}},
	{name: "ww", kinds: []kind{multi}, loss: 101, shark: true},
	{name: "11", kinds: []kind{regression}, loss: 11, anchors: []int{11, 12}},
	{name: "12", kinds: []kind{regression}, loss: 11, anchors: []int{11, 12}},
	{name: "13", kinds: []kind{regression}, loss: 13, anchors: []int{13}},
	{name: "lasso", kinds: []kind{regression}},
}

func problemNames() []string {
	var n []string
	for _, p := range problems {
		n = append(n, p.name)
	}
	return n
}

func problemByName(name string) *problem {
	for i := range problems {
		if problems[i].name == name {
			return &problems[i]
		}
	}
	return nil
}

func kindName(k kind) string {
	return [...]string{"binary", "multi", "regression"}[k]
}

// toolRun is one tool's run of a cell.
type toolRun struct {
	Tool     string // acfcd, liblinear, multicore, shark, glmnet
	S        string // its solver
	Seconds  float64
	TimedOut bool
	Primal   float64 // from the model file (LASSO: the excess is used instead)
	Excess   float64 // LASSO: (F − F*)/F*, the largest over the cell's λ
	Err      string
}

func (t *toolRun) label() string {
	if t.S == "" {
		return t.Tool
	}
	return t.Tool + " -s " + t.S
}

// cell is one shape × problem × C (or the LASSO's λ cell and level).
type cell struct {
	Shape, Half, Kind, Problem, Param string
	ACFCD                             toolRun
	Anchors                           []toolRun
	Old                               *toolRun // -old's acfcd, when given
}

// best is the fastest anchor run that finished; nil if none did.
func (c *cell) best() *toolRun {
	var b *toolRun
	for i := range c.Anchors {
		a := &c.Anchors[i]
		if a.Err != "" || a.TimedOut {
			continue
		}
		if b == nil || a.Seconds < b.Seconds {
			b = a
		}
	}
	return b
}

type runner struct {
	o   *options
	ws  *benchkit.Workspace
	tmp string // this run's binaries, models and bench/glmnet output
}

func (r *runner) logf(format string, args ...any) {
	if !r.o.Quiet {
		fmt.Fprintf(os.Stderr, "corpus: "+format+"\n", args...)
	}
}

// file returns the plain-text file of shape s, writing it first if needed.
func (r *runner) file(ctx context.Context, s shape) (string, error) {
	if s.real != "" {
		return r.ws.Plain(s.real, !r.o.Quiet)
	}
	path := filepath.Join(r.o.Dir, s.name+".svm")
	if st, err := os.Stat(path); err == nil && st.Mode().IsRegular() {
		return path, nil
	}
	r.logf("writing %s (%s)", path, s.about)
	if s.preset != nil {
		args := append([]string{"gen"}, s.preset...)
		tmp := filepath.Join(r.tmp, s.name+".svm")
		if _, err := benchkit.RunProcess(ctx, r.o.ACFCD, append(args, "--out", tmp)...); err != nil {
			return "", err
		}
		return path, benchkit.WriteAtomic(path, func(w io.Writer) error {
			f, err := os.Open(tmp)
			if err != nil {
				return err
			}
			defer f.Close()
			_, err = io.Copy(w, f)
			return err
		})
	}
	return path, benchkit.WriteAtomic(path, s.gen)
}

// shapeCells runs every chosen problem and C on one shape.
func (r *runner) shapeCells(ctx context.Context, s shape, path string) ([]*cell, error) {
	var ps []*problem
	for _, name := range r.o.Problems {
		p := problemByName(name)
		if slices.Contains(p.kinds, s.kind) {
			ps = append(ps, p)
		}
	}
	if len(ps) == 0 {
		return nil, nil
	}
	var cells []*cell
	var d *acfcd.Dataset
	for _, p := range ps {
		if p.name == "lasso" {
			cs, err := r.lasso(ctx, s, path)
			if err != nil {
				return nil, err
			}
			cells = append(cells, cs...)
			continue
		}
		if d == nil {
			var err error
			if d, err = acfcd.Load(path, acfcd.Options{}); err != nil {
				return nil, err
			}
		}
		for _, C := range r.o.Cs {
			c := &cell{Shape: s.name, Half: s.half, Kind: kindName(s.kind), Problem: p.name, Param: "C=" + benchkit.FmtArg(C)}
			c.ACFCD = r.train(ctx, d, path, p, C, "acfcd", p.name)
			if r.o.oldACFCD != "" {
				old := r.train(ctx, d, path, p, C, "acfcd-old", p.name)
				c.Old = &old
			}
			for _, a := range p.anchors {
				if r.o.LL250 != "" {
					c.Anchors = append(c.Anchors, r.train(ctx, d, path, p, C, "liblinear", fmt.Sprint(a)))
				}
				if r.o.LLMC != "" {
					c.Anchors = append(c.Anchors, r.train(ctx, d, path, p, C, "multicore", fmt.Sprint(a)))
				}
			}
			if p.shark && r.o.Shark != "" {
				c.Anchors = append(c.Anchors, r.train(ctx, d, path, p, C, "shark", "ww"))
			}
			r.logf("%s %s %s: %s", s.name, "-s "+p.name, c.Param, c.summary(r.o.AccTol))
			cells = append(cells, c)
		}
	}
	return cells, nil
}

// train runs one tool as a whole process -rounds times and evaluates the
// model file it wrote.
func (r *runner) train(ctx context.Context, d *acfcd.Dataset, path string, p *problem, C float64, tool, s string) toolRun {
	t := toolRun{Tool: tool, S: s, Primal: math.NaN(), Excess: math.NaN()}
	model := filepath.Join(r.tmp, "model."+tool)
	var bin string
	var args, env []string
	switch tool {
	case "acfcd", "acfcd-old":
		bin, args = r.o.ACFCD, []string{"train", "-q", "-s", s, "-c", benchkit.FmtArg(C), path, model}
		if tool == "acfcd-old" {
			bin = r.o.oldACFCD
		}
	case "liblinear":
		bin, args = r.o.LL250, []string{"-q", "-s", s, "-c", benchkit.FmtArg(C), path, model}
	case "multicore":
		bin, args = r.o.LLMC, []string{"-q", "-m", "1", "-s", s, "-c", benchkit.FmtArg(C), path, model}
		env = []string{"OMP_WAIT_POLICY=PASSIVE", "OMP_NUM_THREADS=1"}
	case "shark":
		bin, args = r.o.Shark, []string{"-c", benchkit.FmtArg(C), path, model}
	}
	var secs []float64
	for round := 0; round < r.o.Rounds; round++ {
		os.Remove(model)
		rctx, cancel := context.WithTimeout(ctx, r.o.Timeout)
		res, err := benchkit.RunProcessEnv(rctx, env, bin, args...)
		cancel()
		if err != nil {
			t.Err = firstLine(err.Error())
			return t
		}
		if res.TimedOut {
			t.TimedOut, t.Seconds = true, r.o.Timeout.Seconds()
			return t
		}
		secs = append(secs, res.Seconds)
	}
	t.Seconds = benchkit.Median(secs)
	m, err := acfcd.LoadModel(model)
	if err != nil {
		t.Err = firstLine(err.Error())
		return t
	}
	t.Primal = benchkit.Primal(m, d, p.loss, C, 0.1, 0.5)
	return t
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// ratio is the best anchor's seconds ÷ acfcd's; lower is a lower bound
// (every anchor timed out).
func (c *cell) ratio() (ratio float64, lower bool) {
	if b := c.best(); b != nil {
		return b.Seconds / c.ACFCD.Seconds, false
	}
	if c.ACFCD.Err != "" || c.ACFCD.TimedOut {
		return math.NaN(), false
	}
	for _, a := range c.Anchors {
		if a.TimedOut {
			return a.Seconds / c.ACFCD.Seconds, true
		}
	}
	return math.NaN(), false
}

// oldRatio is ratio for the -old acfcd.
func (c *cell) oldRatio() (float64, bool) {
	if c.Old == nil {
		return math.NaN(), false
	}
	o := *c
	o.ACFCD, o.Old = *c.Old, nil
	return o.ratio()
}

// excess is acfcd's relative primal excess over the best anchor's (LASSO:
// acfcd's excess minus glmnet's).
func (c *cell) excess() float64 {
	b := c.best()
	if b == nil {
		return math.NaN()
	}
	if c.Problem == "lasso" {
		return c.ACFCD.Excess - max(b.Excess, lassoFloor)
	}
	return (c.ACFCD.Primal - b.Primal) / math.Abs(b.Primal)
}

// lassoFloor: a LASSO excess below it counts as reaching the optimum.
const lassoFloor = 1e-6

// accurate reports whether acfcd is at least as accurate as its anchor.
func (c *cell) accurate(tol float64) bool {
	if c.ACFCD.Err != "" || c.ACFCD.TimedOut {
		return false
	}
	e := c.excess()
	if c.Problem == "lasso" {
		return math.IsNaN(e) || e <= 0
	}
	return math.IsNaN(e) || e <= tol
}

func (c *cell) summary(tol float64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "acfcd %s", secs(&c.ACFCD))
	for i := range c.Anchors {
		fmt.Fprintf(&b, ", %s %s", c.Anchors[i].label(), secs(&c.Anchors[i]))
	}
	ra, lower := c.ratio()
	fmt.Fprintf(&b, ": %s", fmtRatio(ra, lower))
	if c.Old != nil {
		ro, lo := c.oldRatio()
		fmt.Fprintf(&b, " (before: %s, %s)", secs(c.Old), fmtRatio(ro, lo))
	}
	if !c.accurate(tol) {
		fmt.Fprintf(&b, " (less accurate: excess %.2g)", c.excess())
	}
	return b.String()
}

func secs(t *toolRun) string {
	switch {
	case t.Err != "":
		return "error: " + t.Err
	case t.TimedOut:
		return fmt.Sprintf(">%.0fs", t.Seconds)
	}
	return fmt.Sprintf("%.3gs", t.Seconds)
}

func fmtRatio(r float64, lower bool) string {
	if math.IsNaN(r) {
		return "–"
	}
	if lower {
		return fmt.Sprintf(">%.2f×", r)
	}
	return fmt.Sprintf("%.2f×", r)
}
