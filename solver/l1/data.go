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
// w = 0, for ℓ examples of which pos are positive and neg negative; this
// package certifies that rule by a full pass at the returned w (Tol).
//
// Both problems keep each subproblem's values signed, v_ij = y_i·x_ij, so
// that the margins y_i wᵀx_i are sums over the columns of v.
package l1

import (
	"math"

	dataio "github.com/acfcd/acfcd/io"
)

// Data is the column-wise data of a classification problem, shared
// read-only by its subproblems: the CSC view of the features and, with a
// bias B > 0, an extra last feature of value B in every row.
type Data struct {
	csc      *dataio.CSC
	rows, nf int     // examples; features, the bias feature included
	bias     float64 // > 0: feature nf−1 is the bias
	nnz      int64   // stored entries, the bias column included
	cols     []int32 // the coordinates: features with a stored entry
}

// NewData builds the column view of d with a bias feature of value bias
// if bias > 0. The caller has checked the data.
func NewData(d *dataio.Dataset, bias float64) *Data {
	c := d.CSC()
	dt := &Data{csc: c, rows: d.Rows, nf: d.Features, nnz: c.ColPtr[d.Features]}
	if bias > 0 {
		dt.bias = bias
		dt.nf++
		dt.nnz += int64(d.Rows)
	}
	dt.cols = make([]int32, 0, dt.nf)
	for j := 0; j < d.Features; j++ {
		if c.ColPtr[j+1] > c.ColPtr[j] {
			dt.cols = append(dt.cols, int32(j))
		}
	}
	if bias > 0 && d.Rows > 0 {
		dt.cols = append(dt.cols, int32(d.Features))
	}
	return dt
}

// Rows is the number of examples.
func (dt *Data) Rows() int { return dt.rows }

// Features is the number of weights: the features and the bias.
func (dt *Data) Features() int { return dt.nf }

// Work is the non-zeros of a sweep (solver.Config.Work).
func (dt *Data) Work() int64 { return 2 * dt.nnz }

// gainScale fills scale[k] with the mean cost of a step over coordinates
// cols divided by the cost of a step on cols[k], a step costing its
// column's non-zeros plus extra (solver.StepCoster).
func (dt *Data) gainScale(scale []float64, cols []int32, extra int) []float64 {
	scale = scale[:len(cols)]
	var total float64
	for k, j := range cols {
		c := float64(dt.colLen(j) + extra)
		scale[k] = c
		total += c
	}
	mean := total / float64(max(len(cols), 1))
	for k, c := range scale {
		scale[k] = mean / c
	}
	return scale
}

// colLen is the number of stored entries of feature j.
func (dt *Data) colLen(j int32) int {
	c := dt.csc
	if int(j) == c.Features {
		return dt.rows
	}
	return int(c.ColPtr[j+1] - c.ColPtr[j])
}

// sub is the state every subproblem shares: its signed values, costs and
// weights.
type sub struct {
	*Data
	v      []float64 // y_i·x_ij in CSC order, then the bias column y_i·B
	ri     []int32   // the bias column's rows 0..ℓ−1
	cp, cn float64   // costs of the positive and negative examples
	cost   []float64 // C_i per example, nil when cp = cn
	neg    []bool    // y_i = −1
	pos    int       // positive examples
	w      []float64 // per feature, the bias last
	unreg  bool      // the bias is not regularised

	init, tol float64 // ‖∇^S F(0)‖₁ and the tolerance on ‖∇^S F(w)‖₁

	Ops int64 // non-zeros read or written
}

func newSub(dt *Data, unreg bool) sub {
	s := sub{Data: dt, v: make([]float64, dt.nnz), w: make([]float64, dt.nf), neg: make([]bool, dt.rows)}
	s.unreg = unreg && dt.bias > 0
	if dt.bias > 0 {
		s.ri = make([]int32, dt.rows)
		for i := range s.ri {
			s.ri[i] = int32(i)
		}
	}
	return s
}

// reset sets the subproblem: example i is positive when label[i] == pos,
// with cost cp, else negative with cost cn; w = 0.
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
	c := s.csc
	m := c.ColPtr[c.Features]
	for k, i := range c.RowIndex[:m] {
		x := c.Value[k]
		if s.neg[i] {
			x = -x
		}
		s.v[k] = x
	}
	if s.bias > 0 {
		for i, n := range s.neg {
			s.v[m+int64(i)] = s.bias
			if n {
				s.v[m+int64(i)] = -s.bias
			}
		}
	}
	clear(s.w)
}

// c returns C_i.
func (s *sub) c(i int) float64 {
	if s.cost != nil {
		return s.cost[i]
	}
	return s.cp
}

// column returns the rows and signed values of feature j.
func (s *sub) column(j int32) ([]int32, []float64) {
	c := s.csc
	if int(j) == c.Features {
		m := c.ColPtr[c.Features]
		return s.ri, s.v[m : m+int64(s.rows)]
	}
	a, b := c.ColPtr[j], c.ColPtr[j+1]
	return c.RowIndex[a:b:b], s.v[a:b:b]
}

// isBias reports whether feature j is the unregularised bias.
func (s *sub) isBias(j int32) bool { return s.unreg && int(j) == s.nf-1 }

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

// W returns the weights (features, then the bias); the caller must not
// keep it across a reset.
func (s *sub) W() []float64 { return s.w }

// l1 returns the regularised ‖w‖₁ (the unregularised bias left out).
func (s *sub) l1() float64 {
	n := 0.0
	for j, x := range s.w {
		if !s.isBias(int32(j)) {
			n += math.Abs(x)
		}
	}
	return n
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
