package dual

import (
	"strings"
	"testing"

	"github.com/acfcd/acfcd/internal/synth"
	"github.com/acfcd/acfcd/model"
	solver "github.com/acfcd/acfcd/solver"
	"github.com/acfcd/acfcd/solver/dcd"
	"github.com/acfcd/acfcd/solver/fit"
)

// spyProblem is a -s 3 subproblem that watches what the driver does with
// acf+shrink around failed full KKT passes. It keeps its own account of
// the shrunk coordinates: a coordinate is shrunk from the step that
// reports it so until a failed pass steps on it (a violator) or the driver
// brings every coordinate back, at every PartialUnshrinks+1-th failed
// pass in a row.
type spyProblem struct {
	*dcd.Problem
	t         *testing.T
	tune      *solver.Tuning
	shrunk    []bool
	visited   []bool  // in the current batch
	violators []int32 // of the last failed pass, until the next batch ends
	failed    int     // failed passes
	partial   int     // after which some coordinate that did not violate stayed shrunk
	unvisited int     // violators not stepped on in the batch after their pass
}

func (s *spyProblem) Step(i, ahead int32, th solver.Thresholds) (pg, gain float64, shrink bool) {
	if s.shrunk[i] {
		s.t.Fatalf("coordinate %d stepped on while shrunk (after %d failed passes)", i, s.failed)
	}
	s.visited[i] = true
	pg, gain, shrink = s.Problem.Step(i, ahead, th)
	s.shrunk[i] = shrink
	return pg, gain, shrink
}

func (s *spyProblem) EndBatch(entries int, stopped bool) float64 {
	// A violator has the largest preference p_max: the next sweep visits
	// it at least once (m·p_max/Σp ≥ 1 steps of the m active ones).
	for _, i := range s.violators {
		if !s.visited[i] {
			s.unvisited++
			s.t.Errorf("violator %d of failed pass %d not stepped on in the next batch", i, s.failed)
		}
	}
	s.violators = s.violators[:0]
	clear(s.visited)
	return s.Problem.EndBatch(entries, stopped)
}

func (s *spyProblem) Pass(r *solver.Run, repair bool) bool {
	alpha := append([]float64(nil), s.Alpha...)
	ok := s.Problem.Pass(r, repair)
	if ok || !repair {
		return ok
	}
	s.failed++
	for i, a := range alpha {
		if s.Alpha[i] != a {
			s.violators = append(s.violators, int32(i))
			s.shrunk[i] = false
		}
	}
	if s.failed%(s.tune.PartialUnshrinks+1) == 0 {
		clear(s.shrunk) // liblinear's unshrink of all
	} else {
		for _, sh := range s.shrunk {
			if sh {
				s.partial++
				break
			}
		}
	}
	return ok
}

// TestViolatorsBoosted: when the full KKT pass of acf+shrink fails, each
// violator it steps on gets the largest preference and, if shrunk, comes
// back; the other shrunk coordinates stay shrunk for up to
// PartialUnshrinks failed passes in a row, then liblinear's unshrink of
// all follows. The run still converges, certified independently.
func TestViolatorsBoosted(t *testing.T) {
	d := synth.Classes(synth.ClassesConfig{Seed: 5, Rows: 3000, Feats: 40, Density: 0.2, Labels: []float64{1, -1}, Noise: 0.05})
	const eps = 1e-4
	drv, dt := solver.DefaultTuning(), dcd.DefaultTuning()
	sh := dcd.NewData(d, -1, &dt)
	s := &spyProblem{Problem: dcd.New(sh, dcd.L1SVM, eps, nil, nil, &drv, &dt), t: t, tune: &drv,
		shrunk: make([]bool, d.Rows), visited: make([]bool, d.Rows)}
	obj := s.Reset(1, 10, 10)
	// Train's -s 3 run without a finisher (classifiers.go).
	r := solver.NewRun(s, solver.Config{Selection: solver.ACFShrink, Seed: 3, Eps: eps, MaxEpochs: 1000, EarlyCheck: true,
		Repair: solver.RepairMax, Work: 2 * sh.NNZ(), Tuning: &drv})
	r.Obj = obj
	if !r.Solve(3) {
		t.Fatal("did not converge")
	}
	if s.failed == 0 || s.partial == 0 {
		t.Fatalf("%d failed KKT passes, %d partial unshrinks: the test needs some", s.failed, s.partial)
	}
	mdl := &model.Model{W: s.W[:sh.NF], NrW: 1, Bias: -1}
	ind := evalIndependent(d, mdl, 0, duals{alpha: s.Alpha, y: s.Y, ub: s.UB, diag: s.Diag}, L1LossSVC)
	if ind.violation > eps*(1+1e-9) || ind.wDiff > 1e-9 {
		t.Errorf("independent violation %g (eps %g), w mismatch %g", ind.violation, eps, ind.wDiff)
	}
	t.Logf("%d failed passes, %d partial; %d steps", s.failed, s.partial, r.Steps)
}

// TestEarlyCheck: the acf selections run their first full KKT pass once a
// sweep's violation is within solver.Tuning.EarlyCheck·eps, before it is
// within eps, and still end certified within eps.
func TestEarlyCheck(t *testing.T) {
	d := synth.Classes(synth.ClassesConfig{Seed: 5, Rows: 3000, Feats: 40, Density: 0.2, Labels: []float64{1, -1}, Noise: 0.05})
	const eps = 1e-3
	early := solver.DefaultTuning().EarlyCheck
	for _, sel := range []solver.Selection{solver.ACF, solver.ACFShrink} {
		var lastViol float64
		var first []float64 // the sweep violation before each KKT pass
		s := Spec{Spec: fit.Spec{C: 1, Eps: eps, Select: sel, Seed: 2, NoFallback: true,
			Trace: func(format string, args ...any) {
				switch {
				case strings.HasPrefix(format, "batch:"):
					lastViol = args[2].(float64)
				case strings.HasPrefix(format, "kkt pass"):
					first = append(first, lastViol)
				}
			}}, Kind: L1LossSVC}
		m, res, duals := mustTrain(t, d, s)
		// The driver's eps is eps/2 for the SVMs (see classifiers.go).
		if len(first) == 0 || !(first[0] > eps/2 && first[0] <= early*eps/2) {
			t.Errorf("%s: sweep violations before the KKT passes %v; want the first in (%g, %g]", sel, first, eps/2, early*eps/2)
		}
		ind := evalIndependent(d, m, 0, duals[0], L1LossSVC)
		if !res.Converged || ind.violation > eps*(1+1e-9) {
			t.Errorf("%s: converged %v, independent violation %g", sel, res.Converged, ind.violation)
		}
	}
}
