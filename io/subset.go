package dataio

import "fmt"

// Subset returns a new dataset holding the given rows of d, in that order,
// with d's feature count and MaxFeatures. The arrays are copied; d is
// unchanged. Where locates the subset's rows in d's file. A row number
// outside [0, Rows) is the caller's bug: Subset panics naming it, before
// it allocates anything.
func (d *Dataset) Subset(rows []int) *Dataset {
	var nnz int64
	for k, i := range rows {
		if uint(i) >= uint(d.Rows) {
			panic(fmt.Sprintf("dataio: Dataset.Subset: rows[%d] = %d is out of range [0, %d)", k, i, d.Rows))
		}
		nnz += d.RowPtr[i+1] - d.RowPtr[i]
	}
	s := &Dataset{Rows: len(rows), Features: d.Features, Source: d.Source, MaxFeatures: d.MaxFeatures,
		RowPtr: make([]int64, len(rows)+1), Index: make([]int32, 0, nnz),
		Label: make([]float64, len(rows))}
	if d.locate != nil {
		// Rows are located in d's file: keep the map back to d's rows.
		loc, orig := d.locate, append([]int(nil), rows...)
		s.locate = func(row int) (int, bool) {
			if row < 0 || row >= len(orig) {
				return 0, false
			}
			return loc(orig[row])
		}
	}
	if d.Value != nil {
		s.Value = make([]float64, 0, nnz)
	} else {
		s.Value32 = make([]float32, 0, nnz)
	}
	if d.QID != nil {
		s.QID = make([]int64, len(rows))
	}
	for k, i := range rows {
		a, b := d.RowPtr[i], d.RowPtr[i+1]
		s.Index = append(s.Index, d.Index[a:b]...)
		if d.Value != nil {
			s.Value = append(s.Value, d.Value[a:b]...)
		} else {
			s.Value32 = append(s.Value32, d.Value32[a:b]...)
		}
		s.RowPtr[k+1] = int64(len(s.Index))
		s.Label[k] = d.Label[i]
		if d.QID != nil {
			s.QID[k] = d.QID[i]
		}
	}
	return s
}
