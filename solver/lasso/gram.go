package lasso

import (
	"math"

	"github.com/acfcd/acfcd/internal/compsum"
	"github.com/acfcd/acfcd/kernel"
	solver "github.com/acfcd/acfcd/solver"
)

// Covariance (Gram) mode, glmnet's type.gaussian = "covariance". Once a
// feature k has been in the support, its Gram column G_·k = X̃ᵀx̃_k (over
// every feature, on the centred and scaled columns) is kept. Since
//
//	ρ_j = x̃_jᵀr = x̃_jᵀy_c − Σ_{k∈S} G_jk·w_k     (S the support),
//
// a step on a working-set feature needs no pass over its column: the ρ of
// the whole working set W is kept up to date, a step moving w_k by δ
// subtracting δ·G_·k over W (2|W| operations instead of the 2·nnz_k of a
// sparse Dot and Axpy), and the residual r is left behind (stale) until
// something needs it. The measures use the same identities: W's pass and
// the full pass (every ρ_j, then ‖r‖² = ‖y_c‖² − wᵀ(X̃ᵀy_c + ρ) and
// rᵀy_c = ‖y_c‖² − wᵀX̃ᵀy_c, exact identities of r = y_c − X̃w) cost
// |W|·|S| and d·|S| instead of a pass over the data; the stopping rule
// and the KKT checks are the same, on the same ρ_j computed another way.
//
// A column costs a pass over the data (x̃_k scattered into a dense vector,
// dotted with every column, gramBlock columns at a time). Whether to pay
// is decided at run time by the ski-rental rule (buy once the rent paid
// reaches the price: the total cost is then at most twice the better of
// the two in hindsight), with no constant fitted to data: the columns
// bought never cost more than the plain work they replace or would have
// replaced (gramRent: the working-set runs where a Gram step is the
// cheaper, and the full passes that the columns make cheaper) plus the
// plain work the running run is predicted to need still, at the rate its
// measure of progress has fallen so far (wsRun.predict). A run steps by
// Gram only where a Gram step is cheaper than a plain one (2|W|² below
// the 2·nnz of W's columns), the support's missing columns are
// affordable, and the columns of all of W fit in the memory they may
// take, the data's own; it switches at run start or at the end of a
// batch, and back to plain steps, the residual recomputed, when a feature
// entering the support needs a column it cannot afford. The support
// Newton step (newton.go) runs on the Gram rows too, on any support:
// a CG iteration then costs what a sweep of Gram steps does.
type gram struct {
	col     [][]float64 // Gram columns over all features, by feature of the support
	of      []int32     // feature → its column in col, −1: none (nil before the first)
	floats  int64       // the columns' values
	nnzHave int64       // the non-zeros of the features with a column

	built int64 // operations spent building columns
	gops  int64 // operations of the Gram steps and measures
	virt  int64 // the plain cost of the work they replaced
	ahead int64 // the plain work the running run is predicted to need still
	rent  int64 // gramRent's, up to the running run
	// future is the λ a path will fit after the current one.
	future int64
	// The running run: it counts for gramRent, and the counters at its start.
	inRun                      bool
	ops0, built0, gops0, virt0 int64

	on    bool // the running working-set run steps by Gram
	stale bool // the residual rs is behind w

	gr  []float64 // ρ per working-set position, while on
	gw  []float64 // gw[k·|W|+m] = G(ws[k], ws[m]) for the positions k with a column
	has []bool    // has[k]: gw's row k is filled
	u   []float64 // scratch, one value per row
}

// gramRent is the plain-update work so far that the columns replace or
// would have replaced: the working-set runs where a Gram step is the
// cheaper (their operations, Gram steps and measures counted at the cost
// of the plain work they replaced, the columns' own cost left out), and
// the full passes that the columns make cheaper.
func (s *Problem) gramRent() int64 {
	g := &s.g
	r := g.rent
	if g.inRun {
		r += s.Ops - g.ops0 - (g.built - g.built0) - (g.gops - g.gops0) + (g.virt - g.virt0)
	}
	return r
}

// gramRunStart and gramRunEnd bracket a working-set run for gramRent.
func (s *Problem) gramRunStart() {
	g := &s.g
	g.inRun = s.gramStepCheaper()
	g.ops0, g.built0, g.gops0, g.virt0 = s.Ops, g.built, g.gops, g.virt
}

func (s *Problem) gramRunEnd() {
	g := &s.g
	g.rent = s.gramRent()
	g.inRun, g.on = false, false
}

// colCost is the cost of one Gram column: a pass over the columns that
// have none, and the rows.
func (s *Problem) colCost() int64 { return s.nnz - s.g.nnzHave + int64(s.rows) }

// gramAfford reports whether n more columns can be bought now with room
// for fit of them (n ≤ fit) in the memory the columns may take, the
// data's own: columns for a part of W only would leave its other
// features to enter the support by plain steps.
func (s *Problem) gramAfford(n, fit int) bool {
	g := &s.g
	if (g.floats+int64(fit)*int64(s.nf))*8 > 12*s.nnz { // the data's bytes in the CSC
		return false
	}
	if n == 0 {
		return true
	}
	rent := s.gramRent() + g.ahead
	if g.future > 0 {
		// Every λ still to come on the path ends with a full pass; with
		// the support's columns it costs d·|S| instead of the data's.
		nsup := int64(n)
		for _, j := range s.ws {
			if s.w[j] != 0 {
				nsup++
			}
		}
		if plain := s.nnz + int64(s.rows); int64(s.nf)*nsup < plain {
			rent += g.future * plain
		}
	}
	return g.built+int64(n)*s.colCost() <= rent
}

// GramFuture tells the problem that a path will fit n more λ after the
// current one, each certified by a full pass (gramAfford).
func (s *Problem) GramFuture(n int) { s.g.future = int64(n) }

// gramStepCheaper reports whether a Gram step on the working set costs
// less than the mean plain step on it.
func (s *Problem) gramStepCheaper() bool {
	n := int64(len(s.ws))
	return s.tune.LassoGram && n > 0 && 2*n*n < s.wsWork
}

// hasCol reports whether feature j has a Gram column.
func (s *Problem) hasCol(j int32) bool { return s.g.of != nil && s.g.of[j] >= 0 }

// gramBlock is the most columns built in one pass over the data (DotK's
// K): each column of the data is read once per block.
const gramBlock = 8

// buildCol computes feature j's Gram column (false if cancelled).
func (s *Problem) buildCol(j int32) bool { return s.buildCols([]int32{j}) }

// buildCols computes the Gram columns of js, features without one, in
// blocks of gramBlock (false if cancelled). The entries against features
// that already have a column are copied from it: G is symmetric.
func (s *Problem) buildCols(js []int32) bool {
	g := &s.g
	if g.of == nil {
		g.of = make([]int32, s.nf)
		for i := range g.of {
			g.of[i] = -1
		}
	}
	for len(js) > 0 {
		b := js[:min(len(js), gramBlock)]
		js = js[len(b):]
		if !s.buildBlock(b) {
			return false
		}
	}
	return true
}

func (s *Problem) buildBlock(js []int32) bool {
	g := &s.g
	K := len(js)
	if len(g.u) < s.rows*K {
		g.u = make([]float64, s.rows*gramBlock)
	}
	u := g.u[:s.rows*K]
	var su [gramBlock]float64
	ops0 := s.Ops
	for c, j := range js {
		idx, val := s.column(j)
		if s.intercept {
			// u = x_j − μ_j·1, dense: the centring of the other columns
			// then subtracts μ_m·Σu (0 up to rounding) instead of
			// ℓ·μ_j·μ_m, which would cancel where the means are large.
			m := s.mu[j]
			for i := 0; i < s.rows; i++ {
				u[i*K+c] = -m
			}
			for p, i := range idx {
				u[int(i)*K+c] += val[p]
			}
			var n compsum.Sum
			for i := 0; i < s.rows; i++ {
				n.Add(u[i*K+c])
			}
			su[c] = n.Value()
			s.Ops += int64(s.rows)
		} else {
			for p, i := range idx {
				u[int(i)*K+c] = val[p]
			}
		}
	}
	cols := make([][]float64, K)
	for c := range cols {
		cols[c] = make([]float64, s.nf)
	}
	have := g.col
	cancelled := s.dots(nil, len(s.cols), s.nnz, func(k int) int64 {
		m := s.cols[k]
		if g.of[m] >= 0 {
			cm := have[g.of[m]]
			for c, j := range js {
				cols[c][m] = cm[j]
			}
			return int64(K)
		}
		ci, cv := s.column(m)
		var out [gramBlock]float64
		kernel.DotK(ci, cv, u, K, out[:])
		for c, j := range js {
			d := out[c]
			if s.intercept {
				d -= float64(s.mu[m] * su[c])
			}
			cols[c][m] = float64(s.sc[m]*s.sc[j]) * d
		}
		return int64(len(ci)) * int64(K)
	})
	if !s.intercept {
		for _, j := range js {
			idx, _ := s.column(j)
			for _, i := range idx {
				for c := range K {
					u[int(i)*K+c] = 0
				}
			}
		}
	} else {
		clear(u)
	}
	g.built += s.Ops - ops0
	if cancelled {
		return false
	}
	for c, j := range js {
		cols[c][j] = s.q[j] // the steps' own q_j
		// The block's own pairs once, symmetric.
		for c2 := c + 1; c2 < K; c2++ {
			cols[c2][j] = cols[c][js[c2]]
		}
		g.of[j] = int32(len(g.col))
		g.col = append(g.col, cols[c])
		g.floats += int64(s.nf)
		g.nnzHave += s.csc.ColPtr[j+1] - s.csc.ColPtr[j]
	}
	return true
}

// gramMaybe starts Gram steps for the working-set run about to start or
// running, where they are cheaper and affordable (the support's missing
// columns bought now); it reports whether the run steps by Gram. A plain
// run finds the residual current.
func (s *Problem) gramMaybe() bool {
	g := &s.g
	if g.on {
		return true
	}
	if s.gramStepCheaper() {
		// The support's columns are bought now; any of W's may be needed
		// as it enters the support, so all of them must fit.
		missing, room := 0, 0
		for _, j := range s.ws {
			if !s.hasCol(j) {
				room++
				if s.w[j] != 0 {
					missing++
				}
			}
		}
		if s.gramAfford(missing, room) && s.gramStart() {
			return true
		}
	}
	s.syncResidual()
	return false
}

// gramStart buys the support's missing columns and fills gw and gr for
// the working set (false if cancelled: the run stays plain).
func (s *Problem) gramStart() bool {
	g := &s.g
	var miss []int32
	for _, j := range s.ws {
		if s.w[j] != 0 && !s.hasCol(j) {
			miss = append(miss, j)
		}
	}
	if !s.buildCols(miss) {
		return false
	}
	n := len(s.ws)
	if cap(g.gw) < n*n {
		g.gw = make([]float64, n*n)
	}
	g.gw = g.gw[:n*n]
	if cap(g.has) < n {
		g.has = make([]bool, n)
		g.gr = make([]float64, n)
	}
	g.has, g.gr = g.has[:n], g.gr[:n]
	for k, j := range s.ws {
		g.has[k] = s.hasCol(j)
		if g.has[k] {
			s.fillRow(k)
		}
	}
	g.on = true
	if s.Snap {
		for k, j := range s.ws {
			g.gr[k] = s.rho[j]
		}
	} else {
		s.gramRho()
	}
	return true
}

// fillRow copies the Gram column of ws[k] into gw's row k.
func (s *Problem) fillRow(k int) {
	g := &s.g
	n := len(s.ws)
	c := g.col[g.of[s.ws[k]]]
	row := g.gw[k*n : (k+1)*n]
	for m, j := range s.ws {
		row[m] = c[j]
	}
	g.has[k] = true
	s.Ops += int64(n)
	g.gops += int64(n)
}

// gramStop ends Gram steps: the residual is recomputed from w.
func (s *Problem) gramStop() {
	s.g.on = false
	s.syncResidual()
}

// syncResidual recomputes the residual if Gram steps left it behind.
func (s *Problem) syncResidual() {
	if s.g.stale {
		s.resetResidual()
	}
}

// gramRho sets gr to ρ over the working set from the support's rows of
// gw, and the tracked sums from the identities of the type comment.
func (s *Problem) gramRho() {
	g := &s.g
	n := len(s.ws)
	for k, j := range s.ws {
		g.gr[k] = s.xty[j]
	}
	nsup := 0
	for m, j := range s.ws {
		w := s.w[j]
		if w == 0 {
			continue
		}
		nsup++
		subScaled(g.gr[:n], w, g.gw[m*n:(m+1)*n])
	}
	s.Ops += int64(n * nsup)
	g.gops += int64(n * nsup)
	var wy, wr, n1, n2 compsum.Sum
	for k, j := range s.ws {
		if w := s.w[j]; w != 0 {
			wy.Add(w * s.xty[j])
			wr.Add(w * g.gr[k])
			n1.Add(math.Abs(w))
			n2.Add(w * w)
		}
	}
	s.gramSums(wy.Value(), wr.Value(), n1.Value(), n2.Value())
}

// gramSums sets rr, ry, n1 and n2 from wᵀX̃ᵀy_c, wᵀρ, ‖w‖₁ and ‖w‖².
func (s *Problem) gramSums(wy, wr, n1, n2 float64) {
	s.rr = max(s.nullDev-wy-wr, 0) // ‖y_c‖² − wᵀ(X̃ᵀy_c + ρ)
	s.ry = s.nullDev - wy
	s.n1, s.n2 = n1, 0
	if s.l2p != 0 {
		s.n2 = n2
	}
}

// residualCost is the cost of recomputing the residual now (0 if it is
// current).
func (s *Problem) residualCost() int64 {
	if s.fresh && !s.g.stale {
		return 0
	}
	var nnz int64
	for _, j := range s.cols {
		if s.w[j] != 0 {
			nnz += s.csc.ColPtr[j+1] - s.csc.ColPtr[j]
		}
	}
	return nnz + int64(s.rows)
}

// stepGram is stepCol by Gram on working-set position k; it falls back to
// a plain step (and ends Gram steps) when the step would bring a feature
// into the support whose column cannot be bought.
func (s *Problem) stepGram(k int) (rho, viol, gain float64) {
	g := &s.g
	j := s.ws[k]
	c := &s.wsc[k]
	rho = g.gr[k]
	w := s.w[j]
	gg := rho - float64(s.l2p*w)
	viol = violation(w, gg, s.l1p)
	s.run.maxG = max(s.run.maxG, math.Abs(gg))
	q := c.q
	z := float64(q*w) + rho
	l1p, qq := s.l1p, q+s.l2p
	nw := softStep(z, l1p, qq)
	d := nw - w
	plain := 2 * (c.b - c.a)
	if d == 0 {
		s.Ops++
		g.gops++
		g.virt += plain / 2
		return rho, viol, 0
	}
	if !g.has[k] {
		if s.hasCol(j) {
			s.fillRow(k)
		} else if !s.gramAfford(1, 1) || !s.buildCol(j) {
			s.gramStop()
			_, viol, gain = s.stepCol(j, c)
			return rho, viol, gain
		} else {
			s.fillRow(k)
		}
	}
	n := len(s.ws)
	subScaled(g.gr[:n], d, g.gw[k*n:(k+1)*n])
	s.Ops += int64(2 * n)
	g.gops += int64(2 * n)
	g.virt += plain
	s.rr += float64(float64(d*q)*d) - float64(2*d*rho)
	s.ry -= float64(d * c.xty)
	s.n1 += math.Abs(nw) - math.Abs(w)
	s.n2 += float64(nw*nw) - float64(w*w)
	s.w[j] = nw
	s.Snap, s.fresh = false, false
	g.stale = true
	s.run.maxMove = max(s.run.maxMove, float64(float64(q*d)*d))
	return rho, viol, Gain(qq, z, l1p, w, nw)
}

// step is a working-set step on position k, by Gram while on.
func (s *Problem) wsStep(k int) (rho, viol, gain float64) {
	if s.g.on {
		return s.stepGram(k)
	}
	return s.stepCol(s.ws[k], &s.wsc[k])
}

// gramMeasure is measureSet's Gram part: g_j over W from gr refreshed by
// the identities, into gws; it returns the largest violation and |g_j|.
func (s *Problem) gramMeasure() (viol, maxG float64) {
	s.gramRho()
	s.g.virt += s.wsWork/2 + s.residualCostStale()
	gws := s.gwsFor()
	s.viols = s.viols[:0]
	for k, j := range s.ws {
		g := s.g.gr[k] - float64(s.l2p*s.w[j])
		gws[k] = g
		v := violation(s.w[j], g, s.l1p)
		viol = max(viol, v)
		maxG = max(maxG, math.Abs(g))
		if v > s.eps {
			s.viols = append(s.viols, int32(k))
		}
	}
	return viol, maxG
}

// residualCostStale is the residual's recomputation that a plain measure
// would have done: the support's non-zeros and the rows.
func (s *Problem) residualCostStale() int64 {
	var nnz int64
	for k := range s.ws {
		if s.w[s.ws[k]] != 0 {
			nnz += s.wsc[k].b - s.wsc[k].a
		}
	}
	return nnz + int64(s.rows)
}

// gramPass is fullPass by the Gram columns, where every support feature
// has one and that is cheaper than the data's pass: every ρ_j, and the
// sums from the identities. It reports whether it ran, and whether it
// found the fit cancelled (r's, or the running Fit's) instead.
func (s *Problem) gramPass(r *solver.Run) (ran, cancelled bool) {
	g := &s.g
	if !s.tune.LassoGram {
		return false, false
	}
	nsup, missing := 0, 0
	for _, j := range s.cols {
		if s.w[j] != 0 {
			if g.of == nil || g.of[j] < 0 {
				missing++
			}
			nsup++
		}
	}
	cost := int64(s.nf) * int64(nsup)
	plain := s.nnz + s.residualCost()
	if cost >= plain {
		return false, false
	}
	if missing > 0 {
		g.rent += plain // the data's pass follows; the columns would have replaced it
		return false, false
	}
	if r != nil {
		if r.Poll() {
			return true, true
		}
	} else if s.done != nil {
		select {
		case <-s.done:
			return true, true
		default:
		}
	}
	copy(s.rho, s.xty)
	var wy, n1, n2 compsum.Sum
	for _, j := range s.cols {
		w := s.w[j]
		if w == 0 {
			continue
		}
		subScaled(s.rho, w, g.col[g.of[j]])
		wy.Add(w * s.xty[j])
		n1.Add(math.Abs(w))
		n2.Add(w * w)
	}
	var wr compsum.Sum
	for _, j := range s.cols {
		if w := s.w[j]; w != 0 {
			wr.Add(w * s.rho[j])
		}
	}
	s.Ops += cost
	g.gops += cost
	g.rent += plain
	s.gramSums(wy.Value(), wr.Value(), n1.Value(), n2.Value())
	if g.on {
		for k, j := range s.ws {
			g.gr[k] = s.rho[j]
		}
	}
	return true, false
}

// subScaled does y −= a·x (len(y) = len(x)), four at a time.
func subScaled(y []float64, a float64, x []float64) {
	y = y[:len(x)]
	i := 0
	for ; i+4 <= len(x); i += 4 {
		x4, y4 := x[i:i+4:i+4], y[i:i+4:i+4]
		y4[0] -= float64(a * x4[0])
		y4[1] -= float64(a * x4[1])
		y4[2] -= float64(a * x4[2])
		y4[3] -= float64(a * x4[3])
	}
	for ; i < len(x); i++ {
		y[i] -= float64(a * x[i])
	}
}
