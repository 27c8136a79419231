package finish

import (
	"math"
	"testing"
)

// ruleStep is one epoch's end as the switch rule sees it, and what it
// should do there.
type ruleStep struct {
	cost     int64   // the dual's cost so far
	viol     float64 // the last epoch's violation (eps is 1e-3)
	gap      float64 // what the gap measurement returns (|f| is 100)
	due      bool    // switch now
	gapCalls int     // gap measurements made in this step
	budget   int64   // the budget after the step
}

// TestRule: the switch rule, epoch by epoch, with a budget of 1000 and an
// estimate of 1000 more at each deferral, counting the gap measurements
// (a pass over the data each) and the estimates. With the defaults,
// eps = 1e-3 and |f| = 100: the -s 3 probe at cost 500 switches on a
// violation above 0.01 and a gap of at least 10; near the optimum is a
// gap of at most 0.01; a Newton-CG dual within a violation of 0.004 gets
// 20 passes over its 100 non-zeros, 2000 more.
func TestRule(t *testing.T) {
	const eps, obj, nnz = 1e-3, -100.0, 100
	type kind int
	const (
		plain kind = iota // -s 1, 7 with dense Newton
		hinge             // -s 3
		tron              // -s 1, 7 with Newton-CG
	)
	for _, tc := range []struct {
		name   string
		kind   kind
		budget int64
		tune   func(*Tuning)
		steps  []ruleStep
	}{
		{name: "below the budget, then at it", kind: plain, budget: 1000, steps: []ruleStep{
			{cost: 999, viol: 1e-9, gap: 0, due: false, budget: 1000},
			{cost: 1000, viol: 1e-9, gap: 0, due: true, budget: 1000},
		}},
		{name: "budget 0: never", kind: hinge, budget: 0, steps: []ruleStep{
			{cost: 1 << 50, viol: 1, gap: 1e9, due: false, budget: 0},
		}},
		{name: "budget 0: never (Newton-CG)", kind: tron, budget: 0, steps: []ruleStep{
			{cost: 1 << 50, viol: 1, gap: 1e9, due: false, budget: 0},
		}},

		// The -s 3 probe.
		{name: "probe: far", kind: hinge, budget: 1000, steps: []ruleStep{
			{cost: 499, viol: 1, gap: 1e9, due: false, budget: 1000},
			{cost: 500, viol: 0.011, gap: 10, due: true, gapCalls: 1, budget: 1000},
		}},
		{name: "probe: gap not far, and only once", kind: hinge, budget: 1000, steps: []ruleStep{
			{cost: 500, viol: 1, gap: 9.99, due: false, gapCalls: 1, budget: 1000},
			{cost: 600, viol: 1, gap: 1e9, due: false, budget: 1000},
			{cost: 1000, viol: 1, gap: 1e9, due: true, gapCalls: 1, budget: 1000},
		}},
		{name: "probe: violation not far, no gap needed", kind: hinge, budget: 1000, steps: []ruleStep{
			{cost: 500, viol: 0.01, gap: 1e9, due: false, budget: 1000},
			{cost: 999, viol: 1, gap: 1e9, due: false, budget: 1000},
		}},
		{name: "probe at IPMProbeAt", kind: hinge, budget: 1000, tune: func(t *Tuning) { t.IPMProbeAt = 0.8 }, steps: []ruleStep{
			{cost: 799, viol: 1, gap: 1e9, due: false, budget: 1000},
			{cost: 800, viol: 1, gap: 1e9, due: true, gapCalls: 1, budget: 1000},
		}},
		{name: "probe off", kind: hinge, budget: 1000, tune: func(t *Tuning) { t.IPMProbeAt = math.Inf(1) }, steps: []ruleStep{
			{cost: 999, viol: 1, gap: 1e9, due: false, budget: 1000},
			{cost: 1000, viol: 1, gap: 1e9, due: true, gapCalls: 1, budget: 1000},
		}},
		{name: "no probe for -s 1 and 7", kind: plain, budget: 1000, steps: []ruleStep{
			{cost: 999, viol: 1, gap: 1e9, due: false, budget: 1000},
		}},
		{name: "no probe after a deferral", kind: hinge, budget: 1000, tune: func(t *Tuning) { t.IPMProbeAt, t.IPMMaxDefer = 1.5, 1 }, steps: []ruleStep{
			{cost: 1000, viol: 1e-3, gap: 0.005, due: false, gapCalls: 1, budget: 2000},
			{cost: 3000, viol: 1, gap: 1e9, due: true, budget: 2000},
		}},

		// -s 3's deferral near the optimum (the probe point passed with a
		// violation not far: no gap measured there).
		{name: "defer while the gap halves", kind: hinge, budget: 1000, steps: []ruleStep{
			{cost: 500, viol: 1e-3, gap: 1e9, due: false, budget: 1000},
			{cost: 1000, viol: 1e-3, gap: 0.005, due: false, gapCalls: 1, budget: 2000},
			{cost: 1999, viol: 1e-3, gap: 1e9, due: false, budget: 2000},
			{cost: 2000, viol: 1e-3, gap: 0.0025, due: false, gapCalls: 1, budget: 3000},
			{cost: 3000, viol: 1e-3, gap: 0.0013, due: true, gapCalls: 1, budget: 3000},
		}},
		{name: "defer at most IPMMaxDefer times", kind: hinge, budget: 1000, steps: []ruleStep{
			{cost: 1000, viol: 1e-3, gap: 0.01, due: false, gapCalls: 1, budget: 2000},
			{cost: 2000, viol: 1e-3, gap: 0.005, due: false, gapCalls: 1, budget: 3000},
			{cost: 3000, viol: 1e-3, gap: 0.002, due: false, gapCalls: 1, budget: 4000},
			{cost: 4000, viol: 1e-3, gap: 0.001, due: false, gapCalls: 1, budget: 5000},
			{cost: 5000, viol: 1e-3, gap: 0, due: true, budget: 5000},
		}},
		{name: "no deferral above IPMNearGap", kind: hinge, budget: 1000, steps: []ruleStep{
			{cost: 1000, viol: 1e-3, gap: 0.0101, due: true, gapCalls: 1, budget: 1000},
		}},
		{name: "no deferral with IPMMaxDefer 0", kind: hinge, budget: 1000, tune: func(t *Tuning) { t.IPMMaxDefer = 0 }, steps: []ruleStep{
			{cost: 500, viol: 1e-3, gap: 0, due: false, budget: 1000},
			{cost: 1000, viol: 1e-3, gap: 0, due: true, budget: 1000},
		}},
		{name: "no deferral for -s 1 and 7", kind: plain, budget: 1000, steps: []ruleStep{
			{cost: 1000, viol: 1e-3, gap: 0, due: true, budget: 1000},
		}},

		// Newton-CG's deferral while the dual is nearly done.
		{name: "Newton-CG: defer near eps", kind: tron, budget: 1000, steps: []ruleStep{
			{cost: 1000, viol: 0.004, gap: 0, due: false, budget: 1000},
			{cost: 2999, viol: 1, gap: 0, due: false, budget: 1000},
			{cost: 3000, viol: 0.004, gap: 0, due: true, budget: 1000},
		}},
		{name: "Newton-CG: no deferral above TronNearViol", kind: tron, budget: 1000, steps: []ruleStep{
			{cost: 1000, viol: 0.0041, gap: 0, due: true, budget: 1000},
		}},
		{name: "Newton-CG: the deferral starts at the budget", kind: tron, budget: 1000, steps: []ruleStep{
			{cost: 999, viol: 1e-9, gap: 0, due: false, budget: 1000},
			{cost: 1500, viol: 1, gap: 0, due: true, budget: 1000},
		}},
		{name: "Newton-CG: TronDeferPasses 0", kind: tron, budget: 1000, tune: func(t *Tuning) { t.TronDeferPasses = 0 }, steps: []ruleStep{
			{cost: 1000, viol: 1e-9, gap: 0, due: true, budget: 1000},
		}},
		{name: "no Newton-CG deferral for dense Newton", kind: plain, budget: 1000, steps: []ruleStep{
			{cost: 1000, viol: 1e-9, gap: 0, due: true, budget: 1000},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tune := DefaultTuning()
			if tc.tune != nil {
				tc.tune(&tune)
			}
			u := rule{t: &tune}
			u.reset(tc.budget)
			for k, st := range tc.steps {
				calls, estimates := 0, 0
				prev := u.budget
				due := u.due(state{cost: st.cost, lastViol: st.viol, eps: eps, obj: obj, hinge: tc.kind == hinge, tron: tc.kind == tron, nnz: nnz},
					func() float64 { calls++; return st.gap },
					func() int64 { estimates++; return st.cost + 1000 })
				// A new estimate is asked for exactly when the switch is
				// put off with a new budget.
				want := 0
				if st.budget != prev {
					want = 1
				}
				if due != st.due || calls != st.gapCalls || u.budget != st.budget || estimates != want {
					t.Errorf("step %d (%+v): due %v, %d gap measurements, budget %d (%d new estimates)", k, st, due, calls, u.budget, estimates)
				}
			}
		})
	}
}
