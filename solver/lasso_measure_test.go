package solver

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	dataio "github.com/acfcd/acfcd/io"
)

// TestLassoMeasure is a measurement, not a test: with
// ACFCD_LASSO_DATA=path:alpha[,alpha...] it fits the LASSO at
// λ = alpha·ℓ (scikit-learn's alpha) with every selection, at the
// default eps and with the gap tolerance of scikit-learn's tol
// (ACFCD_LASSO_TOL, default 1e-6: gap ≤ tol·‖y‖²), and prints a table.
// Run it niced, with GOMAXPROCS=1.
func TestLassoMeasure(t *testing.T) {
	spec := os.Getenv("ACFCD_LASSO_DATA")
	if spec == "" {
		t.Skip("set ACFCD_LASSO_DATA=path:alpha[,alpha...]")
	}
	i := strings.LastIndexByte(spec, ':')
	path, alphas := spec[:i], strings.Split(spec[i+1:], ",")
	tol := 1e-6
	if s := os.Getenv("ACFCD_LASSO_TOL"); s != "" {
		tol, _ = strconv.ParseFloat(s, 64)
	}
	d, err := dataio.Load(path, dataio.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var yy float64
	for _, y := range d.Label {
		yy += y * y
	}
	pr, err := newLassoProblem(d, false)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("%s: %d rows, %d features, %d nnz, %d usable columns, λ_max %.6g, ‖y‖² %.6g\n",
		path, d.Rows, d.Features, d.NNZ(), len(pr.cols), pr.lamMax, yy)
	for _, as := range alphas {
		alpha, err := strconv.ParseFloat(as, 64)
		if err != nil {
			t.Fatal(err)
		}
		lam := alpha * float64(d.Rows)
		for _, stop := range []string{"eps", "gap"} {
			for _, sel := range lassoSelects {
				p := Params{Solver: Lasso, Lambda: lam, Select: sel, Seed: 1, MaxEpochs: 100000}
				gapTol := 0.0
				if stop == "gap" {
					gapTol = tol * yy
				}
				_, res, err := TrainLassoGap(context.Background(), d, p, gapTol)
				if err != nil {
					t.Fatal(err)
				}
				fmt.Printf("alpha %-9g λ %-9.5g stop %s %-8s steps %10d epochs %6d ops %12d %7.2f s obj %.10g gap %.3g viol %.3g nnz %5d conv %v\n",
					alpha, lam, stop, sel, res.Iterations, res.Epochs, res.Operations, res.Seconds, res.Objective, res.Gap, res.Violation, res.NNZW, res.Converged)
			}
		}
	}
}
