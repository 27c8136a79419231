package model

import (
	"bytes"
	"flag"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acfcd/acfcd/internal/testkit"
)

// Small real and broken model files with the message each gets (empty:
// valid). TestInputMessages checks them; TestFuzzSeeds keeps
// them as the seed corpus of FuzzReadModel.
var inputs = []struct{ name, text, want string }{
	{"valid-binary", "solver_type L2R_L2LOSS_SVC_DUAL\nnr_class 2\nlabel 1 -1\nnr_feature 2\nbias -1\nw\n0.5 \n-0.25 \n", ""},
	{"valid-crlf", "solver_type L2R_LR\r\nnr_class 2\r\nlabel 1 -1\r\nnr_feature 1\r\nbias 1\r\nw\r\n0.5 \r\n-0.25 \r\n", ""},
	{"valid-no-final-newline", "solver_type L2R_LR\nnr_class 2\nlabel 0 1\nnr_feature 1\nbias -1\nw\n0.5 ", ""},
	{"valid-header-any-order", "bias -1\nnr_feature 1\nnr_class 3\nsolver_type MCSVM_CS\nlabel 3 1 2\nw\n1 2 3\n", ""},
	{"valid-liblinear-2.11", "solver_type L2R_L1LOSS_SVC_DUAL\nnr_class 2\nlabel 1 -1\nnr_feature 1\nbias -1\nw\n0.1000000000000000\n", ""},
	{"valid-lasso", "solver_type LASSO\nnr_class 2\nnr_feature 2\nbias 1\nw\n0 \n1.5 \n-3 \n", ""},
	{"valid-oneclass", "solver_type ONECLASS_SVM\nnr_class 2\nnr_feature 1\nbias -1\nrho 0x1p-3\nw\n1\n", ""},
	{"nr-feature-1e12", "solver_type L2R_LR\nnr_class 2\nlabel 1 -1\nnr_feature 1000000000000\nbias -1\nw\n",
		`f:4: nr_feature "1000000000000" out of range [0, 2147483647]`},
	{"nr-feature-max-no-weights", "solver_type L2R_LR\nnr_class 2\nlabel 1 -1\nnr_feature 2147483647\nbias 1\nw\n",
		"f:7: unexpected end of file: 0 of 2147483648 weight rows"},
	{"nr-class-1e6-no-labels", "solver_type MCSVM_CS\nnr_class 1000000\nnr_feature 2147483647\nbias 1\nw\n",
		`f:5: missing label line before "w" (required for MCSVM_CS)`},
	{"nr-class-1e6-two-labels", "nr_class 1000000\nlabel 1 2\n", "f:2: 2 labels, nr_class is 1000000"},
	{"nr-class-1e12", "nr_class 1000000000000\n", `f:1: nr_class "1000000000000" out of range [1, 1000000]`},
	{"nr-class-0", "nr_class 0\n", `f:1: nr_class "0" out of range [1, 1000000]`},
	{"nr-feature-negative", "nr_feature -5\n", `f:1: nr_feature "-5" out of range [0, 2147483647]`},
	{"label-fraction", "nr_class 2\nlabel 1 0.5\n", `f:2: label "0.5" is not a 32-bit integer`},
	{"label-2147483648", "nr_class 2\nlabel 1 2147483648\n", `f:2: label "2147483648" is not a 32-bit integer`},
	{"bias-nan", "bias nan\n", `f:1: bias "nan": not finite`},
	{"bias-inf", "bias -Inf\n", `f:1: bias "-Inf": not finite`},
	{"weight-nan", "solver_type L2R_LR\nnr_class 2\nlabel 1 -1\nnr_feature 2\nbias -1\nw\n0.5 \nnan \n", `f:8: weight "nan": not finite`},
	{"weight-overflow", "solver_type L2R_LR\nnr_class 2\nlabel 1 -1\nnr_feature 1\nbias -1\nw\n1e999 \n", `f:7: weight "1e999": out of range`},
	{"truncated-weights", "solver_type L2R_LR\nnr_class 2\nlabel 1 -1\nnr_feature 3\nbias -1\nw\n0.5 \n0.2", "f:9: unexpected end of file: 2 of 3 weight rows"},
	{"too-many-weights", "solver_type L2R_LR\nnr_class 3\nlabel 1 2 3\nnr_feature 1\nbias -1\nw\n1 2 3 4\n", "f:7: weight row 1 has more than 3 values, want 3"},
	{"no-w-line", "solver_type L2R_LR\nnr_class 2\nlabel 1 -1\nnr_feature 1\nbias -1\n", `f:6: unexpected end of file in the header (no "w" line)`},
	{"duplicate-header", "solver_type L2R_LR\nnr_feature 1\nnr_feature 2\n", "f:3: duplicate nr_feature line"},
	{"rho-not-oneclass", "solver_type L2R_LR\nnr_class 2\nlabel 1 -1\nnr_feature 1\nbias -1\nrho 1\nw\n", "f:7: rho line not allowed for L2R_LR"},
	{"unknown-solver", "solver_type L3R_LR\n", `f:1: unknown solver_type "L3R_LR"`},
	{"binary-garbage", "\x7fELF\x02\x01\x01\x00\x00\x00\xff\n", `f:1: unknown header field "\x7fELF\x02\x01\x01\x00\x00\x00\xff"`},
	{"data-file", "1 1:0.5 3:2\n", `f:1: unknown header field "1"`},
}

func TestInputMessages(t *testing.T) {
	for _, in := range inputs {
		var err error
		if n := testkit.Allocated(func() { _, err = ReadModel(strings.NewReader(in.text), "f") }); n > 2<<20 {
			t.Errorf("%s: allocated %d bytes", in.name, n)
		}
		if got := fmt.Sprint(err); (err == nil) != (in.want == "") || (err != nil && got != in.want) {
			t.Errorf("%s:\n got  %v\n want %s", in.name, err, in.want)
		}
	}
}

// TestHugeLabelLine: a header with a million labels and no weights
// costs memory in proportion to the file (about 13× its size: the long
// line, the labels and their duplicate check), not to nr_class ×
// nr_feature.
func TestHugeLabelLine(t *testing.T) {
	var b bytes.Buffer
	b.WriteString("solver_type MCSVM_CS\nnr_class 1000000\nlabel")
	for i := 1; i <= 1000000; i++ {
		fmt.Fprintf(&b, " %d", i)
	}
	b.WriteString("\nnr_feature 2147483647\nbias 1\nw\n0 0 0\n")
	size := b.Len()
	var err error
	if n := testkit.Allocated(func() { _, err = ReadModel(&b, "f") }); n > uint64(16*size) {
		t.Errorf("a %d-byte model file allocated %d bytes", size, n)
	}
	if err == nil || err.Error() != "f:7: weight row 1 has 3 values, want 1000000" {
		t.Errorf("%v", err)
	}
}

var updateSeeds = flag.Bool("update-seeds", false, "rewrite testdata/fuzz/FuzzReadModel from the inputs")

// TestFuzzSeeds: testdata/fuzz/FuzzReadModel holds a seed for each of the
// inputs above (-update-seeds writes them), so that plain `go test` runs
// every one through FuzzReadModel.
func TestFuzzSeeds(t *testing.T) {
	seeds := map[string]string{}
	for _, in := range inputs {
		seeds[in.name] = fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", in.text)
	}
	testkit.Seeds(t, filepath.Join("testdata", "fuzz", "FuzzReadModel"), seeds, *updateSeeds)
}
