package dual

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/acfcd/acfcd/internal/synth"
	"github.com/acfcd/acfcd/internal/tune"
	dataio "github.com/acfcd/acfcd/io"
	"github.com/acfcd/acfcd/solver/dcd"
	"github.com/acfcd/acfcd/solver/fit"
)

// repeatedOneHot returns rows examples that repeat distinct one-hot
// patterns (attrs attributes of vals values each, as mushrooms' are)
// labelled by a random linear truth: separable data with more examples on
// the margin than dimensions.
func repeatedOneHot(seed uint64, rows, attrs, vals, distinct int) *dataio.Dataset {
	r := rand.New(rand.NewPCG(seed, 5))
	return synth.Linear(r, rows, attrs*vals, 0, func(i, j int) (float64, bool) {
		h := (uint64(i%distinct)*0x9e3779b97f4a7c15 ^ uint64(j/vals)*0xbf58476d1ce4e5b9 ^ seed) * 0x94d049bb133111eb
		h ^= h >> 31
		return 1, int(h%uint64(vals)) == j%vals
	})
}

// gapRuleSeed trains -s 3 on d with seed at the defaults and with the gap
// rule off, primal and dual recomputed from each model and α. The rule's
// run ends within dcd.Tuning.HingeGapRel of its dual, or else it spent
// its budget: at least HingeGapSpend times the operations of the run
// without it (whose path is the same up to the first refused point), and
// at most that plus one epoch and one pass (where the point without the
// rule certified something: one that certifies nothing is refused
// whatever the budget). The violation stays within eps/2. It returns the
// run with the rule off.
func gapRuleSeed(t *testing.T, ctx context.Context, d *dataio.Dataset, s Spec) independent {
	t.Helper()
	def := dcd.DefaultTuning()
	off := dcd.DefaultTuning()
	off.HingeGapSpend = 0
	m, res, hs := mustTrainCtx(t, ctx, d, s)
	ind := evalIndependent(d, m, 0, hs[0], L1LossSVC)
	mo, reso, hso := mustTrainCtx(t, tune.With(ctx, &off), d, s)
	indOff := evalIndependent(d, mo, 0, hso[0], L1LossSVC)
	nnz := int64(d.RowPtr[d.Rows])
	limit := reso.Operations + int64(def.HingeGapSpend*float64(reso.Operations))
	gap := (ind.primal + ind.dual) / ind.primal
	if gap > def.HingeGapRel*(1+1e-9) && res.Operations < limit {
		t.Errorf("C=%g seed %d: relative duality gap %.4g > %g (primal %.8g, dual %.8g) after %d operations, within the budget %d",
			s.C, s.Seed, gap, def.HingeGapRel, ind.primal, -ind.dual, res.Operations, limit)
	}
	if nothing := indOff.primal+indOff.dual > -indOff.dual; !nothing && res.Operations > limit+3*nnz {
		t.Errorf("C=%g seed %d: %d operations, over the budget %d by more than an epoch and a pass (%d non-zeros)", s.C, s.Seed, res.Operations, limit, nnz)
	}
	if gapOff := (indOff.primal + indOff.dual) / indOff.primal; gap >= gapOff {
		t.Errorf("C=%g seed %d: relative gap %.4g with the rule, %.4g without", s.C, s.Seed, gap, gapOff)
	}
	if ind.violation > 0.05*(1+1e-9) || !res.Converged {
		t.Errorf("C=%g seed %d: violation %.3g, converged %v", s.C, s.Seed, ind.violation, res.Converged)
	}
	return indOff
}

// TestHingeGapRule: on data whose -s 3 dual at the default -e leaves a
// primal 7–12% above its dual objective (as mushrooms' 13–65%), every seed
// ends within dcd.Tuning.HingeGapRel of it or spends the rule's budget
// (gapRuleSeed). With the rule off the same runs end above, so the data
// exercises it.
func TestHingeGapRule(t *testing.T) {
	d := repeatedOneHot(1, 2000, 8, 4, 50)
	def := dcd.DefaultTuning()
	var worstOff float64
	for seed := uint64(1); seed <= 5; seed++ {
		ind := gapRuleSeed(t, context.Background(), d, Spec{Spec: fit.Spec{Seed: seed}, Kind: L1LossSVC})
		worstOff = max(worstOff, (ind.primal+ind.dual)/ind.primal)
	}
	if worstOff < 2*def.HingeGapRel {
		t.Errorf("with the rule off the largest relative gap is %.4g: the data no longer exercises the rule", worstOff)
	}
}

// TestHingeGapRuleText: text with fewer examples than features at C = 100
// and 1000, where the dual's relative gap at the default -e is 10–30%:
// the rule holds as in TestHingeGapRule.
func TestHingeGapRuleText(t *testing.T) {
	d := synth.Text(synth.TextConfig{Rows: 300, Features: 1000, MeanNNZ: 8, Informative: 50, Noise: 0.2, Seed: 9})
	// A stand-in for text sets of millions of non-zeros: the small-problem
	// tightening (fit.Tuning.SmallTighten) off in both runs.
	small := fit.DefaultTuning()
	small.SmallTighten = 0
	on := tune.With(context.Background(), &small)
	def := dcd.DefaultTuning()
	for _, c := range []float64{100, 1000} {
		ind := gapRuleSeed(t, on, d, Spec{Spec: fit.Spec{C: c, Seed: 1}, Kind: L1LossSVC})
		if gap := (ind.primal + ind.dual) / ind.primal; gap < 2*def.HingeGapRel {
			t.Errorf("C=%g: relative gap %.3g with the rule off: the case no longer exercises the rule", c, gap)
		}
	}
}

// binaryWide returns rows examples of feats binary features, each present
// with probability 0.3, labelled by a random linear truth (dorothea-like:
// p ≫ n, ‖x_i‖² in the hundreds).
func binaryWide(seed uint64, rows, feats int) *dataio.Dataset {
	return wideRows(seed, 0xb1, rows, feats, func(*rand.Rand) float64 { return 1 })
}

// TestHingeGapNothingCertified: a point whose duality gap exceeds the dual
// objective (the primal over twice the dual, as dorothea's at the default
// -e) is refused as any other (gapRuleSeed), where with the rule off the
// same runs end with a gap above the dual objective.
func TestHingeGapNothingCertified(t *testing.T) {
	d := binaryWide(3, 100, 3000)
	for seed := uint64(1); seed <= 3; seed++ {
		ind := gapRuleSeed(t, context.Background(), d, Spec{Spec: fit.Spec{Seed: seed}, Kind: L1LossSVC})
		if gap := ind.primal + ind.dual; !(gap > -ind.dual) {
			t.Errorf("seed %d: with the rule off the gap %.4g is within the dual objective %.4g: the data no longer exercises the rule", seed, gap, -ind.dual)
		}
	}
}

// TestSVRGapRule: the gap rule of -s 13 (dcd.SVR.tighten) on regression
// data whose dual at the default -e leaves a primal 0.7–18% above its
// dual objective: the primal recomputed from the model ends within
// dcd.Tuning.HingeGapRel of the dual, or the run spent the rule's budget
// (HingeGapSpend times the operations of the run without it) and no more
// than an epoch and a pass beyond; the gap is below the run's without the
// rule, and the run converged. -s 12 has no such rule: its models are the
// same with it off.
func TestSVRGapRule(t *testing.T) {
	def := dcd.DefaultTuning()
	off := dcd.DefaultTuning()
	off.HingeGapSpend = 0
	offCtx := tune.With(context.Background(), &off)
	for _, c := range []struct {
		rows, feats int
		C           float64
	}{{150, 3000, 1}, {150, 3000, 10}, {300, 1000, 1}, {1000, 50, 1}} {
		d := regData(3, c.rows, c.feats, 0.05, 0.3, 1.5)
		s := Spec{Spec: fit.Spec{C: c.C}, Kind: L1LossSVR, P: 0.1}
		name := fmt.Sprintf("%d×%d C=%g", c.rows, c.feats, c.C)
		m, res, err := train(context.Background(), d, s)
		mo, reso, erro := train(offCtx, d, s)
		if err != nil || erro != nil {
			t.Fatal(err, erro)
		}
		P, Po := svrPrimal(d, m, s), svrPrimal(d, mo, s)
		gap, gapOff := (P+res.Objective)/P, (Po+reso.Objective)/Po
		if gapOff < 2*def.HingeGapRel {
			t.Errorf("%s: relative gap %.3g without the rule: the case no longer exercises it", name, gapOff)
		}
		limit := reso.Operations + int64(def.HingeGapSpend*float64(reso.Operations))
		if gap > def.HingeGapRel*(1+1e-9) && res.Operations < limit {
			t.Errorf("%s: relative gap %.4g > %g after %d operations, within the budget %d", name, gap, def.HingeGapRel, res.Operations, limit)
		}
		if nnz := d.RowPtr[d.Rows]; res.Operations > limit+3*nnz {
			t.Errorf("%s: %d operations, over the budget %d by more than an epoch and a pass", name, res.Operations, limit)
		}
		if !(gap < gapOff) || !res.Converged {
			t.Errorf("%s: relative gap %.4g with the rule, %.4g without; converged %v", name, gap, gapOff, res.Converged)
		}
		s.Kind = L2LossSVR
		m, _, _ = train(context.Background(), d, s)
		mo, _, _ = train(offCtx, d, s)
		if !slices.Equal(m.W, mo.W) {
			t.Errorf("%s: -s 12 changed with the rule off", name)
		}
	}
}
