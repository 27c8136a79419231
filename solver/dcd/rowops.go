package dcd

import "github.com/acfcd/acfcd/kernel"

// Dot returns vᵀx_i, the bias feature included, adding the non-zeros read
// to *ops.
func (sh *Data) Dot(i int32, v []float64, ops *int64) float64 {
	a, b := sh.RP[i], sh.RP[i+1]
	*ops += b - a
	var s float64
	if sh.Val32 == nil {
		s = kernel.Dot(sh.Idx[a:b:b], sh.Val[a:b:b], v)
	} else {
		s = kernel.Dot32(sh.Idx[a:b:b], sh.Val32[a:b:b], v)
	}
	return s + float64(sh.Bias*v[sh.NF])
}

// Axpy does v += c·x_i, the bias feature included, adding the non-zeros
// to *ops.
func (sh *Data) Axpy(c float64, i int32, v []float64, ops *int64) {
	a, b := sh.RP[i], sh.RP[i+1]
	*ops += b - a
	if sh.Val32 == nil {
		kernel.Axpy(c, sh.Idx[a:b:b], sh.Val[a:b:b], v)
	} else {
		kernel.Axpy32(c, sh.Idx[a:b:b], sh.Val32[a:b:b], v)
	}
	v[sh.NF] += float64(c * sh.Bias)
}

// rowDot returns x_iᵀx_j, the bias feature included, by merging the two
// rows' sorted indices, adding the non-zeros read to *ops.
func (sh *Data) rowDot(i, j int32, ops *int64) float64 {
	a, ae := sh.RP[i], sh.RP[i+1]
	b, be := sh.RP[j], sh.RP[j+1]
	*ops += ae - a + be - b
	var s float64
	for a < ae && b < be {
		ia, ib := sh.Idx[a], sh.Idx[b]
		switch {
		case ia < ib:
			a++
		case ia > ib:
			b++
		default:
			s += float64(sh.Value(a) * sh.Value(b))
			a++
			b++
		}
	}
	return s + float64(sh.Bias*sh.Bias)
}
