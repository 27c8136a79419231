package cocoa

import (
	"fmt"

	"github.com/acfcd/acfcd"
	dataio "github.com/acfcd/acfcd/io"
)

// Step is how the driver combines a round's K updates.
type Step int

const (
	// Add is CoCoA+: σ' = K and the updates added (γ = 1).
	Add Step = iota
	// Line is σ' = K with a line search on the sum of the updates
	// (Options.LineSearch): at least the decrease of Add.
	Line
	// Line1 takes the local steps at σ' = 1, as if each block were alone,
	// and leaves their scale to the line search.
	Line1
)

var stepNames = []string{"add", "line", "line1"}

func (s Step) String() string {
	if s >= 0 && int(s) < len(stepNames) {
		return stepNames[s]
	}
	return fmt.Sprintf("Step(%d)", int(s))
}

// ParseStep returns the Step named s (add, line or line1).
func ParseStep(s string) (Step, error) {
	for i, n := range stepNames {
		if s == n {
			return Step(i), nil
		}
	}
	return 0, fmt.Errorf("step %q: want add, line or line1", s)
}

// LineSearch reports whether the step needs the line search.
func (s Step) LineSearch() bool { return s != Add }

// Sigma is the σ' of Spec.Sigma for the step (0: K).
func (s Step) Sigma() float64 {
	if s == Line1 {
		return 1
	}
	return 0
}

// DefaultOuterRounds is the rounds per Catalyst step (Options.OuterRounds)
// that the measurements chose (docs/tuning.md).
const DefaultOuterRounds = 3

// DefaultKappa is the Catalyst κ for problem p at cost c on data whose
// examples have a mean squared norm meanSq (the bias feature included):
// the mean curvature of an example's loss term, L·mean‖x_i‖², with L = 2C
// for the squared hinge, C/4 for logistic regression, and 2C for the
// hinge too, which has none (docs/tuning.md). One block (plain coordinate
// descent) is not accelerated: 0.
func DefaultKappa(p acfcd.Problem, c, meanSq float64, k int) float64 {
	if k <= 1 {
		return 0
	}
	l := 2 * c
	if p == acfcd.LogisticDual {
		l = c / 4
	}
	return l * meanSq
}

// MeanSq returns the mean of ‖x_i‖² + bias² over d's examples (bias ≤ 0:
// none), for DefaultKappa.
func MeanSq(d *dataio.Dataset, bias float64) float64 {
	if d.Rows == 0 {
		return 0
	}
	var s float64
	for i := range d.Rows {
		_, val := d.Row(i)
		for _, v := range val {
			s += float64(v * v)
		}
	}
	if bias > 0 {
		s += float64(d.Rows) * bias * bias
	}
	return s / float64(d.Rows)
}
