package lasso

import (
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/acfcd/acfcd/internal/procs"
	dataio "github.com/acfcd/acfcd/io"
	solver "github.com/acfcd/acfcd/solver"
)

// centred is the problem in exact arithmetic: the dense columns and
// labels, centred (exactly) with an intercept.
type centred struct {
	x  [][]*big.Float // x[j][i]
	y  []*big.Float
	nf int
}

const prec = 500

func bf(v float64) *big.Float { return new(big.Float).SetPrec(prec).SetFloat64(v) }

func newCentred(d *dataio.Dataset, intercept bool) *centred {
	c := &centred{nf: d.Features, x: make([][]*big.Float, d.Features), y: make([]*big.Float, d.Rows)}
	for j := range c.x {
		c.x[j] = make([]*big.Float, d.Rows)
		for i := range c.x[j] {
			c.x[j][i] = bf(0)
		}
	}
	for i := range d.Rows {
		c.y[i] = bf(d.Label[i])
		for k := d.RowPtr[i]; k < d.RowPtr[i+1]; k++ {
			c.x[d.Index[k]][i].Add(c.x[d.Index[k]][i], bf(d.Value[k]))
		}
	}
	if intercept {
		centre := func(v []*big.Float) {
			m := bf(0)
			for _, e := range v {
				m.Add(m, e)
			}
			m.Quo(m, bf(float64(len(v))))
			for _, e := range v {
				e.Sub(e, m)
			}
		}
		centre(c.y)
		for _, col := range c.x {
			centre(col)
		}
	}
	return c
}

// residual is y_c − X_c w.
func (c *centred) residual(w []float64) []*big.Float {
	r := make([]*big.Float, len(c.y))
	t := bf(0)
	for i := range r {
		r[i] = new(big.Float).Copy(c.y[i])
		for j, v := range w {
			if v != 0 {
				r[i].Sub(r[i], t.Mul(c.x[j][i], bf(v)))
			}
		}
	}
	return r
}

// objective is F(w) = ½‖y_c − X_c w‖² + λ‖w‖₁.
func (c *centred) objective(w []float64, lam float64) *big.Float {
	f := bf(0)
	t := bf(0)
	for _, v := range c.residual(w) {
		f.Add(f, t.Mul(v, v))
	}
	f.Quo(f, bf(2))
	for _, v := range w {
		f.Add(f, t.Mul(bf(lam), bf(math.Abs(v))))
	}
	return f
}

// rho is x_cjᵀr for every feature j.
func (c *centred) rho(r []*big.Float) []float64 {
	out := make([]float64, c.nf)
	t := bf(0)
	for j, col := range c.x {
		s := bf(0)
		for i, v := range col {
			s.Add(s, t.Mul(v, r[i]))
		}
		out[j], _ = s.Float64()
	}
	return out
}

// randomPoint sets a third of the weights to 0 and the others at random.
func randomPoint(s *Problem, r *rand.Rand) {
	for _, j := range s.cols {
		s.w[j] = 0
		if r.IntN(3) != 0 {
			s.w[j] = r.NormFloat64() * 0.5
		}
	}
	s.resetResidual()
}

// The gain of every step is the exact objective decrease, recomputed
// from scratch in exact arithmetic, for all kinds of steps: to zero,
// across zero, within a sign, and from zero; the violation it reports is
// the subgradient condition's at the point before the step.
func TestLassoExactGain(t *testing.T) {
	tune, lt := solver.DefaultTuning(), DefaultTuning()
	for _, icpt := range []bool{false, true} {
		d := regression(21, 30, 12, 4, 0.4, 0.5, 2, 0.7)
		pr, err := NewData(d, icpt, false)
		if err != nil {
			t.Fatal(err)
		}
		ex := newCentred(d, icpt)
		s := New(pr, 1, &tune, &lt)
		s.SetLambda(0.3*pr.LambdaMax(1), s.rule(0, 0, 0))
		r := rand.New(rand.NewPCG(1, 1))
		kinds := map[string]int{}
		for trial := 0; trial < 400; trial++ {
			randomPoint(s, r)
			j := s.cols[r.IntN(len(s.cols))]
			w0 := s.w[j]
			before := ex.objective(s.w, s.lam)
			rhoWant := ex.rho(ex.residual(s.w))[j]
			rho, viol, gain := s.step(j)
			w1 := s.w[j]
			after := ex.objective(s.w, s.lam)
			diff, _ := new(big.Float).Sub(before, after).Float64()
			kind := "none"
			switch {
			case w0 == w1:
			case w1 == 0:
				kind = "to zero"
			case w0 == 0:
				kind = "from zero"
			case (w0 > 0) != (w1 > 0):
				kind = "crossing"
			default:
				kind = "same sign"
			}
			kinds[kind]++
			if gain < 0 || math.Abs(gain-diff) > 1e-10*math.Abs(diff)+1e-14 {
				t.Errorf("intercept=%v %s step w %g → %g: gain %.17g, exact decrease %.17g", icpt, kind, w0, w1, gain, diff)
			}
			if kind == "none" && gain != 0 {
				t.Errorf("null step with gain %g", gain)
			}
			scale := 1e-12 * (1 + math.Abs(rhoWant))
			if math.Abs(rho-rhoWant) > scale || math.Abs(viol-kktViolation(w0, rhoWant, s.lam)) > scale {
				t.Errorf("intercept=%v %s step on %d at w %g: ρ %.17g violation %.17g, exact ρ %.17g violation %.17g",
					icpt, kind, j, w0, rho, viol, rhoWant, kktViolation(w0, rhoWant, s.lam))
			}
		}
		for _, k := range []string{"to zero", "from zero", "crossing", "same sign"} {
			if kinds[k] == 0 {
				t.Errorf("intercept=%v: no %q step among %v", icpt, k, kinds)
			}
		}
	}
}

// A full pass at a random point measures the objective, the largest
// violation and the duality gap of the scaled residual θ = r·min(1,
// λ/‖X_cᵀr‖_∞), D(θ) = θᵀy_c − ½‖θ‖², all recomputed from scratch. Without
// repair it takes no step; with repair it steps once on every coordinate
// above eps, and only then.
func TestLassoPass(t *testing.T) {
	tune, lt := solver.DefaultTuning(), DefaultTuning()
	r := rand.New(rand.NewPCG(2, 2))
	for _, icpt := range []bool{false, true} {
		d := regression(22, 25, 15, 5, 0.3, 0.3, 1, 0.4)
		pr, err := NewData(d, icpt, false)
		if err != nil {
			t.Fatal(err)
		}
		ex := newCentred(d, icpt)
		s := New(pr, 1, &tune, &lt)
		scaled, repairs := 0, 0
		for trial := 0; trial < 20; trial++ {
			lam := pr.LambdaMax(1) * [...]float64{0.9, 0.3, 0.01, 1.2}[trial%4]
			s.SetLambda(lam, s.rule(0, 0, 0))
			randomPoint(s, r)
			if trial%4 == 3 {
				clear(s.w) // w = 0 at λ > λ_max: the optimum, gap 0
				s.resetResidual()
			}
			w := append([]float64(nil), s.w...)
			res := ex.residual(w)
			rho := ex.rho(res)
			var viol, maxRho float64
			var above []float64 // the violations, to choose eps
			for _, j := range s.cols {
				v := kktViolation(w[j], rho[j], lam)
				viol = max(viol, v)
				maxRho = max(maxRho, math.Abs(rho[j]))
				above = append(above, v)
			}
			obj := ex.objective(w, lam)
			// D(θ) = sc·rᵀy_c − ½sc²‖r‖²
			sc := 1.0
			if maxRho > lam {
				sc = lam / maxRho
				scaled++
			}
			ry, rr, tmp := bf(0), bf(0), bf(0)
			for i, v := range res {
				ry.Add(ry, tmp.Mul(v, ex.y[i]))
				rr.Add(rr, tmp.Mul(v, v))
			}
			dual := new(big.Float).Mul(bf(sc), ry)
			dual.Sub(dual, rr.Mul(rr, bf(0.5*sc*sc)))
			gapWant, _ := new(big.Float).Sub(obj, dual).Float64()
			objWant, _ := obj.Float64()

			s.fullPass(nil)
			if !s.Snap {
				t.Errorf("trial %d: measuring pass: snap %v", trial, s.Snap)
			}
			for j := range w {
				if s.w[j] != w[j] {
					t.Fatalf("trial %d: measuring pass moved w[%d] %g → %g", trial, j, w[j], s.w[j])
				}
			}
			if math.Abs(s.PassObj-objWant) > 1e-12*objWant {
				t.Errorf("trial %d: objective %.17g, exact %.17g", trial, s.PassObj, objWant)
			}
			if math.Abs(s.PassViol-viol) > 1e-12*(1+lam) {
				t.Errorf("trial %d: violation %.17g, exact %.17g", trial, s.PassViol, viol)
			}
			if s.PassGap < 0 || math.Abs(s.PassGap-max(gapWant, 0)) > 1e-10*objWant {
				t.Errorf("trial %d: gap %.17g, exact %.17g (F %.17g)", trial, s.PassGap, gapWant, objWant)
			}

			// With repair at an eps some coordinates exceed: one step on each.
			if viol == 0 {
				continue
			}
			eps := viol / 2
			want := 0
			for _, v := range above {
				if v > eps {
					want++
				}
			}
			s.eps, s.stop, s.innerTol = eps, stopRule{}, 0 // a gap of 0: the pass fails
			s.clearSet()
			for _, j := range s.cols {
				s.add(j)
			}
			ws := (*wsProblem)(s)
			run := solver.NewRun(ws, solver.Config{Selection: solver.Cyclic, MaxEpochs: 1})
			run.Obj = objWant
			repairs += want
			if ws.Pass(run, true) || run.Steps != int64(want) {
				t.Errorf("trial %d: repairing pass at eps %g took %d steps, want %d (violations %v)", trial, eps, run.Steps, want, above)
			}
			if got, _ := ex.objective(s.w, lam).Float64(); math.Abs(run.Obj-got) > 1e-10*objWant {
				t.Errorf("trial %d: objective after the repairs %.17g, exact %.17g", trial, run.Obj, got)
			}
		}
		if scaled == 0 || repairs == 0 {
			t.Errorf("intercept=%v: %d points with a scaled dual, %d repairs: the cases are not covered", icpt, scaled, repairs)
		}
	}
}

// BenchmarkLassoEpoch times one epoch (a sweep for cyclic and uniform, n
// steps for acf) from a state five epochs into the optimisation, with
// allocations (there must be none).
func BenchmarkLassoEpoch(b *testing.B) {
	d := regression(42, 5000, 20000, 200, 0.002, 0.5, 1, 0)
	pr, err := NewData(d, true, false)
	if err != nil {
		b.Fatal(err)
	}
	tune, lt := solver.DefaultTuning(), DefaultTuning()
	for _, sel := range []solver.Selection{solver.Cyclic, solver.Uniform, solver.ACF} {
		b.Run("select="+sel.String(), func(b *testing.B) {
			s := New(pr, 1, &tune, &lt)
			s.SetLambda(0.05*pr.LambdaMax(1), s.rule(1e-300, 0, 0))
			for _, j := range s.cols {
				s.add(j)
			}
			const warm = 5
			var r *solver.Run
			var steps0, ops0 int64
			r = solver.NewRun((*wsProblem)(s), solver.Config{Selection: sel, Seed: 1, Eps: 1e-300, MaxEpochs: warm + b.N, Work: pr.Work(), Tuning: &tune,
				Progress: func(epoch int, _, _ float64) {
					if epoch == warm {
						steps0, ops0 = r.Steps, s.Ops
						b.ReportAllocs()
						b.ResetTimer()
					}
				}})
			r.Obj = s.Objective()
			if r.Solve(1) || !r.Capped() {
				b.Fatal("not stopped by the cap")
			}
			b.StopTimer()
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(r.Steps-steps0), "ns/step")
			b.ReportMetric(float64(r.Steps-steps0)/float64(b.N), "steps/op")
			b.ReportMetric(float64(s.Ops-ops0)/float64(b.N), "nnz/op")
		})
	}
}

// The full pass after a working-set run is the strong rule's KKT check:
// a feature the rule wrongly discards (its screening statistic ρ_j
// corrupted to 0) is found violating, joins the working set, and the fit
// reaches the same optimum as an uncorrupted one.
func TestLassoStrongRuleKKTCheck(t *testing.T) {
	tune, lt := solver.DefaultTuning(), DefaultTuning()
	d := regression(23, 60, 40, 8, 0.3, 0.1, 1, 0.2)
	pr, err := NewData(d, true, false)
	if err != nil {
		t.Fatal(err)
	}
	cfg := solver.Config{Selection: solver.ACF, MaxEpochs: 100000, Tuning: &tune}
	caught := 0
	for _, fr := range [][2]float64{{0.5, 0.4}, {0.4, 0.33}, {0.3, 0.25}, {0.2, 0.17}} {
		l1, l2 := fr[0]*pr.LambdaMax(1), fr[1]*pr.LambdaMax(1)
		ref := New(pr, 1, &tune, &lt)
		ref.SetLambda(l1, ref.rule(0, 1e-12, 0))
		ref.Fit(cfg, 1)
		w1 := append([]float64(nil), ref.w...)
		ref.SetLambda(l2, ref.rule(0, 1e-12, 0))
		if f := ref.Fit(cfg, 2); !f.Converged {
			t.Fatal("reference not converged")
		}
		for _, j := range pr.cols {
			if w1[j] != 0 || ref.w[j] == 0 {
				continue // only a feature that enters between l1 and l2
			}
			s := New(pr, 1, &tune, &lt)
			s.SetLambda(l1, s.rule(0, 1e-12, 0))
			s.Fit(cfg, 1)
			s.rho[j] = 0 // the strong rule now discards j at l2
			s.SetLambda(l2, s.rule(0, 1e-12, 0))
			s.startSet()
			if s.in[j] {
				t.Fatalf("feature %d not discarded", j)
			}
			s.SetLambda(l2, s.rule(0, 1e-12, 0))
			s.lamSnap = l1
			f := s.Fit(cfg, 2)
			if !f.Converged || f.Passes < 2 || s.w[j] == 0 {
				t.Errorf("feature %d: converged %v after %d full passes, w_j %g (want %g)", j, f.Converged, f.Passes, s.w[j], ref.w[j])
			}
			if math.Abs(s.PassObj-ref.PassObj) > 1e-10*ref.PassObj {
				t.Errorf("feature %d: objective %.15g, uncorrupted %.15g", j, s.PassObj, ref.PassObj)
			}
			caught++
		}
	}
	if caught == 0 {
		t.Fatal("no feature enters between the two λ")
	}
}

// Near interpolation (support about the number of rows, λ = 0.002·λ_max)
// the support Newton step reaches the optimum in a fraction of the
// operations of CD alone; the two fits agree, and the KKT conditions,
// recomputed in exact arithmetic at the Newton fit's weights, hold.
func TestLassoNewtonNearInterpolation(t *testing.T) {
	d := regression(31, 40, 300, 30, 0.25, 0.3, 1, 0.2)
	pr, err := NewData(d, true, false)
	if err != nil {
		t.Fatal(err)
	}
	lam := 0.002 * pr.LambdaMax(1)
	fit := func(newton float64) (*Problem, Fit) {
		tune, lt := solver.DefaultTuning(), DefaultTuning()
		lt.LassoNewton = newton
		s := New(pr, 1, &tune, &lt)
		s.SetLambda(lam, s.rule(0, 1e-10, 0))
		cfg := solver.Config{Selection: solver.ACF, MaxEpochs: 1 << 24, Tuning: &tune}
		return s, s.Fit(cfg, 1)
	}
	off, fo := fit(0)
	on, fn := fit(1)
	if !fo.Converged || !fn.Converged {
		t.Fatalf("converged: without the step %v, with it %v", fo.Converged, fn.Converged)
	}
	nnz := 0
	for _, v := range on.w {
		if v != 0 {
			nnz++
		}
	}
	if nnz < d.Rows/2 {
		t.Fatalf("%d non-zeros on %d rows: not the regime under test", nnz, d.Rows)
	}
	t.Logf("operations: %d with the step, %d without", on.Ops, off.Ops)
	if on.Ops*2 > off.Ops {
		t.Errorf("with the Newton step %d operations, without %d: want fewer than half", on.Ops, off.Ops)
	}
	if math.Abs(on.PassObj-off.PassObj) > 1e-9*off.PassObj {
		t.Errorf("objective %.15g with the step, %.15g without", on.PassObj, off.PassObj)
	}
	c := newCentred(d, true)
	rho := c.rho(c.residual(on.w))
	worst := 0.0
	for j, v := range on.w {
		worst = max(worst, kktViolation(v, rho[j], lam))
	}
	if worst > 1e-6*lam {
		t.Errorf("largest KKT violation %g, λ = %g", worst, lam)
	}
}

// topK leaves the k first candidates of a full sort in c[:k], on scores
// with many ties (broken by feature) and on sorted and reversed input.
func TestTopK(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for trial := range 200 {
		n := 1 + r.IntN(3000)
		c := make([]cand, n)
		for i := range c {
			c[i] = cand{j: int32(r.IntN(4 * n)), score: float64(r.IntN(1 + n/(1+trial%7)))}
		}
		switch trial % 3 {
		case 1:
			slices.SortFunc(c, candOrder)
		case 2:
			slices.SortFunc(c, func(a, b cand) int { return candOrder(b, a) })
		}
		want := slices.Clone(c)
		slices.SortFunc(want, candOrder)
		k := 1 + r.IntN(n)
		topK(c, k)
		got := slices.Clone(c[:k])
		slices.SortFunc(got, candOrder)
		if !slices.Equal(got, want[:k]) {
			t.Fatalf("n %d, k %d: the k best differ from a full sort's", n, k)
		}
	}
}

// The passes' dot products on helpers (SetPool) give the same fit bit for
// bit, with the same operation count, as on the calling goroutine alone;
// a pass whose Done is closed reports the cancellation.
func TestLassoParallelPasses(t *testing.T) {
	d := regression(41, 60, 900, 25, 0.1, 0.3, 1, 0.2)
	pr, err := NewData(d, true, false)
	if err != nil {
		t.Fatal(err)
	}
	lam := 0.01 * pr.LambdaMax(1)
	tune, lt := solver.DefaultTuning(), DefaultTuning()
	tune.KKTChunkRows, tune.KKTParallelNNZ = 16, 1 // every pass in chunks
	fit := func(pool *procs.Pool, thresh float64) *Problem {
		s := New(pr, 0.9, &tune, &lt)
		s.SetPool(pool)
		s.SetLambda(lam, s.rule(0, 0, thresh))
		f := s.Fit(solver.Config{Selection: solver.ACF, MaxEpochs: 1 << 20, Tuning: &tune}, 3)
		if !f.Converged {
			t.Fatalf("pool %v, thresh %g: not converged", pool != nil, thresh)
		}
		return s
	}
	for _, thresh := range []float64{0, 1e-9} {
		seq, par := fit(nil, thresh), fit(procs.NewPool(3), thresh)
		if !slices.Equal(seq.w, par.w) || seq.Ops != par.Ops || seq.PassGap != par.PassGap || seq.PassViol != par.PassViol {
			t.Errorf("thresh %g: helpers changed the fit: ops %d vs %d, gap %g vs %g", thresh, par.Ops, seq.Ops, par.PassGap, seq.PassGap)
		}
	}
	s := New(pr, 1, &tune, &lt)
	s.SetPool(procs.NewPool(3))
	s.SetLambda(lam, s.rule(0, 0, 0))
	done := make(chan struct{})
	close(done)
	r := solver.NewRun((*wsProblem)(s), solver.Config{Selection: solver.ACF, Done: done, Tuning: &tune})
	if !s.fullPass(r) || s.Snap || !r.Cancelled() {
		t.Errorf("a pass with Done closed: cancelled %v, snap %v", r.Cancelled(), s.Snap)
	}
}

// grow takes in the KKT violators and, where there are any, the features
// within LassoGrowMargin of violating; without violators, none.
func TestLassoGrowMargin(t *testing.T) {
	d := regression(29, 60, 40, 8, 0.3, 0.1, 1, 0.2)
	pr, err := NewData(d, true, false)
	if err != nil {
		t.Fatal(err)
	}
	// |g_j| at w = 0, and a λ just above the fourth largest: three
	// violators and at least the fourth within 5%.
	def, deflt := solver.DefaultTuning(), DefaultTuning()
	probe := New(pr, 1, &def, &deflt)
	probe.SetLambda(pr.LambdaMax(1), probe.rule(0, 1e-12, 0))
	probe.fullPass(nil)
	var g []float64
	for _, j := range pr.cols {
		g = append(g, math.Abs(probe.rho[j]))
	}
	slices.Sort(g)
	slices.Reverse(g)
	lam := 1.01 * g[3]
	for _, c := range []struct {
		margin, lam float64
		want        int // features taken in
		violators   int
	}{
		{0, lam, 3, 3},
		{0.05, lam, countAbove(g, 0.95*lam), 3},
		{0.05, 1.01 * g[0], 0, 0}, // nothing violates: nothing near joins
	} {
		tune, lt := solver.DefaultTuning(), DefaultTuning()
		lt.LassoGrowMargin = c.margin
		s := New(pr, 1, &tune, &lt)
		s.SetLambda(c.lam, s.rule(0, 1e-12, 0))
		s.fullPass(nil)
		n := s.grow()
		if n != c.violators || len(s.ws) != c.want {
			t.Errorf("margin %g, λ %g: %d violators, %d taken in; want %d and %d", c.margin, c.lam, n, len(s.ws), c.violators, c.want)
		}
		for _, j := range s.ws {
			if math.Abs(s.rho[j]) <= (1-c.margin)*c.lam {
				t.Errorf("margin %g: feature %d with |g| %g taken in at λ %g", c.margin, j, math.Abs(s.rho[j]), c.lam)
			}
		}
	}
	if countAbove(g, 0.95*lam) <= 3 {
		t.Fatal("no feature within the margin: the case tests nothing")
	}
}

func countAbove(x []float64, v float64) int {
	n := 0
	for _, a := range x {
		if a > v {
			n++
		}
	}
	return n
}

// The default selection sweeps a working set of short columns in cyclic
// order and schedules one of long columns by ACF: the same weights, bit
// for bit, as the selection asked for by name, and under glmnet's rule
// the cyclic batches that pass its test end the run at a point as close
// to the optimum as a tight solve says.
func TestLassoAutoSelection(t *testing.T) {
	tune, lt := solver.DefaultTuning(), DefaultTuning()
	for _, c := range []struct {
		name  string
		d     *dataio.Dataset
		short bool
	}{
		{"short columns", regression(51, 400, 300, 20, 0.03, 0.3, 1, 0.2), true}, // ~12 non-zeros each
		{"long columns", regression(52, 200, 60, 10, 0.5, 0.3, 1, 0.2), false},   // ~100
	} {
		pr, err := NewData(c.d, true, false)
		if err != nil {
			t.Fatal(err)
		}
		lam := 0.05 * pr.LambdaMax(1)
		fit := func(sel solver.Selection, thresh float64) (*Problem, Fit) {
			s := New(pr, 1, &tune, &lt)
			s.SetLambda(lam, s.rule(0, 1e-12, thresh))
			f := s.Fit(solver.Config{Selection: sel, MaxEpochs: 1 << 20, Tuning: &tune}, 5)
			if !f.Converged || f.Runs == 0 {
				t.Fatalf("%s, %v, thresh %g: converged %v after %d runs", c.name, sel, thresh, f.Converged, f.Runs)
			}
			return s, f
		}
		auto, f := fit(solver.Auto, 0)
		want, named := solver.ACF, 0
		if c.short {
			want, named = solver.Cyclic, f.Runs
		}
		if f.CyclicRuns != named {
			t.Errorf("%s: %d of %d runs cyclic, want %d", c.name, f.CyclicRuns, f.Runs, named)
		}
		if ref, _ := fit(want, 0); !slices.Equal(auto.w, ref.w) || auto.Ops != ref.Ops {
			t.Errorf("%s: the default's fit differs from %v's (ops %d vs %d)", c.name, want, auto.Ops, ref.Ops)
		}
		if _, g := fit(solver.ACF, 0); g.CyclicRuns != 0 {
			t.Errorf("%s: ACF asked for, %d runs cyclic", c.name, g.CyclicRuns)
		}
		opt := newCentred(c.d, true).objective(auto.w, lam)
		for _, sel := range []solver.Selection{solver.Auto, solver.Cyclic} {
			s, _ := fit(sel, 1e-12)
			got := newCentred(c.d, true).objective(s.w, lam)
			ex, _ := new(big.Float).Quo(new(big.Float).Sub(got, opt), opt).Float64()
			if ex > 1e-8 {
				t.Errorf("%s, %v under glmnet's rule at 1e-12: excess %.3g over the tight solve", c.name, sel, ex)
			}
		}
	}
}

// The warm-up of a working-set run steps first on the set's features at
// zero, in the set's order, then on its support.
func TestLassoWarmupOrder(t *testing.T) {
	d := regression(53, 50, 40, 6, 0.3, 0.1, 1, 0.2)
	pr, err := NewData(d, true, false)
	if err != nil {
		t.Fatal(err)
	}
	tune, lt := solver.DefaultTuning(), DefaultTuning()
	s := New(pr, 1, &tune, &lt)
	s.SetLambda(0.3*pr.LambdaMax(1), s.rule(0, 1e-9, 0))
	if f := s.Fit(solver.Config{Selection: solver.ACF, MaxEpochs: 1 << 20, Tuning: &tune}, 1); !f.Converged {
		t.Fatal("not converged")
	}
	b := make([]int32, len(s.ws))
	(*wsProblem)(s).WarmupOrder(b)
	var zeros, support []int32
	for k, j := range s.ws {
		if s.w[j] == 0 {
			zeros = append(zeros, int32(k))
		} else {
			support = append(support, int32(k))
		}
	}
	if len(zeros) == 0 || len(support) == 0 {
		t.Fatalf("working set of %d: %d at zero, %d in the support", len(s.ws), len(zeros), len(support))
	}
	if want := append(zeros, support...); !slices.Equal(b, want) {
		t.Errorf("warm-up order %v, want %v", b, want)
	}
}
