package cocoa

import "fmt"

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
