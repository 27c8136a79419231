// Command liblinear benchmarks acfcd against liblinear-train.
//
//	go run ./bench/liblinear [flags]
//
// For every data set × solver (-s) × C it runs acfcd in process with each
// coordinate selection (-select) and liblinear 2.3.0's train binary (plus
// any -anchor binaries, e.g. a liblinear 2.50 build or the ACF paper's
// code) on the same plain-text file with the same settings, evaluates
// every model's primal objective itself, and prints a Markdown table
// (optionally CSV). With -check it instead compares acfcd (acf selection)
// with liblinear 2.3.0 for correctness. See README.md.
package main

import (
	"bytes"
	"fmt"
	"github.com/acfcd/acfcd"
	"io"
	"os"
	"os/exec"
	"runtime"

	"github.com/acfcd/acfcd/bench/internal/benchkit"
)

func main() {
	benchkit.Main("liblinear-bench", parseOptions, func(o *options) error { return run(o, os.Stdout) })
}

// run executes the benchmark (or -check) and writes the report to stdout
// and to -md / -csv.
func run(o *options, stdout io.Writer) error {
	if _, err := exec.LookPath(o.Liblinear); err != nil {
		return fmt.Errorf("liblinear 2.3.0 (-liblinear %s): %w", o.Liblinear, err)
	}
	for _, a := range o.Anchors {
		if _, err := exec.LookPath(a.Path); err != nil {
			return fmt.Errorf("-anchor %s: %w", a.Name, err)
		}
	}
	if o.Check {
		if _, err := exec.LookPath(o.LLPredict); err != nil {
			return fmt.Errorf("-liblinear-predict %s: %w", o.LLPredict, err)
		}
		if len(o.Anchors) > 0 && !o.Quiet {
			fmt.Fprintln(os.Stderr, "note: -check compares acfcd with liblinear 2.3.0 only; -anchor is ignored")
		}
		o.Anchors = nil
		o.Rounds = 1
	}
	ws, err := benchkit.NewWorkspace(o.DataDir, o.WorkDir, o.Quiet)
	if err != nil {
		return err
	}
	defer ws.Close()
	b := &runner{o: o, ws: ws}

	var out bytes.Buffer
	fmt.Fprintf(&out, "# acfcd liblinear benchmark\n\n%s, %s/%s, GOMAXPROCS %d; data %s\n\n",
		runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.GOMAXPROCS(0), o.DataDir)

	var rows []*row
	var checks []*checkRow
	var sets bytes.Buffer
	fmt.Fprintln(&sets, "| set | rows | features | nnz | held-out file |")
	fmt.Fprintln(&sets, "|---|---:|---:|---:|---|")
	for _, name := range o.Sets {
		ds, err := ws.Prepare(name)
		if err != nil {
			return err
		}
		// The harness's own copy of the training data, for evaluating
		// every model's primal objective.
		eval, err := acfcd.Load(ds.Path, acfcd.Options{Threads: o.Threads})
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		held := dash
		if ds.Test != "" {
			held = ds.Test
		}
		fmt.Fprintf(&sets, "| %s | %d | %d | %d | %s |\n", name, eval.Rows, eval.Features, eval.NNZ(), held)
		for _, s := range o.Solvers {
			for _, c := range o.Cs {
				cfg := config{Set: name, S: s, C: c, Eps: o.Eps}
				if o.Check {
					checks = append(checks, b.checkConfig(cfg, ds, eval))
				} else {
					rows = append(rows, b.runConfig(cfg, ds.Path, eval)...)
				}
			}
		}
		eval.Close()
	}
	out.Write(sets.Bytes())
	out.WriteString("\n")
	if o.Check {
		writeCheck(&out, checks, o)
	} else {
		writeMarkdown(&out, rows, o)
	}
	if _, err := stdout.Write(out.Bytes()); err != nil {
		return err
	}
	if o.MD != "" {
		if err := os.WriteFile(o.MD, out.Bytes(), 0o644); err != nil {
			return err
		}
	}
	if o.CSV != "" {
		var buf bytes.Buffer
		if o.Check {
			if err := writeCheckCSV(&buf, checks); err != nil {
				return err
			}
		} else if err := writeCSV(&buf, rows); err != nil {
			return err
		}
		if err := os.WriteFile(o.CSV, buf.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}
