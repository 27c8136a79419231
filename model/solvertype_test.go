package model

import (
	"strconv"
	"testing"
)

// liblinearTable is solver_type_table of liblinear 2.50's linear.cpp: the
// index is the -s number, "" marks unused numbers.
var liblinearTable = []string{
	"L2R_LR", "L2R_L2LOSS_SVC_DUAL", "L2R_L2LOSS_SVC", "L2R_L1LOSS_SVC_DUAL", "MCSVM_CS",
	"L1R_L2LOSS_SVC", "L1R_LR", "L2R_LR_DUAL",
	"", "", "",
	"L2R_L2LOSS_SVR", "L2R_L2LOSS_SVR_DUAL", "L2R_L1LOSS_SVR_DUAL",
	"", "", "", "", "", "", "",
	"ONECLASS_SVM",
}

func TestSolverTypeTable(t *testing.T) {
	all := SolverTypes()
	if len(all) != 14 {
		t.Fatalf("%d solver types, want 14", len(all))
	}
	names, flags := map[string]bool{}, map[string]bool{}
	for _, s := range all {
		if names[s.Name] || flags[s.Flag] {
			t.Errorf("%s (-s %s): name or flag listed twice", s.Name, s.Flag)
		}
		names[s.Name], flags[s.Flag] = true, true
		if got, ok := LookupSolverType(s.Name); !ok || got != s {
			t.Errorf("LookupSolverType(%q) = %+v, %v", s.Name, got, ok)
		}
		if got, ok := SolverTypeByFlag(s.Flag); !ok || got != s {
			t.Errorf("SolverTypeByFlag(%q) = %+v, %v", s.Flag, got, ok)
		}
		if s.Probabilistic && s.Kind != Classifier || s.PerClass && s.Kind != Classifier {
			t.Errorf("%s: Probabilistic or PerClass on a %s", s.Name, s.Kind)
		}
		if s.Liblinear() != (s.Since != "") {
			t.Errorf("%s: Liblinear() = %v with Since %q", s.Name, s.Liblinear(), s.Since)
		}
	}
	// liblinear's types carry liblinear's numbers; acfcd's own its CLI names.
	n := 0
	for code, name := range liblinearTable {
		if name == "" {
			continue
		}
		n++
		s, ok := LookupSolverType(name)
		if !ok || s.Flag != strconv.Itoa(code) || !s.Liblinear() {
			t.Errorf("%s: %+v, want -s %d, known to liblinear", name, s, code)
		}
	}
	if n != 12 {
		t.Fatalf("liblinear table has %d names", n)
	}
	for name, flag := range map[string]string{"MCSVM_WW": "ww", "LASSO": "lasso"} {
		s, ok := LookupSolverType(name)
		if !ok || s.Flag != flag || s.Liblinear() {
			t.Errorf("%s: %+v, want -s %s, unknown to liblinear", name, s, flag)
		}
	}
	for _, name := range []string{"", "l2r_lr", "L2R_LR ", "MCSVM", "Classifier"} {
		if s, ok := LookupSolverType(name); ok {
			t.Errorf("LookupSolverType(%q) = %+v", name, s)
		}
	}
	for _, flag := range []string{"", "01", "8", "21 ", "WW", "Lasso", "L2R_LR"} {
		if s, ok := SolverTypeByFlag(flag); ok {
			t.Errorf("SolverTypeByFlag(%q) = %+v", flag, s)
		}
	}
	// What each predicts, and which keep per-class vectors.
	for name, want := range map[string]Kind{
		"L2R_LR": Classifier, "MCSVM_WW": Classifier, "L2R_L1LOSS_SVR_DUAL": Regression,
		"LASSO": Regression, "ONECLASS_SVM": OneClass,
	} {
		if s, _ := LookupSolverType(name); s.Kind != want {
			t.Errorf("%s: Kind %v, want %v", name, s.Kind, want)
		}
	}
	for _, s := range all {
		wantProb := s.Name == "L2R_LR" || s.Name == "L1R_LR" || s.Name == "L2R_LR_DUAL"
		wantPer := s.Name == "MCSVM_CS" || s.Name == "MCSVM_WW"
		if s.Probabilistic != wantProb || s.PerClass != wantPer {
			t.Errorf("%s: Probabilistic %v, PerClass %v", s.Name, s.Probabilistic, s.PerClass)
		}
	}
}

// TestSolverTypesCopy: callers cannot change the table.
func TestSolverTypesCopy(t *testing.T) {
	a := SolverTypes()
	a[0].Name, a[0].Probabilistic = "CHANGED", false
	if s, ok := LookupSolverType("L2R_LR"); !ok || !s.Probabilistic || SolverTypes()[0].Name != "L2R_LR" {
		t.Fatal("SolverTypes returned the table itself")
	}
}

func TestWeightVectors(t *testing.T) {
	for _, c := range []struct {
		name    string
		nc, nrw int
	}{
		{"L2R_LR", 1, 1}, {"L2R_LR", 2, 1}, {"L2R_LR", 3, 3}, {"MCSVM_CS", 2, 2}, {"MCSVM_WW", 2, 2},
		{"MCSVM_WW", 5, 5}, {"L2R_L2LOSS_SVR", 2, 1}, {"LASSO", 2, 1}, {"ONECLASS_SVM", 2, 1},
	} {
		s, _ := LookupSolverType(c.name)
		if got := s.WeightVectors(c.nc); got != c.nrw {
			t.Errorf("%s, %d classes: %d weight vectors, want %d", c.name, c.nc, got, c.nrw)
		}
	}
}

func TestKindString(t *testing.T) {
	for k, want := range map[Kind]string{Classifier: "classifier", Regression: "regression", OneClass: "one-class", 7: "Kind(7)"} {
		if k.String() != want {
			t.Errorf("%d: %q, want %q", k, k.String(), want)
		}
	}
}
