package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/acfcd/acfcd"
	"github.com/acfcd/acfcd/solver/lasso"
)

// TestLassoCV: -s lasso -v K without --lambda prints cv.glmnet's table
// (λ, mean error, SE, nnz), λ.min and λ.1se as the library computes them,
// and saves the whole data's model at --lambda-choice (default 1se).
func TestLassoCV(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(4, 2))
	var b strings.Builder
	for range 80 {
		x := make([]float64, 10)
		for j := range x {
			x[j] = r.NormFloat64()
		}
		fmt.Fprintf(&b, "%g", 2*x[0]-x[1]+0.5*x[2]+1.5*r.NormFloat64())
		for j, v := range x {
			fmt.Fprintf(&b, " %d:%g", j+1, v)
		}
		b.WriteString("\n")
	}
	data := writeText(t, dir, "reg.svm", b.String())
	d, err := acfcd.Load(data, acfcd.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cv, err := acfcd.CrossValidatePath(t.Context(), d, acfcd.Params{Problem: acfcd.Lasso, Intercept: true}, acfcd.CVPathOptions{Folds: 4, N: 30})
	if err != nil {
		t.Fatal(err)
	}
	if cv.IndexMin == cv.Index1SE {
		t.Fatalf("the data should give λ.min below λ.1se: %d, %d", cv.IndexMin, cv.Index1SE)
	}
	var want strings.Builder
	fmt.Fprintf(&want, "%4s %14s %14s %14s %8s\n", "k", "lambda", "mean error", "SE", "nnz")
	for j, lam := range cv.Lambda {
		fmt.Fprintf(&want, "%4d %14.6g %14.6g %14.6g %8d\n", j+1, lam, cv.MeanError[j], cv.SE[j], cv.NNZ[j])
	}
	minLine := fmt.Sprintf("lambda.min = %s (k = %d, mean error %s, nnz %d)\n", cG(cv.LambdaMin), cv.IndexMin+1, cG(cv.MeanError[cv.IndexMin]), cv.NNZ[cv.IndexMin])
	seLine := fmt.Sprintf("lambda.1se = %s (k = %d, mean error %s, nnz %d)\n", cG(cv.Lambda1SE), cv.Index1SE+1, cG(cv.MeanError[cv.Index1SE]), cv.NNZ[cv.Index1SE])
	for _, choice := range []string{"", "min", "1se"} {
		model := filepath.Join(dir, "m"+choice)
		args := []string{"train", "-s", "lasso", "-v", "4", "--lambda-path", "30", "--intercept"}
		if choice != "" {
			args = append(args, "--lambda-choice", choice)
		}
		out, _, err := runCmd(t, append(args, data, model)...)
		if err != nil {
			t.Fatal(err)
		}
		k, name := cv.Index1SE, "1se"
		if choice == "min" {
			k, name = cv.IndexMin, "min"
		}
		w := want.String() + minLine + seLine + fmt.Sprintf("saving the model at lambda.%s = %s to %s\n", name, cG(cv.Lambda[k]), model)
		if out != w {
			t.Errorf("--lambda-choice %q printed\n%s\nwant\n%s", choice, out, w)
		}
		var mb bytes.Buffer
		if _, err := cv.Path[k].Model.WriteTo(&mb); err != nil {
			t.Fatal(err)
		}
		if got, err := os.ReadFile(model); err != nil || !bytes.Equal(got, mb.Bytes()) {
			t.Errorf("--lambda-choice %q: the saved model is not the whole data's model at λ.%s (%v)", choice, name, err)
		}
	}
	// -q keeps λ.min and λ.1se.
	out, _, err := runCmd(t, "train", "-q", "-s", "lasso", "-v", "4", "--lambda-path", "30", "--intercept", data, filepath.Join(dir, "q"))
	if err != nil || out != minLine+seLine {
		t.Errorf("-q printed %q (%v), want %q", out, err, minLine+seLine)
	}
}

// TestLassoUsageStop: the usage states the LASSO's default stopping rule
// with the library's constant.
func TestLassoUsageStop(t *testing.T) {
	out, _, err := runCmd(t, "help", "train")
	if err != nil {
		t.Fatal(err)
	}
	rel := strings.Replace(strconv.FormatFloat(lasso.DefaultGapRel, 'e', -1, 64), "e-0", "e-", 1) // 1e-4
	want := "duality gap <= " + rel + "*max(F(w), F(0)-F(w))"
	if !strings.Contains(out, want) {
		t.Errorf("acfcd help train does not say %q", want)
	}
}

// TestLassoThreshFlag: --thresh trains with glmnet's stopping rule, the
// model file is the library's with Params.Thresh, and the summary line
// reports the duality gap that point has.
func TestLassoThreshFlag(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(9, 1))
	var b strings.Builder
	for range 60 {
		y := 0.0
		var row strings.Builder
		for j := range 40 {
			if r.Float64() < 0.3 {
				v := r.NormFloat64()
				if j < 5 {
					y += float64(j+1) * v
				}
				fmt.Fprintf(&row, " %d:%g", j+1, v)
			}
		}
		fmt.Fprintf(&b, "%g%s\n", y+0.3*r.NormFloat64(), row.String())
	}
	data := writeText(t, dir, "reg.svm", b.String())
	d, err := acfcd.Load(data, acfcd.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m, res, err := acfcd.Train(t.Context(), d, acfcd.Params{Problem: acfcd.Lasso, Lambda: 2, Intercept: true, Thresh: 1e-5})
	if err != nil {
		t.Fatal(err)
	}
	var mb bytes.Buffer
	if _, err := m.WriteTo(&mb); err != nil {
		t.Fatal(err)
	}
	model := filepath.Join(dir, "m")
	out, _, err := runCmd(t, "train", "-s", "lasso", "--lambda", "2", "--intercept", "--thresh", "1e-5", data, model)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(model); err != nil || !bytes.Equal(got, mb.Bytes()) {
		t.Errorf("--thresh 1e-5: the model file is not the library's (%v)", err)
	}
	if want := fmt.Sprintf("duality gap = %g,", res.Gap); !strings.Contains(out, want) {
		t.Errorf("--thresh 1e-5 printed %q, want %q in it", out, want)
	}
}
