package model_test

import (
	"fmt"
	"log"
	"strings"

	"github.com/acfcd/acfcd/model"
)

func ExampleReadModel() {
	// A two-class model over three features, as liblinear-train writes it
	// (without the space liblinear leaves after each weight).
	const text = `solver_type L2R_L2LOSS_SVC_DUAL
nr_class 2
label 1 -1
nr_feature 3
bias -1
w
0.5
-0.25
0.125
`
	m, err := model.ReadModel(strings.NewReader(text), "example.model")
	if err != nil {
		log.Fatal(err)
	}
	// Examples are sparse rows with 0-based feature indices:
	// x = (2, 0, 1) gives 0.5·2 + 0.125·1 > 0, label 1;
	// x = (0, 4, 0) gives −0.25·4 < 0, label −1.
	fmt.Println(m.Predict([]int32{0, 2}, []float64{2, 1}))
	fmt.Println(m.Predict([]int32{1}, []float64{4}))
	// Output:
	// 1
	// -1
}

func ExampleModel_Probability() {
	m := &model.Model{
		SolverType: "L2R_LR", Labels: []float64{1, -1},
		NumFeature: 1, Bias: 1, NrW: 1, W: []float64{2, -1}, // w·x = 2·x₀ − 1
	}
	p := make([]float64, len(m.Labels))
	if err := m.Probability([]int32{0}, []float64{1}, p); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("P(1) = %.2f, P(-1) = %.2f\n", p[0], p[1])
	// Output: P(1) = 0.73, P(-1) = 0.27
}

func ExampleSolverTypes() {
	for _, s := range model.SolverTypes() {
		since := s.Since
		if !s.Liblinear() {
			since = "acfcd only"
		}
		fmt.Printf("-s %-5s %-19s %-10s %s\n", s.Flag, s.Name, s.Kind, since)
	}
	// Output:
	// -s 0     L2R_LR              classifier 1.4
	// -s 1     L2R_L2LOSS_SVC_DUAL classifier 1.4
	// -s 2     L2R_L2LOSS_SVC      classifier 1.4
	// -s 3     L2R_L1LOSS_SVC_DUAL classifier 1.4
	// -s 4     MCSVM_CS            classifier 1.34
	// -s 5     L1R_L2LOSS_SVC      classifier 1.4
	// -s 6     L1R_LR              classifier 1.4
	// -s 7     L2R_LR_DUAL         classifier 1.7
	// -s 11    L2R_L2LOSS_SVR      regression 1.9
	// -s 12    L2R_L2LOSS_SVR_DUAL regression 1.9
	// -s 13    L2R_L1LOSS_SVR_DUAL regression 1.9
	// -s 21    ONECLASS_SVM        one-class  2.40
	// -s ww    MCSVM_WW            classifier acfcd only
	// -s lasso LASSO               regression acfcd only
}

func ExampleSolverTypeByFlag() {
	s, ok := model.SolverTypeByFlag("7")
	fmt.Println(s.Name, s.Kind, s.Probabilistic, ok)
	// Output: L2R_LR_DUAL classifier true true
}
