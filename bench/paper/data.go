package main

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"github.com/acfcd/acfcd/bench/internal/benchkit"
	dataio "github.com/acfcd/acfcd/io"
)

// splitSeed and splitPercent fix the 80/20 split of the Weston–Watkins sets
// that come without a held-out file.
const (
	splitSeed    = 1
	splitPercent = 20
)

// setData is one prepared data set: plain text for the external tools and
// an acfcd binary cache (loaded by mmap, without parsing) for the workers.
type setData struct {
	Name, File string
	Text       string // plain libsvm text of the training part
	Cache      string // binary cache of Text
	TestText   string // held-out part ("" if none is used)
	TestCache  string
	Held       string // where the held-out part comes from, for the tables
	Rows       int
	Features   int
	NNZ        int64
	Classes    int     // distinct labels (0 for regression)
	Kind       setKind // from the labels
	LambdaMax  float64 // ‖Xᵀy‖_∞ (no intercept): the smallest λ with w = 0
	YNorm2     float64 // ‖y‖²
}

// preparer makes setData once per (file, held-out) pair.
type preparer struct {
	ws    *benchkit.Workspace
	quiet bool
	done  map[string]*setData
}

func newPreparer(ws *benchkit.Workspace, quiet bool) *preparer {
	return &preparer{ws: ws, quiet: quiet, done: map[string]*setData{}}
}

// prepare returns set file (shown as name) ready for training. With
// heldOut the set's held-out file (NAME.t or NAME_test) is used for testing,
// or, when it has none, a fixed 80/20 split of it: then the tools train on
// the 80 %.
func (p *preparer) prepare(name, file string, heldOut bool) (*setData, error) {
	key := fmt.Sprintf("%s|%v", file, heldOut)
	if d, ok := p.done[key]; ok {
		return d, nil
	}
	ds, err := p.ws.Prepare(file)
	if err != nil {
		return nil, err
	}
	sd := &setData{Name: name, File: file, Text: ds.Path}
	if heldOut {
		if ds.Test != "" {
			sd.TestText = ds.Test
			sd.Held = filepath.Base(ds.Test)
		} else {
			tr, te, err := p.ws.Split(ds, splitSeed, splitPercent)
			if err != nil {
				return nil, err
			}
			sd.Text, sd.TestText = tr, te
			sd.Held = fmt.Sprintf("%d/%d split", 100-splitPercent, splitPercent)
		}
	}
	if sd.Cache, err = p.cache(sd.Text); err != nil {
		return nil, err
	}
	if sd.TestText != "" {
		if sd.TestCache, err = p.cache(sd.TestText); err != nil {
			return nil, err
		}
	}
	d, err := dataio.Load(sd.Cache, dataio.Options{Format: "cache"})
	if err != nil {
		return nil, err
	}
	defer d.Close()
	sd.Rows, sd.Features, sd.NNZ = d.Rows, d.Features, d.NNZ()
	sd.Kind, sd.Classes = labelKind(d.Label)
	sd.LambdaMax, sd.YNorm2 = lambdaMax(d)
	p.done[key] = sd
	return sd, nil
}

// cache returns a binary cache of the text file, written once into the
// workspace (rewritten when the text is newer).
func (p *preparer) cache(text string) (string, error) {
	c := p.ws.Path(filepath.Base(text) + ".cache")
	if benchkit.Fresh(c, text) {
		return c, nil
	}
	if !p.quiet {
		fmt.Fprintf(os.Stderr, "caching %s\n", text)
	}
	d, err := dataio.Load(text, dataio.Options{})
	if err != nil {
		return "", err
	}
	defer d.Close()
	return c, dataio.WriteCache(c, d)
}

// labelKind classifies labels: real values are regression, integers
// binary (two values) or multi-class.
func labelKind(y []float64) (setKind, int) {
	seen := map[float64]bool{}
	for _, v := range y {
		if v != math.Trunc(v) {
			return kindRegression, 0
		}
		if len(seen) <= 1000 {
			seen[v] = true
		}
	}
	switch {
	case len(seen) > 1000:
		return kindRegression, 0
	case len(seen) == 2:
		return kindBinary, 2
	case len(seen) > 2:
		return kindMulticlass, len(seen)
	}
	return kindUnknown, len(seen)
}

// lambdaMax returns ‖Xᵀy‖_∞ and ‖y‖².
func lambdaMax(d *dataio.Dataset) (float64, float64) {
	g := make([]float64, d.Features)
	var yy float64
	for i := 0; i < d.Rows; i++ {
		y := d.Label[i]
		yy += y * y
		a, b := d.RowPtr[i], d.RowPtr[i+1]
		for k := a; k < b; k++ {
			g[d.Index[k]] += rowValue(d, k) * y
		}
	}
	m := 0.0
	for _, v := range g {
		m = max(m, math.Abs(v))
	}
	return m, yy
}

func rowValue(d *dataio.Dataset, k int64) float64 {
	if d.Value != nil {
		return d.Value[k]
	}
	return float64(d.Value32[k])
}

// lassoObjective evaluates F(w) = ½‖y − Xw‖² + λ‖w‖₁ with compensated sums;
// w may be shorter or longer than the feature count (missing weights are 0).
func lassoObjective(d *dataio.Dataset, w []float64, lambda float64) float64 {
	var rr, l1 benchkit.Sum
	for i := 0; i < d.Rows; i++ {
		s := 0.0
		for k := d.RowPtr[i]; k < d.RowPtr[i+1]; k++ {
			if j := int(d.Index[k]); j < len(w) {
				s += w[j] * rowValue(d, k)
			}
		}
		r := d.Label[i] - s
		rr.Add(r * r)
	}
	for j := 0; j < min(len(w), d.Features); j++ {
		l1.Add(math.Abs(w[j]))
	}
	return 0.5*rr.Value() + lambda*l1.Value()
}

// peekKind reads the first labels of a set's file (compressed or not) to
// tell binary, multi-class and regression sets apart without loading it,
// for -sets names that no default grid lists. It looks at up to 20,000
// rows.
func peekKind(ws *benchkit.Workspace, file string) setKind {
	if file == "news20bin" {
		return kindBinary
	}
	path, err := ws.Find(file)
	if err != nil {
		return kindUnknown
	}
	r, err := dataio.Open(path)
	if err != nil {
		return kindUnknown
	}
	defer r.Close()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<26)
	var y []float64
	for sc.Scan() && len(y) < 20000 {
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 || b[0] == '#' {
			continue
		}
		if i := bytes.IndexAny(b, " \t"); i >= 0 {
			b = b[:i]
		}
		v, err := strconv.ParseFloat(string(b), 64)
		if err != nil {
			return kindUnknown
		}
		y = append(y, v)
	}
	k, _ := labelKind(y)
	return k
}
