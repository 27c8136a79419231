package multiclass

import (
	"math/bits"

	"github.com/acfcd/acfcd/internal/procs"
	"github.com/acfcd/acfcd/internal/rows"
	dataio "github.com/acfcd/acfcd/io"
	"github.com/acfcd/acfcd/kernel"
	solver "github.com/acfcd/acfcd/solver"
)

// examples is what the multi-class problems share: the rows with ‖x_i‖²,
// each example's class and each class's C, the K weight vectors and the K
// dual variables of every example, the counters and the full pass.
type examples struct {
	rows.Rows
	xsq   []float64 // q_i = ‖x_i‖² + B²
	K     int
	class []int32   // y_i as a class index
	ub    []float64 // C of each class (C × its -wi weight)
	eps   float64

	// W holds the K weight vectors, (NF+1)·K feature-major (row j holds
	// the K weights of feature j contiguously); row NF holds the bias
	// weights. Alpha[i*K+c] is example i's dual variable of class c.
	W, Alpha []float64

	// dec is the per-step scratch of the K decision values; coef that of
	// the K AxpyK coefficients.
	dec, coef []float64

	// Ops counts multiply-adds with the weights: per stored non-zero, one
	// for every class a product reads or an update writes, the passes
	// included.
	Ops int64
	// PassViol and PassPrimal are the largest violation and P(W) at the
	// point of the last full pass.
	PassViol, PassPrimal float64

	pool   *procs.Pool
	tune   *solver.Tuning
	chunks []solver.Chunk
}

// newExamples sets up α = 0, W = 0 on the examples of d (see New).
func newExamples(d *dataio.Dataset, class []int32, ub []float64, bias, eps float64, pool *procs.Pool, t *solver.Tuning) examples {
	K := len(ub)
	s := examples{Rows: rows.New(d, bias), K: K, class: class, ub: ub, eps: eps, pool: pool, tune: t}
	s.xsq = make([]float64, s.N)
	for i := range s.xsq {
		s.xsq[i] = s.SqNorm(int32(i))
	}
	s.W = make([]float64, (s.NF+1)*K)
	s.Alpha = make([]float64, s.N*K)
	s.dec = make([]float64, K)
	s.coef = make([]float64, K)
	return s
}

// Len is the number of examples.
func (s *examples) Len() int { return s.N }

// Work is the multiply-adds of one sweep that reads and updates all K
// weights of every non-zero, plus each step's loops over its K classes
// (the sort of the block solve, K·log₂K), for the interval between checks
// for cancellation (solver.Config.Work): with many classes and short rows
// the loops are most of a step.
func (s *examples) Work() int64 {
	K := int64(s.K)
	return 2*s.RP[s.N]*K + int64(s.N)*K*int64(bits.Len64(uint64(K)))
}

// decision sets s.dec to the K decision values of x_i, bias included,
// counting K multiply-adds per non-zero.
func (s *examples) decision(i int32) {
	a, b := s.RP[i], s.RP[i+1]
	K := s.K
	s.Ops += (b - a) * int64(K)
	dec := s.dec[:K]
	if s.Val32 == nil {
		kernel.DotK(s.Idx[a:b:b], s.Val[a:b:b], s.W, K, dec)
	} else {
		dotK32(s.Idx[a:b:b], s.Val32[a:b:b], s.W, K, dec)
	}
	if B := s.Bias; B != 0 {
		row := s.W[s.NF*K : s.NF*K+K]
		for c := range dec {
			dec[c] += float64(B * row[c])
		}
	}
}

// update does w_c += coef_c·x_i for every class, bias included.
func (s *examples) update(i int32) {
	a, b := s.RP[i], s.RP[i+1]
	K := s.K
	s.Ops += (b - a) * int64(K)
	coef := s.coef[:K]
	if s.Val32 == nil {
		kernel.AxpyK(coef, s.Idx[a:b:b], s.Val[a:b:b], s.W, K)
	} else {
		axpyK32(coef, s.Idx[a:b:b], s.Val32[a:b:b], s.W, K)
	}
	if B := s.Bias; B != 0 {
		row := s.W[s.NF*K : s.NF*K+K]
		for c := range row {
			row[c] += float64(coef[c] * B)
		}
	}
}

// dotK32 is kernel.DotK for float32 values.
func dotK32(idx []int32, val []float32, W []float64, K int, out []float64) {
	out = out[:K]
	clear(out)
	val = val[:len(idx)]
	for k, j := range idx {
		row := W[int(j)*K : int(j)*K+K]
		v := float64(val[k])
		for c, x := range row {
			out[c] += float64(v * x)
		}
	}
}

// axpyK32 is kernel.AxpyK for float32 values.
func axpyK32(coef []float64, idx []int32, val []float32, W []float64, K int) {
	coef = coef[:K]
	val = val[:len(idx)]
	for k, j := range idx {
		row := W[int(j)*K : int(j)*K+K]
		v := float64(val[k])
		for c, x := range coef {
			row[c] += float64(x * v)
		}
	}
}

// evaluator is a multi-class problem as its full pass sees it.
type evaluator interface {
	// eval evaluates example i at the current point, writing only the
	// receiver's scratch and Ops: its weighted loss and KKT violation.
	// It leaves what a repair of i needs in the scratch.
	eval(i int32) (loss, viol float64)
	// repair steps on example i right after eval(i) found violation viol
	// > eps, and returns the decrease of the objective.
	repair(i int32, viol float64) float64
	// helper returns a copy that reads the same point, with scratch and
	// counters of its own, for a goroutine of the pass.
	helper() evaluator
	// base returns the shared state.
	base() *examples
}

// pass goes over every example in storage order at the current point
// (solver.Problem's Pass for p, whose state is s) and sets PassViol to
// the largest KKT violation and PassPrimal to P(W). With repair, an
// example whose violation exceeds eps is stepped on the spot and the pass
// reports failure; a pass that reports success took no step, so PassViol
// ≤ eps holds for all examples at one point and PassPrimal is the primal
// objective there. As the dual's pass, it scans in chunks on the spare
// processors up to the first violator (each goroutine with scratch of its
// own) and goes on sequentially from there.
//
// The pass checks for cancellation every Tuning.PollWork operations (a
// pass over many classes takes minutes) and then returns false at once,
// its figures incomplete.
func (s *examples) pass(p evaluator, r *solver.Run, repair bool) bool {
	done := r.Done()
	viol, loss, ops, ok := solver.RowPass(s.tune, s.pool, &s.chunks, s.N, s.RP[s.N],
		func(bool) func(lo, hi int) solver.Chunk {
			h := p.helper()
			return func(lo, hi int) solver.Chunk { return scan(h, lo, hi, repair, done) }
		},
		func(first int, viol, loss *float64) {
			var work int64 // since the last check; the first is at once, after a scan that stopped for it
			for i := first; i < s.N; i++ {
				if work >= 0 {
					work = -s.tune.PollWork
					if r.Poll() {
						return
					}
				}
				ops := s.Ops
				i := int32(i)
				l, v := p.eval(i)
				*loss += l
				*viol = max(*viol, v)
				if v > s.eps {
					r.Repaired(i, p.repair(i, v))
				}
				work += s.Ops - ops + int64(s.K)
			}
		})
	s.Ops += ops
	s.PassViol, s.PassPrimal = viol, solver.Primal(s.W, loss)
	if r.Poll() {
		return false
	}
	return repair && ok || !repair && viol <= s.eps
}

// scan evaluates examples [lo, hi) at the current point with h, a
// goroutine's copy. With repair it stops at the first example whose
// violation exceeds eps and leaves it out; once done is closed, at the
// next check, every Tuning.PollWork operations (the pass's rest then
// stops as well).
func scan(h evaluator, lo, hi int, repair bool, done <-chan struct{}) solver.Chunk {
	s := h.base()
	c := solver.Chunk{Stop: -1}
	var work int64
	for i := lo; i < hi; i++ {
		if work >= s.tune.PollWork {
			work = 0
			select {
			case <-done:
				c.Stop = i
				return c
			default:
			}
		}
		ops := s.Ops
		l, v := h.eval(int32(i))
		if repair && v > s.eps {
			s.Ops = ops
			c.Stop = i
			break
		}
		c.Viol = max(c.Viol, v)
		c.Loss += l
		c.Ops += s.Ops - ops
		work += s.Ops - ops + int64(s.K)
	}
	return c
}
