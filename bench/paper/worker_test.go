package main

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	dataio "github.com/acfcd/acfcd/io"
)

// synthCache writes a small random dense-ish dataset with the given labels
// as a binary cache and returns its path and the dataset.
func synthCache(t *testing.T, name string, rows, feats int, label func(x []float64, r *rand.Rand) float64) (string, *dataio.Dataset) {
	t.Helper()
	r := rand.New(rand.NewPCG(7, uint64(rows)))
	d := &dataio.Dataset{Rows: rows, Features: feats, RowPtr: make([]int64, rows+1)}
	for i := 0; i < rows; i++ {
		x := make([]float64, feats)
		for j := range x {
			if r.Float64() < 0.6 {
				x[j] = r.NormFloat64()
				d.Index = append(d.Index, int32(j))
				d.Value = append(d.Value, x[j])
			}
		}
		d.RowPtr[i+1] = int64(len(d.Index))
		d.Label = append(d.Label, label(x, r))
	}
	p := filepath.Join(t.TempDir(), name+".cache")
	if err := dataio.WriteCache(p, d); err != nil {
		t.Fatal(err)
	}
	return p, d
}

func runJob(t *testing.T, j job) workerResult {
	t.Helper()
	in, _ := json.Marshal(j)
	var out bytes.Buffer
	if err := workerMain(bytes.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 || lines[0] != startMarker {
		t.Fatalf("worker output %q", out.String())
	}
	var w workerResult
	if err := json.Unmarshal([]byte(lines[1]), &w); err != nil {
		t.Fatal(err)
	}
	return w
}

func TestWorkerSVM(t *testing.T) {
	train, _ := synthCache(t, "bin", 200, 10, func(x []float64, r *rand.Rand) float64 {
		if x[0]+0.5*x[1]+0.3*r.NormFloat64() > 0 {
			return 1
		}
		return -1
	})
	for _, sel := range []string{"uniform", "shrink", "acf", "acf+shrink"} {
		w := runJob(t, job{Problem: probSVM, S: 3, Train: train, C: 1, Eps: 0.01, Select: sel, Timeout: 30})
		if !w.Converged || w.Cancelled || w.Steps <= 0 || w.Ops <= 0 || !(w.TrainSec > 0) || !math.IsNaN(float64(w.Eval)) || !math.IsNaN(float64(w.TestAcc)) {
			t.Errorf("%s: %+v", sel, w)
		}
		if g := float64(w.Gap); !(g >= -1e-9) {
			t.Errorf("%s: gap %g", sel, g)
		}
	}
}

func TestWorkerLasso(t *testing.T) {
	train, d := synthCache(t, "reg", 100, 30, func(x []float64, r *rand.Rand) float64 {
		return 3*x[0] - 2*x[5] + 0.1*r.NormFloat64()
	})
	lmax, _ := lambdaMax(d)
	lam := 0.05 * lmax
	w := runJob(t, job{Problem: probLasso, S: sLasso, Train: train, Lambda: lam, Eps: 1e-6 * lam, Select: "acf", Timeout: 30})
	if !w.Converged || w.NNZ < 2 {
		t.Fatalf("%+v", w)
	}
	// The harness's F agrees with the solver's.
	if e, o := float64(w.Eval), float64(w.Objective); math.Abs(e-o) > 1e-9*math.Abs(o) {
		t.Errorf("harness F %.15g, Result.Objective %.15g", e, o)
	}
	// At λ_max the solution is w = 0 and F = ½‖y‖².
	_, yy := lambdaMax(d)
	w = runJob(t, job{Problem: probLasso, S: sLasso, Train: train, Lambda: lmax * (1 + 1e-9), Eps: 1e-6 * lmax, Select: "cyclic", Timeout: 30})
	if w.NNZ != 0 || math.Abs(float64(w.Eval)-yy/2) > 1e-9*yy {
		t.Errorf("at λ_max: nnz %d, F %g, ½‖y‖² %g", w.NNZ, float64(w.Eval), yy/2)
	}
}

func TestWorkerWWAndTimeout(t *testing.T) {
	class := func(x []float64, r *rand.Rand) float64 {
		switch {
		case x[0] > 0.5:
			return 1
		case x[1] > 0:
			return 2
		}
		return 3
	}
	train, _ := synthCache(t, "multi", 300, 8, class)
	test, _ := synthCache(t, "multi-test", 100, 8, class)
	w := runJob(t, job{Problem: probWW, S: sWW, Train: train, Test: test, C: 1, Eps: 0.01, Select: "acf", Timeout: 30})
	if !w.Converged || !(float64(w.TestAcc) > 0.6) {
		t.Errorf("ww: %+v", w)
	}
	// A time limit far below the training time: cancelled, with counts.
	w = runJob(t, job{Problem: probWW, S: sWW, Train: train, Test: test, C: 1e4, Eps: 1e-9, Select: "uniform", Timeout: 1e-9})
	if !w.Cancelled || w.Converged {
		t.Errorf("timeout: %+v", w)
	}
}

func TestJFloat(t *testing.T) {
	b, err := json.Marshal(struct{ A, B jfloat }{jfloat(math.NaN()), 1.5})
	if err != nil || string(b) != `{"A":null,"B":1.5}` {
		t.Fatalf("%s %v", b, err)
	}
	var v struct{ A, B jfloat }
	if err := json.Unmarshal(b, &v); err != nil || !math.IsNaN(float64(v.A)) || v.B != 1.5 {
		t.Errorf("%+v %v", v, err)
	}
}

func TestLassoObjective(t *testing.T) {
	d := &dataio.Dataset{Rows: 2, Features: 3, RowPtr: []int64{0, 2, 3}, Index: []int32{0, 2, 1},
		Value: []float64{1, 2, 4}, Label: []float64{1, -1}}
	// r = y − Xw with w = (1, 0.5, −1): row 0: 1 − (1 − 2) = 2; row 1: −1 − 2 = −3.
	got := lassoObjective(d, []float64{1, 0.5, -1}, 2)
	if want := 0.5*(4+9) + 2*2.5; math.Abs(got-want) > 1e-12 {
		t.Errorf("F = %g, want %g", got, want)
	}
	// A shorter weight vector means zeros.
	if got := lassoObjective(d, []float64{1}, 0); got != 0.5*(0+1) {
		t.Errorf("short w: %g", got)
	}
	lm, yy := lambdaMax(d)
	if lm != 4 || yy != 2 { // Xᵀy = (1, −4, 2)
		t.Errorf("λ_max %g, ‖y‖² %g", lm, yy)
	}
}

func TestLabelKind(t *testing.T) {
	for _, c := range []struct {
		y    []float64
		kind setKind
		n    int
	}{
		{[]float64{1, -1, 1}, kindBinary, 2},
		{[]float64{1, 2, 3, 2}, kindMulticlass, 3},
		{[]float64{1.5, 2}, kindRegression, 0},
		{[]float64{4, 4}, kindUnknown, 1},
	} {
		k, n := labelKind(c.y)
		if k != c.kind || n != c.n {
			t.Errorf("labelKind(%v) = %v, %d", c.y, k, n)
		}
	}
}

func TestRunTimed(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	p := runTimed(sh, []string{"-c", "echo hello; echo start; echo done; echo err >&2"}, "", "start", time.Second, 5*time.Second)
	if p.Killed || p.Err != nil || !p.Started || p.Stdout != "hello\ndone\n" || p.Stderr != "err\n" {
		t.Errorf("%+v", p)
	}
	// The budget runs from the marker: a process that sleeps after it is killed.
	p = runTimed(sh, []string{"-c", "sleep 0.2; echo start; sleep 10"}, "", "start", 300*time.Millisecond, 5*time.Second)
	if !p.Killed || !p.Started || p.SinceStart < 0.25 || p.Wall > 5 {
		t.Errorf("killed after the marker: %+v", p)
	}
	// Without a marker the budget runs from the start.
	p = runTimed(sh, []string{"-c", "sleep 10"}, "", "", 200*time.Millisecond, 0)
	if !p.Killed || p.Wall > 5 {
		t.Errorf("killed: %+v", p)
	}
	// A failing process is an error, not a timeout.
	p = runTimed(sh, []string{"-c", "exit 3"}, "", "", time.Second, 0)
	if p.Killed || p.Err == nil {
		t.Errorf("exit 3: %+v", p)
	}
	// Stdin reaches the process.
	p = runTimed(sh, []string{"-c", "cat"}, "in\n", "", time.Second, 0)
	if p.Stdout != "in\n" {
		t.Errorf("stdin: %+v", p)
	}
}
