package main

import (
	"context"
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// lassoCells are bench/glmnet's cells the corpus runs: a single λ at 10⁻²
// and 10⁻³·λ_max, 30 λ down to 10⁻³·λ_max, and the default path.
const lassoCells = "0.01,0.001,path30,path"

// lasso runs bench/glmnet on one regression shape and turns its CSV into
// cells: for each λ cell and level (each tool's default stop; tight: glmnet
// at thresh 1e-10), acfcd against glmnet.
func (r *runner) lasso(ctx context.Context, s shape, path string) ([]*cell, error) {
	if r.o.Rscript == "" {
		return nil, nil
	}
	cells, err := r.glmnet(ctx, s, path, "", "")
	if err != nil || r.o.Old == "" {
		return cells, err
	}
	old, err := r.glmnet(ctx, s, path, r.o.Old, "-old")
	if err != nil {
		return nil, err
	}
	for _, c := range cells {
		for _, o := range old {
			if o.Param == c.Param {
				t := o.ACFCD
				t.Tool = "acfcd-old"
				c.Old = &t
			}
		}
	}
	return cells, nil
}

// glmnet runs bench/glmnet built from the module in dir ("": this one).
func (r *runner) glmnet(ctx context.Context, s shape, path, dir, suffix string) ([]*cell, error) {
	bin := filepath.Join(r.tmp, "glmnet-bench"+suffix)
	if _, err := os.Stat(bin); err != nil {
		if err := goBuild(bin, dir, "./bench/glmnet"); err != nil {
			return nil, err
		}
	}
	base := r.tmp
	if r.o.Out != "" {
		base = r.o.Out // bench/glmnet's own tables are kept beside the corpus's
	}
	out := filepath.Join(base, "glmnet"+suffix, s.name)
	name := strings.TrimSuffix(filepath.Base(path), ".svm")
	args := []string{"-data", filepath.Dir(path), "-workdir", filepath.Join(r.o.Dir, "glmnet-work"),
		"-sets", name, "-cells", lassoCells, "-levels", "default,tight",
		"-rounds", fmt.Sprint(r.o.Rounds), "-timeout", r.o.Timeout.String(), "-ref-timeout", (2 * r.o.Timeout).String(),
		"-matched=false", "-same-rule=false", "-cv-sets", "", "-python", "", "-rscript", r.o.Rscript, "-out", out, "-q"}
	r.logf("%s: bench/glmnet %s", s.name, strings.Join(args, " "))
	cmd := exec.CommandContext(ctx, bin, args...)
	if msg, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("bench/glmnet: %v\n%s", err, tail(string(msg)))
	}
	f, err := os.Open(filepath.Join(out, "glmnet.csv"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, err
	}
	byKey := map[string]*cell{}
	var cells []*cell
	for _, rec := range recs[1:] {
		// set, cell, level, tool, seconds_median, seconds_rounds, points, excess, nnz, status
		if len(rec) < 10 {
			continue
		}
		cellName, level, tool := rec[1], rec[2], rec[3]
		if level != "default" && level != "tight" || tool != "acfcd" && tool != "glmnet" {
			continue
		}
		key := cellName + "/" + level
		c := byKey[key]
		if c == nil {
			c = &cell{Shape: s.name, Half: s.half, Kind: kindName(s.kind), Problem: "lasso", Param: cellName + ", " + level}
			byKey[key] = c
			cells = append(cells, c)
		}
		t := toolRun{Tool: tool, Seconds: parseNum(rec[4]), Excess: parseNum(rec[7]), Primal: math.NaN()}
		switch status := rec[9]; {
		case strings.HasPrefix(status, "timeout"), strings.HasPrefix(status, ">"):
			t.TimedOut = true
		case status != "ok" && status != "not converged":
			t.Err = status
		}
		if tool == "acfcd" {
			c.ACFCD = t
		} else {
			c.Anchors = append(c.Anchors, t)
		}
	}
	for _, c := range cells {
		r.logf("%s lasso%s %s: %s", s.name, suffix, c.Param, c.summary(r.o.AccTol))
	}
	return cells, nil
}

func parseNum(s string) float64 {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return math.NaN()
	}
	return v
}

func tail(s string) string {
	if len(s) > 1500 {
		return "…" + s[len(s)-1500:]
	}
	return s
}
