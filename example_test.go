package acfcd_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/acfcd/acfcd"
)

// toyData is a small binary problem in libsvm text: two features; the
// label is the sign of x1 − x2, with two points on the wrong side.
func toyData() *acfcd.Dataset {
	r := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	for i := range 200 {
		x1, x2 := r.Float64(), r.Float64()
		y := 1
		if x1 < x2 != (i%100 == 0) {
			y = -1
		}
		fmt.Fprintf(&b, "%d 1:%.4f 2:%.4f\n", y, x1, x2)
	}
	d, err := acfcd.Read(strings.NewReader(b.String()), "toy", acfcd.Options{})
	if err != nil {
		log.Fatal(err)
	}
	return d
}

// Train a linear SVM (liblinear's -s 1 with -c 10 -B 1) and predict.
func Example() {
	d := toyData()
	m, res, err := acfcd.Train(context.Background(), d, acfcd.Params{Problem: acfcd.SquaredHingeDual, C: 10, Bias: 1})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Solver, "converged:", res.Converged)
	for _, x := range [][]float64{{0.9, 0.1}, {0.2, 0.7}} {
		label := m.Predict([]int32{0, 1}, x) // features are 0-based here
		fmt.Printf("x = %v: label %g\n", x, label)
	}
	// Output:
	// L2R_L2LOSS_SVC_DUAL converged: true
	// x = [0.9 0.1]: label 1
	// x = [0.2 0.7]: label -1
}

// Fit the LASSO along a path of λ, from λ_max (where w = 0) down to
// λ_max/100, each fit warm-started from the previous one.
func ExampleTrainPath() {
	// y = 3·x1 − 2·x3 + noise; x2 and x4 are noise features.
	r := rand.New(rand.NewPCG(3, 4))
	var b strings.Builder
	for range 100 {
		x := [4]float64{r.NormFloat64(), r.NormFloat64(), r.NormFloat64(), r.NormFloat64()}
		y := 3*x[0] - 2*x[2] + 0.1*r.NormFloat64()
		fmt.Fprintf(&b, "%.6f 1:%.6f 2:%.6f 3:%.6f 4:%.6f\n", y, x[0], x[1], x[2], x[3])
	}
	d, err := acfcd.Read(strings.NewReader(b.String()), "regression", acfcd.Options{})
	if err != nil {
		log.Fatal(err)
	}
	pts, err := acfcd.TrainPath(context.Background(), d, acfcd.Params{Problem: acfcd.Lasso}, 4, 0.01)
	if err != nil {
		log.Fatal(err)
	}
	lamMax := pts[0].Lambda
	for _, pt := range pts {
		fmt.Printf("λ = %.3g·λmax: %d non-zero weights, converged %v\n", pt.Lambda/lamMax, pt.NNZ, pt.Converged)
	}
	last := pts[len(pts)-1].Model
	fmt.Printf("w = [%.1f %.1f %.1f %.1f]\n", last.W[0], last.W[1], last.W[2], last.W[3])
	// Output:
	// λ = 1·λmax: 0 non-zero weights, converged true
	// λ = 0.215·λmax: 2 non-zero weights, converged true
	// λ = 0.0464·λmax: 2 non-zero weights, converged true
	// λ = 0.01·λmax: 2 non-zero weights, converged true
	// w = [3.0 0.0 -2.0 0.0]
}

// Estimate the accuracy of -s 7 (logistic regression) by 5-fold
// cross-validation, as liblinear-train -v 5.
func ExampleCrossValidate() {
	d := toyData()
	cv, err := acfcd.CrossValidate(context.Background(), d, acfcd.Params{Problem: acfcd.LogisticDual, C: 100}, 5)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("Cross Validation Accuracy = %g%% (%d/%d)\n", cv.Accuracy, cv.Correct, cv.Rows)
	// Output:
	// Cross Validation Accuracy = 99% (198/200)
}

// A cancelled context stops training soon; the model reached so far comes
// back, marked Partial, with an error that wraps ctx.Err().
func ExampleTrain_cancel() {
	d := toyData()
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // as if the user pressed Ctrl-C at once
	m, res, err := acfcd.Train(ctx, d, acfcd.Params{Problem: acfcd.SquaredHingeDual, C: 10})
	fmt.Println(errors.Is(err, context.Canceled), res.Cancelled, m.Partial)
	// Output:
	// true true true
}

// Evaluate a model on data, as liblinear-predict reports it.
func ExampleEvaluate() {
	d := toyData()
	m, _, err := acfcd.Train(context.Background(), d, acfcd.Params{Problem: acfcd.HingeDual, C: 10, Bias: 1})
	if err != nil {
		log.Fatal(err)
	}
	ev, err := acfcd.Evaluate(m, d)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("Accuracy = %g%% (%d/%d)\n", math.Round(ev.Accuracy*10)/10, ev.Correct, ev.Rows)
	// Output:
	// Accuracy = 99% (198/200)
}

// Problems are named as liblinear-train's -s takes them.
func ExampleParseProblem() {
	for _, s := range []string{"0", "4", "13", "21", "lasso", "L2R_LR_DUAL"} {
		p, err := acfcd.ParseProblem(s)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("-s %s: %v\n", p.Flag(), p)
	}
	_, err := acfcd.ParseProblem("8")
	fmt.Println(err)
	// Output:
	// -s 0: L2R_LR
	// -s 4: MCSVM_CS
	// -s 13: L2R_L1LOSS_SVR_DUAL
	// -s 21: ONECLASS_SVM
	// -s lasso: LASSO
	// -s 7: L2R_LR_DUAL
	// unknown solver "8" (acfcd implements -s 0 to 7, 11, 12, 13, 21, lasso and ww)
}

// FindC searches C as liblinear's -C: 5-fold cross-validation at C
// doubling from a small value to 1024, each C's training starting from
// the previous one's solution.
func ExampleFindC() {
	d := toyData()
	p := acfcd.Params{Problem: acfcd.HingeDual, Bias: 1} // -s 3 -B 1
	cs, err := acfcd.FindC(context.Background(), d, p, 5, acfcd.SearchOptions{})
	if err != nil {
		log.Fatal(err)
	}
	first, last := cs.Points[0], cs.Points[len(cs.Points)-1]
	fmt.Printf("%d values of C from %g to %g\n", len(cs.Points), first.C, last.C)
	fmt.Printf("Best C = %g  CV accuracy = %g%%\n", cs.BestC, cs.Accuracy)
	// Output:
	// 21 values of C from 0.0009765625 to 1024
	// Best C = 8  CV accuracy = 98%
}
