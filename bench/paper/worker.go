package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/acfcd/acfcd"
	"io"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/acfcd/acfcd/bench/internal/benchkit"
)

// job is one acfcd training run, done by a worker process (this program
// started with -worker) so that every run has a fresh heap and a hard
// time limit.
type job struct {
	Problem string  `json:"problem"`
	S       int     `json:"s"` // -s, with sLasso and sWW for acfcd's own problems
	Train   string  `json:"train"`
	Test    string  `json:"test,omitempty"`
	C       float64 `json:"c,omitempty"`
	Lambda  float64 `json:"lambda,omitempty"`
	Eps     float64 `json:"eps"` // as acfcd.Params.Eps takes it (absolute)
	Select  string  `json:"select"`
	Seed    uint64  `json:"seed"`
	Timeout float64 `json:"timeout"` // seconds of training before it is cancelled
}

// jfloat is a float64 whose JSON form is null for NaN and ±Inf.
type jfloat float64

func (f jfloat) MarshalJSON() ([]byte, error) {
	v := float64(f)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, v, 'g', -1, 64), nil
}

func (f *jfloat) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*f = jfloat(math.NaN())
		return nil
	}
	v, err := strconv.ParseFloat(string(b), 64)
	*f = jfloat(v)
	return err
}

// workerResult is what a worker prints (one JSON line) after its run.
type workerResult struct {
	TrainSec  float64 `json:"train_s"` // wall time of acfcd.Train
	CPUSec    float64 `json:"cpu_s"`   // process user+sys over the same span
	Steps     int64   `json:"steps"`
	Epochs    int64   `json:"epochs"`
	Ops       int64   `json:"ops"`
	Objective jfloat  `json:"objective"` // Result.Objective (dual for svm/lr/ww, F for the LASSO)
	Primal    jfloat  `json:"primal"`
	Gap       jfloat  `json:"gap"`
	Violation jfloat  `json:"violation"`
	Eval      jfloat  `json:"eval"` // LASSO: F(w) recomputed by the harness from the model
	NNZ       int     `json:"nnz"`  // non-zero weights
	TestAcc   jfloat  `json:"test_acc"`
	Converged bool    `json:"converged"`
	Capped    bool    `json:"capped"`
	Cancelled bool    `json:"cancelled"`
}

// startMarker is the line a worker prints on stdout when training starts;
// the parent starts its kill timer then.
const startMarker = "start"

// workerMain runs the job read from r and writes the result to w.
func workerMain(r io.Reader, w io.Writer) error {
	var j job
	if err := json.NewDecoder(r).Decode(&j); err != nil {
		return fmt.Errorf("reading the job: %w", err)
	}
	d, err := acfcd.Load(j.Train, acfcd.Options{Format: "cache"})
	if err != nil {
		return err
	}
	defer d.Close()
	// Pure coordinate descent: the fallbacks (primal Newton for -s 1 and
	// -s 7, interior point for -s 3) would take over from a stalling dual and blur the comparison of the
	// selections (as in bench/liblinear, which also turns it off).
	prob, err := solverProblem(j.S)
	if err != nil {
		return err
	}
	sel, err := acfcd.ParseSelection(j.Select)
	if err != nil {
		return err
	}
	p := acfcd.Params{Problem: prob, C: j.C, Lambda: j.Lambda, Eps: j.Eps, Select: sel, Seed: j.Seed,
		NoFallback: true}
	bw := bufio.NewWriter(w)
	defer bw.Flush()

	// A clean heap, so that the load's garbage is not collected on the
	// training clock.
	runtime.GC()
	debug.FreeOSMemory()
	fmt.Fprintln(bw, startMarker)
	bw.Flush()
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(j.Timeout*float64(time.Second)))
	defer cancel()
	c0 := benchkit.ProcessCPU()
	t0 := time.Now()
	m, res, err := acfcd.Train(ctx, d, p)
	sec := time.Since(t0).Seconds()
	cpu := benchkit.ProcessCPU() - c0
	if err != nil && (res == nil || !res.Cancelled) {
		return err
	}
	out := workerResult{TrainSec: sec, CPUSec: cpu, Steps: res.Iterations, Epochs: int64(res.Epochs),
		Ops: res.Operations, Objective: jfloat(res.Objective), Primal: jfloat(res.Primal),
		Gap: jfloat(res.Gap), Violation: jfloat(res.Violation), NNZ: res.NNZW,
		Eval: jfloat(math.NaN()), TestAcc: jfloat(math.NaN()),
		Converged: res.Converged, Capped: res.HitEpochCap, Cancelled: res.Cancelled || ctx.Err() != nil}
	if j.Problem == probLasso {
		out.Eval = jfloat(lassoObjective(d, m.W[:m.NumFeature], j.Lambda))
	}
	if j.Test != "" {
		acc, err := accuracy(m, j.Test)
		if err != nil {
			return err
		}
		out.TestAcc = jfloat(acc)
	}
	b, err := json.Marshal(out)
	if err != nil {
		return err
	}
	bw.Write(b)
	bw.WriteString("\n")
	return nil
}

// accuracy is the share of rows of the cache file test that m predicts right.
func accuracy(m *acfcd.Model, test string) (float64, error) {
	d, err := acfcd.Load(test, acfcd.Options{Format: "cache"})
	if err != nil {
		return 0, err
	}
	defer d.Close()
	if d.Value == nil {
		return 0, errors.New("test set: float32 values")
	}
	right := 0
	for i := 0; i < d.Rows; i++ {
		idx, val := d.Row(i)
		if m.Predict(idx, val) == d.Label[i] {
			right++
		}
	}
	return float64(right) / float64(max(d.Rows, 1)), nil
}

// runWorker is main for -worker.
func runWorker() {
	if err := workerMain(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "worker:", err)
		os.Exit(1)
	}
}
