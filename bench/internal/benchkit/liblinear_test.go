package benchkit

import (
	"math"
	"testing"
)

// Output of liblinear 2.3.0 (-s 1, two classes) and of 2.50 after its
// dual solver hit max_iter and switched to the primal (-s 1 → -s 2).
const (
	out230 = "...........*\noptimization finished, #iter = 115\nObjective value = -121.134471\nnSV = 193\n"
	out250 = "..............................\noptimization finished, #iter = 300\nObjective value = -8000.123456\nnSV = 200\n\n" +
		"WARNING: reaching max number of iterations\nSwitching to use -s 2\n\ninit f 1.2e+04 |g| 3.4e+03\niter  1 f 1.1e+04 |g| 2.2e+02 CG   3 step_size 1.00e+00 \n"
	outMulti = "*\noptimization finished, #iter = 10\nObjective value = -1.500000\n*\noptimization finished, #iter = 1000\n\nWARNING: reaching max number of iterations\nUsing -s 2 may be faster (also see FAQ)\n\nObjective value = -2.250000\n"
)

func TestParseLiblinearOutput(t *testing.T) {
	r, err := ParseLiblinearOutput(out230)
	if err != nil || r.Iter != 115 || r.Subprobs != 1 || r.Objective != -121.134471 || r.Capped || r.Switched != "" {
		t.Errorf("2.3.0: %+v, %v", r, err)
	}
	r, err = ParseLiblinearOutput(out250)
	if err != nil || r.Iter != 300 || !r.Capped || r.Switched != "-s 2" {
		t.Errorf("2.50: %+v, %v", r, err)
	}
	r, err = ParseLiblinearOutput(outMulti)
	if err != nil || r.Iter != 1010 || r.Subprobs != 2 || r.NObj != 2 || math.Abs(r.Objective+3.75) > 1e-12 || !r.Capped {
		t.Errorf("multi-class: %+v, %v", r, err)
	}
	// -s 2 of liblinear 2.50, two classes: no dual, two Newton iterations.
	r, err = ParseLiblinearOutput("init f 3.256e+04 |g| 8.775e+04\niter  1 f 1.448e+04 |g| 5.700e+03 CG   3 step_size 1.00e+00 \niter  2 f 1.396e+04 |g| 2.263e+03 CG   3 step_size 1.00e+00 \n")
	if err != nil || r.Iter != 2 || r.Subprobs != 1 || r.NObj != 0 {
		t.Errorf("primal: %+v, %v", r, err)
	}
	if _, err := ParseLiblinearOutput("ERROR: something\n"); err == nil {
		t.Error("no error for output without #iter")
	}
}

func TestTrainArgs(t *testing.T) {
	got := TrainArgs(7, 0.1, 0.001, -1, "d", "m")
	want := []string{"-s", "7", "-c", "0.1", "-e", "0.001", "d", "m"}
	if len(got) != len(want) {
		t.Fatalf("%q", got)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("%q, want %q", got, want)
		}
	}
	if got := TrainArgs(1, 1, 0.01, 1, "d", "m"); got[6] != "-B" || got[7] != "1" {
		t.Errorf("bias: %q", got)
	}
}
