package dataio

import (
	"fmt"
	"testing"

	"github.com/acfcd/acfcd/internal/testkit"
)

// rowData is three rows, the middle one empty, with float64 values and
// (second result) the same values as float32.
func rowData() (d64, d32 *Dataset) {
	d64 = &Dataset{Rows: 3, Features: 4, RowPtr: []int64{0, 2, 2, 5}, Index: []int32{0, 3, 1, 2, 3},
		Value: []float64{0.5, -1.25, 3, 1e-3, 7}, Label: []float64{1, -1, 1}}
	c := *d64
	c.Value, c.Value32 = nil, []float32{0.5, -1.25, 3, 1e-3, 7}
	return d64, &c
}

// TestRowAccess: RowTo reads float32 rows as float64 without allocating
// per row; Row and RowTo say which row is out of range and Row why it
// cannot read float32 data; Subset names the bad entry of rows.
func TestRowAccess(t *testing.T) {
	d64, d32 := rowData()
	var buf []float64
	for i := range d32.Rows {
		idx, val := d32.RowTo(i, buf)
		buf = val
		widx, wval := d64.Row(i)
		if fmt.Sprint(idx) != fmt.Sprint(widx) || len(val) != len(wval) {
			t.Fatalf("row %d: %v %v, want %v", i, idx, val, widx)
		}
		for k := range val {
			if val[k] != float64(d32.Value32[d32.RowPtr[i]+int64(k)]) {
				t.Errorf("row %d: value %d is %v", i, k, val[k])
			}
		}
		if idx64, val64 := d64.RowTo(i, nil); fmt.Sprint(idx64, val64) != fmt.Sprint(widx, wval) {
			t.Errorf("float64 row %d: RowTo %v %v, Row %v %v", i, idx64, val64, widx, wval)
		}
	}
	buf = make([]float64, 0, 3)
	if a := testing.AllocsPerRun(100, func() {
		for i := range d32.Rows {
			_, buf = d32.RowTo(i, buf)
		}
	}); a != 0 {
		t.Errorf("RowTo: %v allocations per pass", a)
	}
	for _, c := range []struct {
		name string
		f    func()
		want string
	}{
		{"Row(3)", func() { d64.Row(3) }, "dataio: Dataset.Row: row 3 out of range [0, 3)"},
		{"Row(-1)", func() { d64.Row(-1) }, "dataio: Dataset.Row: row -1 out of range [0, 3)"},
		{"float32 Row(0)", func() { d32.Row(0) }, "dataio: Dataset.Row: row 0: the dataset holds float32 values; use RowTo"},
		{"RowTo(5)", func() { d32.RowTo(5, nil) }, "dataio: Dataset.RowTo: row 5 out of range [0, 3)"},
		{"Subset", func() { d64.Subset([]int{2, 0, 3}) }, "dataio: Dataset.Subset: rows[2] = 3 is out of range [0, 3)"},
		{"Subset negative", func() { d32.Subset([]int{-1}) }, "dataio: Dataset.Subset: rows[0] = -1 is out of range [0, 3)"},
	} {
		if got := testkit.PanicText(c.f); got != c.want {
			t.Errorf("%s: panic %q\nwant %q", c.name, got, c.want)
		}
	}
	if s := d32.Subset([]int{2, 0}); s.Rows != 2 || len(s.Value32) != 5 {
		t.Errorf("Subset: %+v", s)
	}
}
