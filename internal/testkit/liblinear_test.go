package testkit

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestWriteLibSVM(t *testing.T) {
	// Rows of a CSR matrix: an empty row, exact values that 'g' -1 keeps
	// to the bit.
	label := []float64{1, -1, 2.5}
	ptr := []int{0, 2, 2, 3}
	idx := []int32{0, 9, 3}
	val := []float64{0.1, -3e-300, 1.0 / 3}
	path := filepath.Join(t.TempDir(), "data")
	WriteLibSVM(t, label, func(i int) ([]int32, []float64) { return idx[ptr[i]:ptr[i+1]], val[ptr[i]:ptr[i+1]] }, path)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := "1 1:0.1 10:-3e-300\n-1\n2.5 4:0.3333333333333333\n"; string(b) != want {
		t.Errorf("wrote %q, want %q", b, want)
	}
}

func TestLiblinearArgs(t *testing.T) {
	got := LiblinearArgs("5", 0.5, 1e-5, -1, map[float64]float64{3: 2, -1: 0.25, 1: 1.5})
	want := []string{"-s", "5", "-c", "0.5", "-e", "1e-05", "-B", "-1", "-w-1", "0.25", "-w1", "1.5", "-w3", "2"}
	if !slices.Equal(got, want) {
		t.Errorf("LiblinearArgs = %q, want %q", got, want)
	}
}

func TestParseLiblinear(t *testing.T) {
	out := "iter  1 act 1\n*\noptimization finished, #iter = 7\nObjective value = -12.345678\nnSV = 3\n" +
		"\nWARNING: reaching max number of iterations\nObjective value = 0.500000\n"
	file := "solver_type L2R_L2LOSS_SVC_DUAL\nnr_class 3\nlabel 3 1 2\nnr_feature 2\nbias -1\nw\n0.5 -1 2 \n1e-3 0 -0.25 \n"
	r, err := parseLiblinear(out, file)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r.Objectives, []float64{-12.345678, 0.5}) || !slices.Equal(r.Labels, []float64{3, 1, 2}) ||
		!slices.Equal(r.W, []float64{0.5, -1, 2, 1e-3, 0, -0.25}) || !r.Capped {
		t.Errorf("parsed %+v", r)
	}
	if r, _ := parseLiblinear("Objective value = 1\n", "solver_type L2R_L2LOSS_SVR\nnr_feature 1\nbias -1\nw\n2\n"); r.Capped || r.Labels != nil || !slices.Equal(r.W, []float64{2}) {
		t.Errorf("regression: parsed %+v", r)
	}
	if _, err := parseLiblinear("Objective value = x\n", ""); err == nil {
		t.Error("an objective that is no number parsed")
	}
}

// TestRunLiblinear trains a separable two-class set with liblinear-train,
// when installed: one objective (-s 1's dual, below 0), the labels in the
// order met, and w separating the classes.
func TestRunLiblinear(t *testing.T) {
	NeedLiblinear(t)
	label := []float64{2, 2, -1, -1}
	idx := []int32{0}
	val := []float64{1, 2, -1, -2}
	data := filepath.Join(t.TempDir(), "data")
	WriteLibSVM(t, label, func(i int) ([]int32, []float64) { return idx, val[i : i+1] }, data)
	r := RunLiblinear(t, LiblinearTrain, data, LiblinearArgs("1", 1, 1e-6, -1, nil)...)
	if len(r.Objectives) != 1 || !(r.Objectives[0] < 0) ||
		!slices.Equal(r.Labels, []float64{2, -1}) || len(r.W) != 1 || !(r.W[0] > 0) || r.Capped {
		t.Errorf("liblinear-train: %+v", r)
	}
}
