package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/acfcd/acfcd/bench/internal/benchkit"
)

type report struct {
	o       *options
	cells   []*cell
	elapsed time.Duration
}

func newReport(o *options, cells []*cell, elapsed time.Duration) *report {
	return &report{o: o, cells: cells, elapsed: elapsed}
}

// summary condenses a set of cells.
type summary struct {
	Cells, Below1, LessAccurate, Failed int
	GeoMean                             float64
	Worst                               *cell
}

func summarize(cells []*cell, tol float64) summary {
	var s summary
	var logSum float64
	var n int
	worst := math.Inf(1)
	for _, c := range cells {
		s.Cells++
		ra, _ := c.ratio()
		if c.ACFCD.Err != "" || c.ACFCD.TimedOut {
			s.Failed++
		}
		if !c.accurate(tol) {
			s.LessAccurate++
		}
		if math.IsNaN(ra) {
			continue
		}
		logSum += math.Log(ra)
		n++
		if ra < 1 {
			s.Below1++
		}
		if ra < worst {
			worst, s.Worst = ra, c
		}
	}
	s.GeoMean = math.NaN()
	if n > 0 {
		s.GeoMean = math.Exp(logSum / float64(n))
	}
	return s
}

func (s summary) line(name string) string {
	w := "–"
	if s.Worst != nil {
		ra, lower := s.Worst.ratio()
		w = fmt.Sprintf("%s (%s -s %s %s)", fmtRatio(ra, lower), s.Worst.Shape, s.Worst.Problem, s.Worst.Param)
	}
	return fmt.Sprintf("| %s | %d | %.2f× | %s | %d | %d | %d |", name, s.Cells, s.GeoMean, w, s.Below1, s.LessAccurate, s.Failed)
}

func (r *report) markdown(w io.Writer) {
	fmt.Fprintf(w, "# Corpus: acfcd's defaults against the best anchor\n\n")
	fmt.Fprintf(w, "%s, GOMAXPROCS %d, %d rounds, timeout %v, equal accuracy: primal excess ≤ %g (LASSO: excess ≤ glmnet's, or ≤ %g); run took %v.\n\n",
		time.Now().UTC().Format("2006-01-02 15:04 UTC"), runtime.GOMAXPROCS(0), r.o.Rounds, r.o.Timeout, r.o.AccTol, lassoFloor, r.elapsed.Round(time.Second))
	fmt.Fprintln(w, "| cells | n | geometric mean | worst | below 1× | less accurate | acfcd failed |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
	var a, b []*cell
	for _, c := range r.cells {
		if c.Half == "A" {
			a = append(a, c)
		} else {
			b = append(b, c)
		}
	}
	fmt.Fprintln(w, summarize(r.cells, r.o.AccTol).line("all"))
	fmt.Fprintln(w, summarize(a, r.o.AccTol).line("half A (tuning)"))
	fmt.Fprintln(w, summarize(b, r.o.AccTol).line("half B (held out)"))
	old := olds(r.cells)
	if len(old) > 0 {
		var oa, ob []*cell
		for _, c := range old {
			if c.Half == "A" {
				oa = append(oa, c)
			} else {
				ob = append(ob, c)
			}
		}
		fmt.Fprintln(w, summarize(old, r.o.AccTol).line("before (-old), all"))
		fmt.Fprintln(w, summarize(oa, r.o.AccTol).line("before, half A"))
		fmt.Fprintln(w, summarize(ob, r.o.AccTol).line("before, half B"))
		slower := 0
		for _, c := range r.cells {
			if c.Old != nil && c.ACFCD.Seconds > slowerBy*c.Old.Seconds && c.ACFCD.Seconds > slowFloor {
				slower++
			}
		}
		fmt.Fprintf(w, "\n%d of %d cells slower than before by more than ×%.2f (and %.2f s).\n", slower, len(old), slowerBy, slowFloor)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| shape | half | -s | cell | acfcd | best anchor | anchor s | ratio | acfcd excess | before (ratio) | other anchors |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|---|")
	for _, c := range r.cells {
		ra, lower := c.ratio()
		bs, bn := "–", "–"
		if b := c.best(); b != nil {
			bs, bn = secs(b), b.label()
		}
		var others []string
		for i := range c.Anchors {
			if a := &c.Anchors[i]; a != c.best() {
				others = append(others, a.label()+" "+secs(a))
			}
		}
		ex := fmt.Sprintf("%.1e", c.excess())
		if !c.accurate(r.o.AccTol) {
			ex = "**" + ex + "**"
		}
		mark := fmtRatio(ra, lower)
		if ra < 1 {
			mark = "**" + mark + "**"
		}
		before := "–"
		if c.Old != nil {
			ro, lo := c.oldRatio()
			before = fmt.Sprintf("%s (%s)", secs(c.Old), fmtRatio(ro, lo))
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", c.Shape, c.Half, c.Problem, c.Param,
			secs(&c.ACFCD), bn, bs, mark, ex, before, benchkit.MDEscape(strings.Join(others, ", ")))
	}
}

// A cell is slower than before when it takes more than slowerBy times the
// old time and more than slowFloor seconds (below it, process start and
// the machine's noise dominate).
const (
	slowerBy  = 1.25
	slowFloor = 0.05
)

// olds returns the cells as the -old acfcd ran them.
func olds(cells []*cell) []*cell {
	var out []*cell
	for _, c := range cells {
		if c.Old != nil {
			o := *c
			o.ACFCD, o.Old = *c.Old, nil
			out = append(out, &o)
		}
	}
	return out
}

// files writes corpus.md, corpus.csv and bench.txt into dir.
func (r *report) files(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := benchkit.WriteAtomic(filepath.Join(dir, "corpus.md"), func(w io.Writer) error { r.markdown(w); return nil }); err != nil {
		return err
	}
	if err := benchkit.WriteAtomic(filepath.Join(dir, "corpus.csv"), r.csv); err != nil {
		return err
	}
	return benchkit.WriteAtomic(filepath.Join(dir, "bench.txt"), r.bench)
}

func (r *report) csv(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"shape", "half", "kind", "problem", "cell", "tool", "solver", "seconds", "timed_out", "primal", "excess", "error"})
	for _, c := range r.cells {
		for _, t := range c.runs() {
			cw.Write([]string{c.Shape, c.Half, c.Kind, c.Problem, c.Param, t.Tool, t.S, benchkit.CSVFloat(t.Seconds),
				fmt.Sprint(t.TimedOut), benchkit.CSVFloat(t.Primal), benchkit.CSVFloat(t.Excess), t.Err})
		}
	}
	cw.Flush()
	return cw.Error()
}

// bench writes one Go benchmark line per finished run, for benchstat
// (-col tool compares acfcd with each anchor).
func (r *report) bench(w io.Writer) error {
	fmt.Fprintf(w, "goos: %s\ngoarch: %s\npkg: github.com/acfcd/acfcd/bench/corpus\n", runtime.GOOS, runtime.GOARCH)
	key := func(s string) string {
		return strings.NewReplacer(" ", "_", "=", "", "/", "_", "·", "").Replace(s)
	}
	for _, c := range r.cells {
		for _, t := range c.runs() {
			if t.Err != "" || t.TimedOut {
				continue
			}
			tool := t.Tool
			if t.S != "" && t.S != c.Problem {
				tool += "-s" + t.S
			}
			fmt.Fprintf(w, "BenchmarkCorpus/shape=%s/half=%s/s=%s/cell=%s/tool=%s 1 %d ns/op\n",
				key(c.Shape), c.Half, c.Problem, key(c.Param), tool, int64(t.Seconds*1e9))
		}
	}
	return nil
}

// runs are the cell's acfcd run, the -old one and the anchors'.
func (c *cell) runs() []toolRun {
	out := []toolRun{c.ACFCD}
	if c.Old != nil {
		out = append(out, *c.Old)
	}
	return append(out, c.Anchors...)
}
