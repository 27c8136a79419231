package solver

import (
	"strings"
	"testing"

	"github.com/acfcd/acfcd/acf"
)

// spyMode watches acf+shrink's failed full KKT passes.
type spyMode struct {
	*acfMode
	t         *testing.T
	violators []int32
	failed    int // failed passes
	partial   int // of which the other shrunk coordinates stayed shrunk
}

func (s *spyMode) failedCheck() {
	wk := s.wk
	before := append([]uint64(nil), wk.shrunk...)
	for _, i := range s.violators {
		if p := s.prefs.P(int(i)); p != acf.DefaultPMax {
			s.t.Errorf("violator %d: preference %v, want p_max %v", i, p, acf.DefaultPMax)
		}
		if wk.shrunk[i>>6]&(1<<(i&63)) != 0 {
			s.t.Errorf("violator %d is still shrunk", i)
		}
	}
	s.acfMode.failedCheck()
	s.failed++
	kept := true
	for k, b := range before {
		if wk.shrunk[k] != b {
			kept = false
		}
	}
	if kept {
		s.partial++
		// The active list must hold exactly the coordinates not shrunk.
		on := make([]bool, wk.n)
		for _, i := range wk.active {
			if on[i] {
				s.t.Fatalf("coordinate %d twice in the active list", i)
			}
			on[i] = true
		}
		for i := range wk.n {
			if shr := wk.shrunk[i>>6]&(1<<(i&63)) != 0; shr == on[i] {
				s.t.Fatalf("coordinate %d: shrunk %v, in the active list %v", i, shr, on[i])
			}
		}
	} else if s.failed%(partialUnshrinks+1) != 0 && len(s.violators) > 0 {
		s.t.Errorf("failed pass %d with %d violators unshrank everything", s.failed, len(s.violators))
	}
	s.violators = s.violators[:0]
}

// TestViolatorsBoosted: when the full KKT pass of acf+shrink fails, each
// violator it steps on gets the largest preference and, if shrunk, comes
// back; the other shrunk coordinates stay shrunk for up to
// partialUnshrinks failed passes in a row, then liblinear's unshrink of all
// follows. The run still converges, certified independently.
func TestViolatorsBoosted(t *testing.T) {
	d := genData(genSpec{seed: 5, rows: 3000, feats: 40, density: 0.2, labels: []float64{1, -1}, noise: 0.05})
	const eps = 1e-4
	sh := newShared(d, l1svm, selACFShrink, eps, -1, 1000, Params{}.ACF)
	wk := newWorker(sh, nil)
	sub := &subproblem{cp: 10, cn: 10, seed: 3}
	sel := wk.prepare(sub, 1)
	wk.switchOps = 0
	m := &spyMode{acfMode: wk.newMode(sel, sub.seed).(*acfMode), t: t}
	wk.onViolator = func(i int32) {
		m.acfMode.violator(i)
		m.violators = append(m.violators, i)
	}
	if !wk.run(m) {
		t.Fatal("did not converge")
	}
	if m.failed == 0 || m.partial == 0 {
		t.Fatalf("%d failed KKT passes, %d partial unshrinks: the test needs some", m.failed, m.partial)
	}
	mdl := &Model{W: wk.w, NrW: 1, Bias: -1}
	ind := evalIndependent(d, mdl, 0, hookData{alpha: wk.alpha, y: wk.y, ub: wk.ub, diag: wk.diag}, 3)
	if ind.violation > eps*(1+1e-9) || ind.wDiff > 1e-9 {
		t.Errorf("independent violation %g (eps %g), w mismatch %g", ind.violation, eps, ind.wDiff)
	}
	t.Logf("%d failed passes, %d partial; %d steps", m.failed, m.partial, wk.steps)
}

// TestEarlyCheck: the acf selections run their first full KKT pass once a
// sweep's violation is within earlyCheck·eps, before it is within eps, and
// still end certified within eps.
func TestEarlyCheck(t *testing.T) {
	d := genData(genSpec{seed: 5, rows: 3000, feats: 40, density: 0.2, labels: []float64{1, -1}, noise: 0.05})
	const eps = 1e-3
	for _, sel := range []string{"acf", "acf+shrink"} {
		var lastViol float64
		var first []float64 // the sweep violation before each KKT pass
		debugf = func(format string, args ...any) {
			switch {
			case strings.HasPrefix(format, "batch:"):
				lastViol = args[2].(float64)
			case strings.HasPrefix(format, "class %d: kkt pass"):
				first = append(first, lastViol)
			}
		}
		debugBatches = true
		p := Params{Solver: 3, C: 1, Eps: eps, Select: sel, Seed: 2, NoFallback: true}
		m, res, duals := mustTrain(t, d, p)
		debugf, debugBatches = nil, false
		// wk.eps is eps/2 for the SVMs (see train.go).
		if len(first) == 0 || !(first[0] > eps/2 && first[0] <= earlyCheck*eps/2) {
			t.Errorf("%s: sweep violations before the KKT passes %v; want the first in (%g, %g]", sel, first, eps/2, earlyCheck*eps/2)
		}
		ind := evalIndependent(d, m, 0, duals[0], 3)
		if !res.Converged || ind.violation > eps*(1+1e-9) {
			t.Errorf("%s: converged %v, independent violation %g", sel, res.Converged, ind.violation)
		}
	}
}
