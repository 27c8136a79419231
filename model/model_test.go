package model

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
)

// refDecision computes the decision values the slow, obvious way, in
// liblinear's order of operations.
func refDecision(m *Model, idx []int32, val []float64) []float64 {
	d := make([]float64, m.NrW)
	for c := range d {
		for k, j := range idx {
			if j >= 0 && int(j) < m.NumFeature {
				d[c] += float64(m.W[int(j)*m.NrW+c] * val[k])
			}
		}
		if m.Bias >= 0 {
			d[c] += float64(m.W[m.NumFeature*m.NrW+c] * m.Bias)
		}
	}
	if m.SolverType == "ONECLASS_SVM" {
		d[0] -= m.Rho
	}
	return d
}

func randomRow(r *rand.Rand, nFeat int) ([]int32, []float64) {
	var idx []int32
	var val []float64
	for j := 0; j < nFeat; j++ {
		if r.IntN(3) == 0 {
			idx = append(idx, int32(j))
			val = append(val, r.NormFloat64())
		}
	}
	return idx, val
}

func TestDecisionPredict(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	for _, c := range []struct {
		solver string
		nc     int
	}{
		{"L2R_L2LOSS_SVC_DUAL", 2}, {"L2R_LR", 3}, {"L2R_L1LOSS_SVC_DUAL", 1},
		{"MCSVM_CS", 2}, {"MCSVM_CS", 5}, {"MCSVM_WW", 2}, {"MCSVM_WW", 4},
		{"L2R_L1LOSS_SVC_DUAL", 63}, {"L2R_L1LOSS_SVC_DUAL", 64}, {"L2R_L1LOSS_SVC_DUAL", 65},
		{"L2R_L1LOSS_SVC_DUAL", 200}, {"L2R_L2LOSS_SVR", 2}, {"ONECLASS_SVM", 2},
	} {
		for _, bias := range []float64{-1, 1, 0.25} {
			const nFeat = 20
			m := randomModel(r, c.solver, c.nc, nFeat, bias)
			for k := range m.W { // tame the weights so that sums are meaningful
				m.W[k] = r.NormFloat64()
			}
			for trial := 0; trial < 50; trial++ {
				idx, val := randomRow(r, nFeat+5) // some features beyond NumFeature
				if trial%7 == 0 {
					idx = append(idx, -3, math.MaxInt32) // ignored as well
					val = append(val, 1, 1)
				}
				want := refDecision(m, idx, val)
				got := make([]float64, m.NrW+1)
				got[m.NrW] = 12345 // must stay untouched
				m.Decision(idx, val, got)
				for k := range want {
					if math.Float64bits(got[k]) != math.Float64bits(want[k]) {
						t.Fatalf("%s/%d: Decision[%d] = %v, want %v", c.solver, c.nc, k, got[k], want[k])
					}
				}
				if got[m.NrW] != 12345 {
					t.Fatal("Decision wrote past NrW")
				}
				// Expected prediction, liblinear's rules.
				var wantP float64
				switch {
				case c.solver == "L2R_L2LOSS_SVR":
					wantP = want[0]
				case c.solver == "ONECLASS_SVM":
					wantP = -1
					if want[0] > 0 {
						wantP = 1
					}
				case c.nc == 2 && c.solver != "MCSVM_WW":
					wantP = m.Labels[1]
					if want[0] > 0 {
						wantP = m.Labels[0]
					}
				default:
					best := 0
					for k := 1; k < len(want); k++ {
						if want[k] > want[best] {
							best = k
						}
					}
					wantP = m.Labels[best]
				}
				if got := m.Predict(idx, val); got != wantP {
					t.Fatalf("%s/%d: Predict = %v, want %v", c.solver, c.nc, got, wantP)
				}
			}
		}
	}
}

func TestPredictTies(t *testing.T) {
	// Binary: a decision value of exactly 0 gives the second label, as in
	// liblinear; multi-class ties go to the first maximum.
	m := &Model{SolverType: "L2R_LR", Labels: []float64{1, -1}, NumFeature: 1, Bias: -1, NrW: 1, W: []float64{0}}
	if p := m.Predict([]int32{0}, []float64{1}); p != -1 {
		t.Errorf("binary tie: %v, want -1", p)
	}
	m3 := &Model{SolverType: "L2R_LR", Labels: []float64{7, 8, 9}, NumFeature: 1, Bias: -1, NrW: 3, W: []float64{0, 1, 1}}
	if p := m3.Predict([]int32{0}, []float64{1}); p != 8 {
		t.Errorf("multi-class tie: %v, want 8", p)
	}
	if p := m3.Predict(nil, nil); p != 7 {
		t.Errorf("empty example: %v, want 7", p)
	}
	// A NaN feature value: no panic, liblinear's comparisons.
	if p := m3.Predict([]int32{0}, []float64{math.NaN()}); p != 7 {
		t.Errorf("NaN: %v, want 7", p)
	}
}

func TestProbability(t *testing.T) {
	bin := &Model{SolverType: "L2R_LR_DUAL", Labels: []float64{1, -1}, NumFeature: 2, Bias: 1, NrW: 1, W: []float64{0.5, -1, 0.25}}
	out := make([]float64, 2)
	if err := bin.Probability([]int32{0, 1}, []float64{2, 0.5}, out); err != nil {
		t.Fatal(err)
	}
	dec := 0.5*2 - 1*0.5 + 0.25
	p := 1 / (1 + math.Exp(-dec))
	if out[0] != p || out[1] != 1-p {
		t.Errorf("binary: %v, want [%v %v]", out, p, 1-p)
	}
	multi := &Model{SolverType: "L1R_LR", Labels: []float64{1, 2, 3}, NumFeature: 1, Bias: -1, NrW: 3, W: []float64{1, -1, 0}}
	out = make([]float64, 3)
	if err := multi.Probability([]int32{0}, []float64{2}, out); err != nil {
		t.Fatal(err)
	}
	s := []float64{1 / (1 + math.Exp(-2)), 1 / (1 + math.Exp(2)), 0.5}
	sum := s[0] + s[1] + s[2]
	for c := range s {
		if math.Abs(out[c]-s[c]/sum) > 1e-15 {
			t.Errorf("multi-class: %v, want %v normalised", out, s)
		}
	}
	one := &Model{SolverType: "L2R_LR", Labels: []float64{4}, NumFeature: 1, Bias: -1, NrW: 1, W: []float64{3}}
	if err := one.Probability([]int32{0}, []float64{1}, out); err != nil || out[0] != 1 {
		t.Errorf("one class: %v %v", out[0], err)
	}
	svm := &Model{SolverType: "L2R_L2LOSS_SVC_DUAL", Labels: []float64{1, -1}, NumFeature: 1, Bias: -1, NrW: 1, W: []float64{3}}
	if err := svm.Probability(nil, nil, out); err == nil || !strings.Contains(err.Error(), "logistic regression") {
		t.Errorf("SVM model: %v", err)
	}
	if err := multi.Probability(nil, nil, out[:2]); err == nil {
		t.Error("short out: no error")
	}
}

func TestIsClassifierNNZ(t *testing.T) {
	for _, g := range golden {
		want := g.m.Labels != nil
		if g.m.IsClassifier() != want {
			t.Errorf("%s: IsClassifier = %v", g.name, !want)
		}
	}
	m := golden[1].m // weights 1 0 -1e-5 1e17 123456.5 -0
	if n := m.NNZ(); n != 4 {
		t.Errorf("NNZ = %d, want 4", n)
	}
}

// TestConcurrentPredict: prediction from many goroutines at once
// gives the serial results (run with -race).
func TestConcurrentPredict(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	m := randomModel(r, "L2R_LR", 70, 30, 1) // 70 classes: two blocks in Predict
	for k := range m.W {
		m.W[k] = r.NormFloat64()
	}
	type ex struct {
		idx  []int32
		val  []float64
		want float64
		prob []float64
	}
	exs := make([]ex, 200)
	for i := range exs {
		exs[i].idx, exs[i].val = randomRow(r, 35)
		exs[i].want = m.Predict(exs[i].idx, exs[i].val)
		exs[i].prob = make([]float64, 70)
		m.Probability(exs[i].idx, exs[i].val, exs[i].prob)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out := make([]float64, 70)
			for rep := 0; rep < 20; rep++ {
				for i, e := range exs {
					if p := m.Predict(e.idx, e.val); p != e.want {
						errs <- fmt.Sprintf("example %d: %v, want %v", i, p, e.want)
						return
					}
					m.Probability(e.idx, e.val, out)
					for c := range out {
						if out[c] != e.prob[c] {
							errs <- fmt.Sprintf("example %d: probability differs", i)
							return
						}
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

func TestPredictNoAllocs(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	for _, nc := range []int{2, 3, 64, 300} {
		m := randomModel(r, "L2R_LR", nc, 50, 1)
		idx, val := randomRow(r, 50)
		out := make([]float64, nc)
		if a := testing.AllocsPerRun(100, func() {
			m.Predict(idx, val)
			m.Decision(idx, val, out)
			m.Probability(idx, val, out)
		}); a != 0 {
			t.Errorf("%d classes: %v allocations per prediction", nc, a)
		}
	}
}

func BenchmarkPredict(b *testing.B) {
	r := rand.New(rand.NewPCG(10, 10))
	const nFeat = 10000
	for _, nc := range []int{2, 10, 100} {
		m := randomModel(r, "L2R_L1LOSS_SVC_DUAL", nc, nFeat, 1)
		rows := make([]sparseRow, 64)
		for i := range rows {
			var idx []int32
			var val []float64
			for j := 0; j < nFeat; j += 1 + r.IntN(200) { // ~100 non-zeros
				idx = append(idx, int32(j))
				val = append(val, r.NormFloat64())
			}
			rows[i] = sparseRow{idx, val}
		}
		b.Run(fmt.Sprintf("classes=%d", nc), func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				row := rows[i%len(rows)]
				m.Predict(row.idx, row.val)
				i++
			}
		})
	}
}
