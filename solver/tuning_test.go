package solver

import "testing"

// TestDefaultTuning: a Run without Tuning runs with the defaults (which
// internal/tune's TestDefaults pins, with every family's).
func TestDefaultTuning(t *testing.T) {
	// A Run without Tuning runs with the defaults.
	r := NewRun(fixedScript(3), Config{Selection: Cyclic})
	if *r.Tuning() != DefaultTuning() {
		t.Errorf("NewRun without Tuning: %+v", *r.Tuning())
	}
}
