package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/acfcd/acfcd"
	"github.com/acfcd/acfcd/internal/synth"
)

func writeSVM(t *testing.T, d *acfcd.Dataset, name string) {
	t.Helper()
	var b bytes.Buffer
	for i := range d.Rows {
		b.WriteString(strconv.FormatFloat(d.Label[i], 'g', -1, 64))
		idx, val := d.Row(i)
		for k, j := range idx {
			fmt.Fprintf(&b, " %d:%s", j+1, strconv.FormatFloat(val[k], 'g', -1, 64))
		}
		b.WriteByte('\n')
	}
	if err := os.WriteFile(name, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// acfcd-beam train writes a liblinear model whose primal objective is
// within -e of the optimum that acfcd finds on one machine, and a line per
// round.
func TestTrain(t *testing.T) {
	dir := t.TempDir()
	d := synth.Text(synth.TextConfig{Rows: 500, Features: 200, MeanNNZ: 8, Informative: 20, Noise: 0.05, Seed: 9})
	data := filepath.Join(dir, "d.svm")
	writeSVM(t, d, data)
	mp := filepath.Join(dir, "d.model")
	var stderr bytes.Buffer
	if code := train([]string{"-s", "3", "-c", "0.1", "-e", "0.001", "--runner", "prism", "--workers", "2", "--epochs", "2", data, mp}, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "round 0: duality gap ") || !strings.Contains(stderr.String(), "bytes communicated") {
		t.Errorf("no line per round:\n%s", stderr.String())
	}
	if strings.Contains(stderr.String(), "level=INFO") {
		t.Errorf("Prism's INFO lines are printed:\n%s", stderr.String())
	}
	m, err := acfcd.LoadModel(mp)
	if err != nil {
		t.Fatal(err)
	}
	one, err := acfcd.Load(data, acfcd.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ms, res, err := acfcd.Train(context.Background(), one, acfcd.Params{Problem: acfcd.HingeDual, C: 0.1, Eps: 1e-6})
	if err != nil {
		t.Fatal(err)
	}
	if m.SolverType != ms.SolverType || m.NumFeature != ms.NumFeature || fmt.Sprint(m.Labels) != fmt.Sprint(ms.Labels) || m.Bias != ms.Bias {
		t.Errorf("model header %s %d %v %g, acfcd train's %s %d %v %g", m.SolverType, m.NumFeature, m.Labels, m.Bias, ms.SolverType, ms.NumFeature, ms.Labels, ms.Bias)
	}
	var ww, loss float64
	for _, v := range m.W {
		ww += v * v
	}
	out := []float64{0}
	for i := range one.Rows {
		idx, val := one.Row(i)
		m.Decision(idx, val, out)
		y := -1.0
		if one.Label[i] == m.Labels[0] {
			y = 1
		}
		loss += max(0, 1-y*out[0])
	}
	got := ww/2 + 0.1*loss
	if got < res.Primal-1e-6 || got > res.Primal*(1+1e-3) {
		t.Errorf("primal %.9g, acfcd's %.9g: not within 1e-3", got, res.Primal)
	}
}

func TestUsageErrors(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-s", "2", "--workers", "2", "x", "y"}, 2, "-s 2: distributed training takes -s 1, 3 or 7"},
		{[]string{"-w1", "2", "--workers", "2", "x", "y"}, 2, "-w1: class weights are not supported"},
		{[]string{"x", "y"}, 2, "--workers 0: want at least 1"},
		{[]string{"--workers", "2", "x"}, 2, "usage: acfcd-beam train"},
		{[]string{"--workers", "2", "--select", "best", "x", "y"}, 2, "unknown coordinate selection"},
		{[]string{"--workers", "2", "--step", "half", "x", "y"}, 2, `--step: step "half": want add, line or line1`},
		{[]string{"-s", "7", "--workers", "2", "--step", "line1", "x", "y"}, 2, "--step line1: the line search needs -s 1 or 3"},
		{[]string{"--workers", "2", "--kappa", "-1", "x", "y"}, 2, "--kappa -1: want auto or a number ≥ 0"},
		{[]string{"--workers", "2", "--outer", "0", "x", "y"}, 2, "--outer 0: want at least 1"},
		{[]string{"--workers", "2", filepath.Join(dir, "none.svm"), filepath.Join(dir, "m")}, 1, "none.svm: no such file"},
	} {
		var stderr bytes.Buffer
		code := train(c.args, &stderr)
		if code != c.code || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%q: exit %d, %q; want %d, %q", c.args, code, stderr.String(), c.code, c.want)
		}
	}
}
