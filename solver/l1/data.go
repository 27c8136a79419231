// Package l1 is liblinear's L1-regularised classifiers by primal
// coordinate descent over features, the family of the LASSO (package
// lasso): for labels y_i = ±1 and costs C_i,
//
//	min_w F(w) = ‖w‖₁ + Σ_i C_i·ℓ(y_i wᵀx_i),
//
// with the squared hinge ℓ(z) = max(0, 1 − z)² (-s 5, L1R_L2LOSS_SVC: SVC)
// or the logistic loss ℓ(z) = log(1 + e^−z) (-s 6, L1R_LR: LR). With an
// unregularised bias (liblinear's -R) the bias weight has no |w_b| term.
//
// Optimality. F is convex, and w is optimal when the minimum-norm
// subgradient vanishes: with g_j = ∂L/∂w_j of the loss part L,
//
//	|g_j + sign w_j|          for w_j ≠ 0,
//	max(0, |g_j| − 1)         for w_j = 0,
//	|g_j|                     for the unregularised bias,
//
// is the violation of feature j. liblinear stops when the sum of these
// (‖∇^S F(w)‖₁) is at most eps·max(min(pos, neg), 1)/ℓ times its value at
// w = 0, for ℓ examples of which pos are positive and neg negative (-s 5
// takes that value from its first sweep, as liblinear); both problems
// here measure the sum exactly at the w they return: SVC by its full
// pass, LR at every outer iteration.
//
// Both problems keep each subproblem's values signed, v_ij = y_i·x_ij, so
// that the margins y_i wᵀx_i are sums over the columns of v. Their steps
// report the exact decrease of their objective (F, or for LR's inner
// problem its quadratic model) as gains, and ACF adapts to each gain per
// non-zero read (solver.StepCoster), since a step's cost is its column's
// length.
package l1

import (
	"math"

	dataio "github.com/acfcd/acfcd/io"
)

// Data is the column-wise data of a classification problem, shared
// read-only by its subproblems. Its coordinates are the features with a
// stored entry, in order, and with a bias B > 0 last an extra feature of
// value B in every row; coordinate k's entries are [starts[k],
// starts[k+1]) of rowIdx and val.
type Data struct {
	rows, nf int     // examples; features, the bias feature included
	bias     float64 // > 0: the bias value
	cols     []int32 // coordinate → feature
	starts   []int64 // len(cols)+1
	rowIdx   []int32
	val      []float64
}

// NewData builds the column view of d with a bias feature of value bias
// if bias > 0 (the CSC view's arrays, copied only to append the bias
// column). The caller has checked the data.
func NewData(d *dataio.Dataset, bias float64) *Data {
	c := d.CSC()
	dt := &Data{rows: d.Rows, nf: d.Features, rowIdx: c.RowIndex, val: c.Value}
	m := c.ColPtr[d.Features]
	if bias > 0 {
		dt.bias = bias
		dt.nf++
		dt.rowIdx = make([]int32, m+int64(d.Rows))
		dt.val = make([]float64, m+int64(d.Rows))
		copy(dt.rowIdx, c.RowIndex)
		copy(dt.val, c.Value)
		for i := range d.Rows {
			dt.rowIdx[m+int64(i)] = int32(i)
			dt.val[m+int64(i)] = bias
		}
	}
	for j := 0; j < d.Features; j++ {
		if c.ColPtr[j+1] > c.ColPtr[j] {
			dt.cols = append(dt.cols, int32(j))
			dt.starts = append(dt.starts, c.ColPtr[j])
		}
	}
	if bias > 0 && d.Rows > 0 {
		dt.cols = append(dt.cols, int32(d.Features))
		dt.starts = append(dt.starts, m)
	}
	dt.starts = append(dt.starts, int64(len(dt.rowIdx)))
	return dt
}

// Rows is the number of examples.
func (dt *Data) Rows() int { return dt.rows }

// Features is the number of weights: the features and the bias.
func (dt *Data) Features() int { return dt.nf }

// Work is the non-zeros of a sweep (solver.Config.Work).
func (dt *Data) Work() int64 { return 2 * int64(len(dt.rowIdx)) }

// colLen is the number of stored entries of coordinate k.
func (dt *Data) colLen(k int) int { return int(dt.starts[k+1] - dt.starts[k]) }

// gainScale fills scale[q] with the mean cost of a step over coordinates
// ks (all of them if nil) divided by the cost of a step on the q-th, a
// step costing its column's non-zeros plus extra (solver.StepCoster).
func (dt *Data) gainScale(scale []float64, ks []int32, extra int) []float64 {
	n := len(dt.cols)
	if ks != nil {
		n = len(ks)
	}
	scale = scale[:n]
	var total float64
	for q := range scale {
		k := q
		if ks != nil {
			k = int(ks[q])
		}
		c := float64(dt.colLen(k) + extra)
		scale[q] = c
		total += c
	}
	mean := total / float64(max(n, 1))
	for q, c := range scale {
		scale[q] = mean / c
	}
	return scale
}

// sub is the state every subproblem shares: its signed values and costs.
type sub struct {
	*Data
	v      []float64 // y_i·x_ij, as val
	cp, cn float64   // costs of the positive and negative examples
	cost   []float64 // C_i per example, nil when cp = cn
	neg    []bool    // y_i = −1
	pos    int       // positive examples
	free   int32     // the coordinate of the unregularised bias, or −1
	wf     []float64 // the weights per feature, for W

	init, tol float64 // ‖∇^S F(0)‖₁ and the tolerance on ‖∇^S F(w)‖₁

	Ops int64 // non-zeros read or written
}

func newSub(dt *Data, unreg bool) sub {
	s := sub{Data: dt, v: make([]float64, len(dt.val)), neg: make([]bool, dt.rows), free: -1, wf: make([]float64, dt.nf)}
	if unreg && dt.bias > 0 && len(dt.cols) > 0 {
		s.free = int32(len(dt.cols) - 1)
	}
	return s
}

// reset sets the subproblem: example i is positive when label[i] == pos,
// with cost cp, else negative with cost cn.
func (s *sub) reset(label []float64, pos, cp, cn float64) {
	s.cp, s.cn = cp, cn
	s.pos = 0
	for i, y := range label {
		s.neg[i] = y != pos
		if !s.neg[i] {
			s.pos++
		}
	}
	if cp != cn {
		if s.cost == nil {
			s.cost = make([]float64, s.rows)
		}
		for i, n := range s.neg {
			s.cost[i] = cp
			if n {
				s.cost[i] = cn
			}
		}
	} else {
		s.cost = nil
	}
	for e, i := range s.rowIdx {
		x := s.val[e]
		if s.neg[i] {
			x = -x
		}
		s.v[e] = x
	}
}

// c returns C_i.
func (s *sub) c(i int) float64 {
	if s.cost != nil {
		return s.cost[i]
	}
	return s.cp
}

// column returns the rows and signed values of coordinate k.
func (s *sub) column(k int32) ([]int32, []float64) {
	a, b := s.starts[k], s.starts[k+1]
	return s.rowIdx[a:b:b], s.v[a:b:b]
}

// span returns the rows and signed values of the entries [a, b).
func (s *sub) span(a, b int64) ([]int32, []float64) {
	return s.rowIdx[a:b:b], s.v[a:b:b]
}

// TolScale is liblinear's factor of the stopping rule, max(min(pos, neg),
// 1)/ℓ: eps times it times ‖∇^S F(0)‖₁ is the tolerance on ‖∇^S F(w)‖₁.
func (s *sub) TolScale() float64 {
	return float64(max(min(s.pos, s.rows-s.pos), 1)) / float64(s.rows)
}

// Relative returns ‖∇^S F‖₁ = v in the units of eps: v/(‖∇^S F(0)‖₁·
// TolScale), at most eps when the stopping rule holds (0 when w = 0 is
// optimal).
func (s *sub) Relative(v float64) float64 {
	if s.init == 0 {
		return 0
	}
	return v / (s.init * s.TolScale())
}

// Init is ‖∇^S F(0)‖₁.
func (s *sub) Init() float64 { return s.init }

// features returns the weights w of the coordinates per feature (the
// bias last); the slice is reused by the next call.
func (s *sub) features(w func(k int) float64) []float64 {
	clear(s.wf)
	for k, j := range s.cols {
		s.wf[j] = w(k)
	}
	return s.wf
}

// violation is the minimum-norm subgradient's |component| of a weight w
// with loss gradient g; free is true for the unregularised bias.
func violation(w, g float64, free bool) float64 {
	switch {
	case free:
		return math.Abs(g)
	case w > 0:
		return math.Abs(g + 1)
	case w < 0:
		return math.Abs(g - 1)
	}
	return max(0, math.Abs(g)-1)
}

// shrinkable reports whether a weight at 0 with loss gradient g is deep
// enough inside [−1, 1] to leave the active set, as liblinear's
// shrinking: |g| < 1 − M/ℓ, M the largest violation of the last sweep
// (th.Max; +Inf before there is one).
func shrinkable(g, m float64, rows int) bool {
	if math.IsInf(m, 1) {
		return false
	}
	b := m / float64(rows)
	return g+1 > b && g-1 < -b
}

// farH is the second derivative of a coordinate beyond which liblinear's
// cut of steps |d| < 1e-12 is taken on d·√(h/farH) instead: there the cut
// drops the steps of gradients up to 10⁶, and at values of 1e20 (weights
// about 1/x) every step, leaving -s 5 and 6 at w = 0.
const farH = 0x1p60

// farStep reports whether a step d on a coordinate of second derivative h,
// below liblinear's cut, is to be taken all the same (see farH).
func farStep(d, h float64) bool {
	return h > farH && !(math.Abs(float64(d*math.Sqrt(h/farH))) < 1e-12)
}
