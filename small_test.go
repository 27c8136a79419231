package acfcd

import (
	"bytes"
	"testing"

	"github.com/acfcd/acfcd/internal/synth"
	dataio "github.com/acfcd/acfcd/io"
)

// modelBytes returns m as its model file.
func modelBytes(t *testing.T, m *Model) []byte {
	t.Helper()
	var b bytes.Buffer
	if _, err := m.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestSmallTighten: on a set of at most Tuning.SmallNNZ non-zeros the
// coordinate descent solvers stop at eps·SmallTighten while Result.Eps
// stays the user's: the violation recomputed from the model and α (the
// duals) or reported against liblinear's relative rule (-s 5, 6) is within
// the tightened target, where the same runs with the rule off end above
// it (so the data exercises the rule).
func TestSmallTighten(t *testing.T) {
	// More features than examples: no Newton finisher, dual CD stops.
	d := synth.Text(synth.TextConfig{Rows: 300, Features: 1000, MeanNNZ: 10, Informative: 50, Noise: 0.1, Seed: 3})
	def := DefaultTuning()
	if d.NNZ() > def.SmallNNZ {
		t.Fatalf("%d non-zeros: not small", d.NNZ())
	}
	off := DefaultTuning()
	off.SmallTighten = 0
	f := def.SmallTighten
	for _, s := range []Problem{SquaredHingeDual, HingeDual, LogisticDual, L1SquaredHinge, L1Logistic} {
		// The violation of the run at seed; for the duals recomputed
		// independently, with liblinear's target (eps/2 for the SVMs).
		viol := func(seed uint64, tu *Tuning) (v, target float64) {
			p := Params{Problem: s, Seed: seed, Tuning: tu}
			m, res, hs := mustTrain(t, d, p)
			target = 0.1
			if s == L1SquaredHinge || s == L1Logistic {
				target = DefaultL1Eps
			}
			if res.Eps != target || !res.Converged {
				t.Errorf("-s %s seed %d: eps %g, converged %v", s.Flag(), seed, res.Eps, res.Converged)
			}
			if hs == nil {
				return res.Violation, target
			}
			if s != LogisticDual {
				target /= 2
			}
			return evalIndependent(d, m, 0, hs[0], s).violation, target
		}
		var worstOff float64
		for seed := uint64(1); seed <= 3; seed++ {
			v, target := viol(seed, nil)
			if v > f*target*(1+1e-9) {
				t.Errorf("-s %s seed %d: violation %.3g above the tightened %.3g", s.Flag(), seed, v, f*target)
			}
			vo, _ := viol(seed, &off)
			worstOff = max(worstOff, vo/target)
		}
		if worstOff <= f {
			t.Errorf("-s %s: with the rule off the largest violation is %.3g·eps: the data no longer exercises the rule", s.Flag(), worstOff)
		}
	}
}

// TestSmallTightenLarge: above Tuning.SmallNNZ non-zeros (or non-zeros
// times C) every coordinate descent solver gives the model of the rule
// switched off, byte for byte, and at the threshold the rule fires (a
// different model).
func TestSmallTightenLarge(t *testing.T) {
	bin := synth.Text(synth.TextConfig{Rows: 300, Features: 1000, MeanNNZ: 10, Informative: 50, Noise: 0.1, Seed: 4})
	multi := genData(genSpec{seed: 5, rows: 300, feats: 20, density: 0.5, labels: []float64{1, 2, 3}, noise: 0.1})
	low := genData(genSpec{seed: 4, rows: 300, feats: 20, density: 0.5, labels: []float64{1, -1}, noise: 0.1})
	reg := synth.Text(synth.TextConfig{Rows: 300, Features: 1000, MeanNNZ: 10, Informative: 50, Noise: 0.1, Seed: 6})
	for i := range reg.Label {
		reg.Label[i] *= float64(1 + i%7)
	}
	cases := []struct {
		s Problem
		d *dataio.Dataset
	}{
		{SquaredHingeDual, bin}, {HingeDual, bin}, {LogisticDual, bin}, {L1SquaredHinge, bin}, {L1Logistic, low},
		{CrammerSinger, multi}, {WestonWatkins, multi}, {SquaredHingeDual, multi},
		{SquaredSVRDual, reg}, {SVRDual, reg}, {OneClassSVM, bin},
	}
	for _, c := range cases {
		off := DefaultTuning()
		off.SmallTighten = 0
		above := DefaultTuning()
		above.SmallNNZ = c.d.NNZ() - 1
		at := DefaultTuning()
		at.SmallNNZ = c.d.NNZ()
		train := func(tu *Tuning) []byte {
			m, _, _ := mustTrain(t, c.d, Params{Problem: c.s, Seed: 1, Tuning: tu})
			return modelBytes(t, m)
		}
		ref := train(&off)
		if !bytes.Equal(train(&above), ref) {
			t.Errorf("-s %s: %d non-zeros above SmallNNZ, yet the model changed", c.s.Flag(), c.d.NNZ())
		}
		if bytes.Equal(train(&at), ref) {
			t.Errorf("-s %s: %d non-zeros at SmallNNZ, yet the model is that of the rule off", c.s.Flag(), c.d.NNZ())
		}
		if c.s == OneClassSVM {
			continue // no C
		}
		// At C = 2 the cost model, non-zeros times C, is above SmallNNZ.
		m2, _, _ := mustTrain(t, c.d, Params{Problem: c.s, C: 2, Seed: 1, Tuning: &at})
		m2off, _, _ := mustTrain(t, c.d, Params{Problem: c.s, C: 2, Seed: 1, Tuning: &off})
		if !bytes.Equal(modelBytes(t, m2), modelBytes(t, m2off)) {
			t.Errorf("-s %s: C = 2 puts the cost above SmallNNZ, yet the model changed", c.s.Flag())
		}
	}
}

// A small problem whose tightened target is out of reach within the
// epoch cap, at a point that meets the user's eps, is converged (as
// liblinear would report it), not capped.
func TestSmallTightenCapMeetsUserEps(t *testing.T) {
	d := synth.Text(synth.TextConfig{Rows: 300, Features: 1000, MeanNNZ: 10, Informative: 50, Noise: 0.1, Seed: 3})
	tu := DefaultTuning()
	tu.SmallTighten = 1e-9 // a target no run of 40 epochs reaches
	for _, s := range []Problem{SquaredHingeDual, HingeDual, LogisticDual} {
		m, res, hs := mustTrain(t, d, Params{Problem: s, Tuning: &tu, MaxEpochs: 40})
		want := 0.1
		if s != LogisticDual {
			want /= 2
		}
		v := evalIndependent(d, m, 0, hs[0], s).violation
		if !(v <= want*(1+1e-9)) {
			t.Fatalf("-s %s: violation %g above the user's %g: the case under test needs a run that meets it", s.Flag(), v, want)
		}
		if !res.Converged || res.HitEpochCap {
			t.Errorf("-s %s: converged %v, capped %v at violation %g (user's target %g)", s.Flag(), res.Converged, res.HitEpochCap, v, want)
		}
	}
}

// The same for the multi-class SVMs, whose passes certify eps (Weston–
// Watkins) and Tuning.CSCertify·eps (Crammer–Singer).
func TestSmallTightenCapMeetsUserEpsMulticlass(t *testing.T) {
	d := synth.Text(synth.TextConfig{Rows: 300, Features: 1000, MeanNNZ: 10, Informative: 50, Noise: 0.1, Seed: 3})
	tu := DefaultTuning()
	tu.SmallTighten, tu.SmallTightenCS = 1e-9, 1e-9
	for _, s := range []Problem{WestonWatkins, CrammerSinger} {
		_, res, _ := mustTrain(t, d, Params{Problem: s, Tuning: &tu, MaxEpochs: 40})
		want := res.Eps
		if s == CrammerSinger {
			want *= tu.CSCertify
		}
		if !(res.Violation <= want) {
			t.Fatalf("%s: violation %g above the user's %g: the case under test needs a run that meets it", s, res.Violation, want)
		}
		if !res.Converged || res.HitEpochCap {
			t.Errorf("%s: converged %v, capped %v at violation %g (user's target %g)", s, res.Converged, res.HitEpochCap, res.Violation, want)
		}
	}
}
