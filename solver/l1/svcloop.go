package l1

import "math"

// The loops of SVC over a column, the time of -s 5. Each runs in one of
// two forms: without a branch on the sign of b_i, which is a coin flip
// where many examples are inside the margin, and with one, which skips
// the examples outside the margin (b_i ≤ 0) and is predicted well where
// most are (SVC.fewInside, chosen after every batch; the same results).

// grad returns the loss's first and generalised second derivative along
// the coordinate whose column is idx, val.
func (s *SVC) grad(idx []int32, val []float64) (g, h float64) {
	b := s.b
	val = val[:len(idx)] // one bounds check for the loops' val[k]
	s.Ops += int64(len(idx))
	switch {
	case s.cost != nil:
		for k, i := range idx {
			bi := b[i]
			t := float64(s.cost[i] * val[k])
			g += float64(t * pos(bi))
			h += float64(float64(t*val[k]) * posMask(bi))
		}
		return -2 * g, 2 * h
	case s.fewInside:
		for k, i := range idx {
			if bi := b[i]; bi > 0 {
				x := val[k]
				g += float64(x * bi)
				h += float64(x * x)
			}
		}
	default:
		for k, i := range idx {
			bi := b[i]
			x := val[k]
			m := posBits(bi)
			g += float64(x * math.Float64frombits(math.Float64bits(bi)&m))
			h += float64(float64(x*x) * math.Float64frombits(0x3ff0000000000000&m))
		}
	}
	return -2 * s.cp * g, 2 * s.cp * h
}

// slope returns the loss's first derivative along a column, without
// the second (a weight at 0 whose |g| ≤ 1 takes no step).
func (s *SVC) slope(idx []int32, val []float64) float64 {
	b := s.b
	val = val[:len(idx)] // one bounds check for the loops' val[k]
	s.Ops += int64(len(idx))
	var g float64
	switch {
	case s.cost != nil:
		for k, i := range idx {
			g += float64(float64(s.cost[i]*val[k]) * pos(b[i]))
		}
		return -2 * g
	case s.fewInside:
		for k, i := range idx {
			if bi := b[i]; bi > 0 {
				g += float64(val[k] * bi)
			}
		}
	default:
		for k, i := range idx {
			g += float64(val[k] * pos(b[i]))
		}
	}
	return -2 * s.cp * g
}

// curvature returns the generalised second derivative along a column.
func (s *SVC) curvature(idx []int32, val []float64) float64 {
	b := s.b
	val = val[:len(idx)] // one bounds check for the loops' val[k]
	s.Ops += int64(len(idx))
	var h float64
	switch {
	case s.cost != nil:
		for k, i := range idx {
			x := val[k]
			h += float64(float64(float64(s.cost[i]*x)*x) * posMask(b[i]))
		}
		return 2 * h
	case s.fewInside:
		for k, i := range idx {
			if b[i] > 0 {
				x := val[k]
				h += float64(x * x)
			}
		}
	default:
		for k, i := range idx {
			x := val[k]
			h += float64(float64(x*x) * posMask(b[i]))
		}
	}
	return 2 * s.cp * h
}

// move adds d to w_j: b −= d·v_j. It returns the change of the loss
// Σ C_i (max(0, b_i)² − max(0, b_i_old)²), each term a product (no
// cancellation of two squares).
func (s *SVC) move(idx []int32, val []float64, d float64) float64 {
	b := s.b
	val = val[:len(idx)] // one bounds check for the loops' val[k]
	s.Ops += int64(len(idx))
	var dl float64
	switch {
	case s.cost != nil:
		for k, i := range idx {
			bo := b[i]
			bn := bo - float64(d*val[k])
			b[i] = bn
			po, pn := pos(bo), pos(bn)
			dl += float64(s.cost[i] * float64((pn-po)*(pn+po)))
		}
		return dl
	case s.fewInside:
		for k, i := range idx {
			bo := b[i]
			bn := bo - float64(d*val[k])
			b[i] = bn
			if bo > 0 || bn > 0 {
				po, pn := pos(bo), pos(bn)
				dl += float64((pn - po) * (pn + po))
			}
		}
	default:
		for k, i := range idx {
			bo := b[i]
			bn := bo - float64(d*val[k])
			b[i] = bn
			po, pn := pos(bo), pos(bn)
			dl += float64((pn - po) * (pn + po))
		}
	}
	return s.cp * dl
}

// pos is max(0, x) for a number x (+0 for x ≤ 0).
func pos(x float64) float64 {
	return math.Float64frombits(math.Float64bits(x) & posBits(x))
}

// posMask is 1 for x > 0 and 0 otherwise.
func posMask(x float64) float64 {
	return math.Float64frombits(0x3ff0000000000000 & posBits(x))
}

// posBits is all ones for x > 0 and zero otherwise (±0 included): the
// sign bit of 0 − x, which is +0 for x = ±0.
func posBits(x float64) uint64 {
	return uint64(int64(math.Float64bits(0-x)) >> 63)
}

// inside counts the examples inside the margin, b_i > 0.
func (s *SVC) inside() int {
	n := 0
	for _, bi := range s.b {
		if bi > 0 {
			n++
		}
	}
	return n
}
