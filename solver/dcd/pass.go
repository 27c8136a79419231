package dcd

import (
	"math"

	"github.com/acfcd/acfcd/internal/fmath"
	solver "github.com/acfcd/acfcd/solver"
)

// Pass goes over every example in storage order at the current α and w
// (solver.Problem) and sets PassViol to the largest violation:
// |projected gradient| for the SVMs, |∂f/∂α_i| for LR (α_i is interior
// there, so its KKT condition is ∂f/∂α_i = 0). With repair, an example
// whose violation exceeds Eps is stepped on the spot and the pass reports
// failure; a pass that reports success took no step, so PassViol ≤ Eps
// holds for all examples at one point, and PassPrimal is the primal
// objective at that w; for the hinge loss the gap rule (tighten) may
// still refuse that point, lowering Eps. Without repair the pass reports
// whether PassViol is within Eps as it was before the rule. The loss is
// summed per chunk of rows, the chunk sums added in order, so the primal
// has the same bits at any GOMAXPROCS.
func (p *Problem) Pass(r *solver.Run, repair bool) bool {
	viol, loss, ops, ok := solver.RowPass(p.drv, p.Pool, &p.chunks, p.N, p.RP[p.N],
		func(bool) func(lo, hi int) solver.Chunk {
			h := *p // a goroutine's copy: scan counts into its Ops only
			return func(lo, hi int) solver.Chunk { return h.scan(lo, hi, repair) }
		},
		func(first int, viol, loss *float64) {
			for i := first; i < p.N; i++ {
				i := int32(i)
				wx := p.DotRow(i, p.W)
				v, l, G := p.eval(i, wx)
				*loss += l
				if v > p.Eps {
					var gain float64
					if p.Loss == Logistic {
						_, gain = p.lrStep(i, wx)
					} else {
						gain = p.svmMove(i, G)
					}
					r.Repaired(i, gain)
				}
				*viol = max(*viol, v)
			}
		})
	p.Ops += ops
	p.PassViol, p.PassPrimal = viol, solver.Primal(p.W, loss)
	if repair && ok && (p.Loss == L1SVM && p.tighten() || p.primalRefuses()) {
		return false
	}
	eps := p.Eps
	if p.tightened > 0 {
		eps = p.eps0 // a run stopped after the gap rule is judged at the eps it was given
	}
	return repair && ok || !repair && viol <= eps
}

// Due is the sweep's trigger of the certifying pass (solver.Trigger): a
// violation within Eps, which the hinge loss's gap rule may have lowered.
func (p *Problem) Due(viol float64) bool {
	p.spendGap()
	return viol <= p.Eps
}

// scan evaluates examples [lo, hi) at the current point, changing only
// p.Ops (p is a goroutine's copy). With repair it stops at the first
// example whose violation exceeds Eps and leaves it out.
func (p *Problem) scan(lo, hi int, repair bool) solver.Chunk {
	c := solver.Chunk{Stop: -1}
	for i := lo; i < hi; i++ {
		ops := p.Ops
		wx := p.DotRow(int32(i), p.W)
		v, l, _ := p.eval(int32(i), wx)
		if repair && v > p.Eps {
			c.Stop = i
			return c
		}
		c.Ops += p.Ops - ops
		c.Viol = max(c.Viol, v)
		c.Loss += l
	}
	return c
}

// eval returns example i's KKT violation and weighted primal loss at the
// current α given wx = wᵀx_i, and for the SVMs its gradient G.
func (p *Problem) eval(i int32, wx float64) (viol, loss, G float64) {
	c := (p.Y[i] + 1) >> 1
	m := float64(float64(p.Y[i]) * wx) // margin
	if p.Loss == Logistic {
		viol = Violation(m+fmath.Log(p.Alpha[i]/p.AlphaC[i]), p.Alpha[i], p.AlphaC[i], p.UB[c])
		return viol, p.UB[c] * Log1pExpNeg(m), 0
	}
	G = m - 1 + float64(p.Alpha[i]*p.Diag[c])
	viol = math.Abs(p.PG(i, G))
	if h := 1 - m; h > 0 {
		if p.Loss == L1SVM {
			loss = p.UB[c] * h
		} else {
			loss = 0.5 / p.Diag[c] * h * h
		}
	}
	return viol, loss, G
}
