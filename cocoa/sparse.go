package cocoa

// Sparse is a sparse vector: Value[k] at Index[k], indices distinct.
type Sparse struct {
	Index []int32
	Value []float64
}

// AddTo adds s to the dense v.
func (s Sparse) AddTo(v []float64) {
	for k, j := range s.Index {
		v[j] += s.Value[k]
	}
}

// Bytes is the size of s on the wire: 4 bytes per index, 8 per value.
func (s Sparse) Bytes() int64 { return 12 * int64(len(s.Index)) }

// VectorBytes is what sending the dense v costs, sent as the cheaper of
// dense (8 bytes an entry) and sparse (12 bytes a non-zero).
func VectorBytes(v []float64) int64 {
	nz := int64(0)
	for _, x := range v {
		if x != 0 {
			nz++
		}
	}
	return min(8*int64(len(v)), 12*nz)
}
