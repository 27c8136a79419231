package main

import (
	"bytes"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/acfcd/acfcd"
	"github.com/acfcd/acfcd/internal/synth"
)

// TestShapes: names are unique, every shape is in a half, and each kind
// of label has shapes in both halves (so the held-out half tests each).
func TestShapes(t *testing.T) {
	seen := map[string]bool{}
	halves := map[kind]map[string]bool{}
	for _, s := range shapes() {
		if seen[s.name] {
			t.Errorf("shape %s twice", s.name)
		}
		seen[s.name] = true
		if s.half != "A" && s.half != "B" {
			t.Errorf("%s: half %q", s.name, s.half)
		}
		if n := btoi(s.gen != nil) + btoi(s.preset != nil) + btoi(s.real != ""); n != 1 {
			t.Errorf("%s: not exactly one source", s.name)
		}
		if halves[s.kind] == nil {
			halves[s.kind] = map[string]bool{}
		}
		halves[s.kind][s.half] = true
	}
	for k, h := range halves {
		if !h["A"] || !h["B"] {
			t.Errorf("%s shapes only in half %v", kindName(k), h)
		}
	}
}

// TestGenerators: small versions of each generator write data acfcd reads,
// of the declared size and kind, the same bytes twice.
func TestGenerators(t *testing.T) {
	tc := synth.TextConfig{Rows: 60, Features: 500, MeanNNZ: 10, Informative: 20, Noise: 0.05, Seed: 3}
	for _, g := range []struct {
		name     string
		gen      func(io.Writer) error
		rows     int
		labels   int // distinct labels; 0: real-valued targets
		features int // largest index at most this
	}{
		{"dense", dense(denseConfig{rows: 80, feats: 7, classes: 2, seed: 1}), 80, 2, 7},
		{"dense raw", dense(denseConfig{rows: 80, feats: 7, classes: 5, raw: true, seed: 1}), 80, 5, 7},
		{"correlated", dense(denseConfig{rows: 80, feats: 9, classes: 2, factors: 2, seed: 1}), 80, 2, 9},
		{"dups dense", dupsDense(denseConfig{rows: 20, feats: 4, classes: 2, seed: 1}), -1, 2, 4},
		{"dense regression", denseReg(50, 6, 0, 1), 50, 0, 6},
		{"onehot", onehot(100, 5, 1), 100, 2, 2 + 5*16},
		{"text", text(tc), 60, 2, 500},
		{"text regression", textReg(tc, 0.1), 60, 0, 500},
		{"dups", dups(tc), -1, 2, 500},
		{"counts", counts(70, 300, 8, kindLabel(multi), 1), 70, 5, 300},
		{"counts regression", counts(70, 300, 8, kindLabel(regression), 1), 70, 0, 300},
		{"wide dense", wide(30, 400, 0.5, false, 1), 30, 2, 400},
		{"wide binary", wide(40, 2000, 0.01, true, 1), 40, 2, 2000},
	} {
		var a, b bytes.Buffer
		if err := g.gen(&a); err != nil {
			t.Fatalf("%s: %v", g.name, err)
		}
		g.gen(&b)
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Errorf("%s: two runs differ", g.name)
		}
		d, err := acfcd.Read(bytes.NewReader(a.Bytes()), g.name, acfcd.Options{})
		if err != nil {
			t.Fatalf("%s: %v", g.name, err)
		}
		if g.rows >= 0 && d.Rows != g.rows || g.rows < 0 && d.Rows <= 20 {
			t.Errorf("%s: %d rows", g.name, d.Rows)
		}
		if d.Features > g.features {
			t.Errorf("%s: %d features, want at most %d", g.name, d.Features, g.features)
		}
		labels := map[float64]bool{}
		for _, y := range d.Label {
			labels[y] = true
		}
		if g.labels > 0 && len(labels) > g.labels || g.labels == 0 && len(labels) < d.Rows/2 {
			t.Errorf("%s: %d distinct labels, want %d", g.name, len(labels), g.labels)
		}
	}
}

// TestSummary: the geometric mean, the worst cell and the counts.
func TestSummary(t *testing.T) {
	mk := func(acf, anchor, excess float64, timedOut bool) *cell {
		return &cell{Shape: "s", Problem: "1", ACFCD: toolRun{Seconds: acf, Primal: 1 + excess},
			Anchors: []toolRun{{Tool: "liblinear", S: "1", Seconds: anchor, Primal: 1, TimedOut: timedOut}}}
	}
	cells := []*cell{mk(1, 4, 0, false), mk(2, 1, 0, false), mk(1, 2, 0.01, false), mk(1, 60, 0, true)}
	s := summarize(cells, 1e-3)
	if want := math.Pow(4*0.5*2*60, 0.25); math.Abs(s.GeoMean-want) > 1e-12 {
		t.Errorf("geometric mean %v, want %v", s.GeoMean, want)
	}
	if s.Worst != cells[1] || s.Below1 != 1 || s.LessAccurate != 1 || s.Cells != 4 {
		t.Errorf("summary %+v", s)
	}
	if r, lower := cells[3].ratio(); r != 60 || !lower {
		t.Errorf("timed-out anchor: %v %v", r, lower)
	}
	var md strings.Builder
	newReport(&options{AccTol: 1e-3, Rounds: 1}, cells, 0).markdown(&md)
	if !strings.Contains(md.String(), "| all | 4 | 3.94× | 0.50× (s -s 1 ) | 1 | 1 | 0 |") {
		t.Errorf("markdown summary:\n%s", md.String())
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
