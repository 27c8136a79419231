package fit

import (
	"fmt"
	"strings"
	"testing"

	dataio "github.com/acfcd/acfcd/io"
)

// TestDenseGuard: the guard lets through what the data justify or what
// MaxFeatures declares.
func TestDenseGuard(t *testing.T) {
	row := func(features, nnz int) *dataio.Dataset {
		d := &dataio.Dataset{Rows: 1, Features: features, RowPtr: []int64{0, int64(nnz)}, Label: []float64{1}}
		for k := 0; k < nnz; k++ {
			d.Index = append(d.Index, int32(features-nnz+k))
			d.Value = append(d.Value, 1)
		}
		return d
	}
	small := row(16<<20-1, 1) // 16 bytes per feature and the bias: 256 MiB, the floor
	if err := CheckDense(small, 16, "x", 0); err != nil {
		t.Errorf("at the floor: %v", err)
	}
	over := row(16<<20, 1)
	if err := CheckDense(over, 16, "x", 0); err == nil {
		t.Error("over the floor: no error")
	}
	over.MaxFeatures = 16 << 20
	if err := CheckDense(over, 16, "x", 0); err != nil {
		t.Errorf("declared by MaxFeatures: %v", err)
	}
	over.MaxFeatures = 16<<20 - 1
	if err := CheckDense(over, 16, "x", 0); err == nil {
		t.Error("MaxFeatures below the feature count: no error")
	}
	// 2^25 features need 512 MiB at 16 bytes each: refused next to 2^10
	// non-zeros, taken next to 12·2^20 (144 MiB of data, of which 4× is
	// more). CheckDense reads only the counts of a dataset it accepts.
	if err := CheckDense(row(1<<25, 1<<10), 16, "x", 0); err == nil {
		t.Error("2^25 features, 2^10 non-zeros: no error")
	}
	fake := &dataio.Dataset{Rows: 1, Features: 1 << 25, RowPtr: []int64{0, 12 << 20}, Value: []float64{}}
	if err := CheckDense(fake, 16, "x", 0); err != nil {
		t.Errorf("2^25 features, 12·2^20 non-zeros: %v", err)
	}
	if err := CheckDense(row(1<<25, 1), 8*DenseVectors(50), "training", 50); err == nil ||
		!strings.Contains(err.Error(), "classes") || !strings.Contains(err.Error(), "the LASSO fits them") {
		t.Errorf("many classes: %v", err)
	}
}

// TestClasses: liblinear's group_classes orders the classes by first
// appearance, a two-class problem of -1 then +1 swapped to +1, -1.
func TestClasses(t *testing.T) {
	// liblinear's group_classes: order of first appearance, -1/+1 swapped.
	cases := []struct {
		labels []float64
		want   []float64
	}{
		{[]float64{-1, 1, 1, -1}, []float64{1, -1}},
		{[]float64{1, -1, -1}, []float64{1, -1}},
		{[]float64{0, 1, 0}, []float64{0, 1}},
		{[]float64{2, 1, 1}, []float64{2, 1}},
		{[]float64{-1, 2}, []float64{-1, 2}},
		{[]float64{3, -1, 1, 3}, []float64{3, -1, 1}},
		{[]float64{-1, 1, 2}, []float64{-1, 1, 2}},
	}
	for _, c := range cases {
		got, cls, err := Classes(c.labels)
		if err != nil || fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("Classes(%v) = %v, %v; want %v", c.labels, got, err, c.want)
			continue
		}
		for i, k := range cls {
			if got[k] != c.labels[i] {
				t.Errorf("Classes(%v): example %d in class %v", c.labels, i, got[k])
			}
		}
	}
}
