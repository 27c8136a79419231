package cocoa

import (
	"errors"
	"fmt"
	"math"

	"github.com/acfcd/acfcd"
	"github.com/acfcd/acfcd/acf"
	"github.com/acfcd/acfcd/internal/mix"
	dataio "github.com/acfcd/acfcd/io"
	"github.com/acfcd/acfcd/model"
	"github.com/acfcd/acfcd/solver"
	"github.com/acfcd/acfcd/solver/dcd"
)

// Spec is what every block of one training shares.
type Spec struct {
	// Problem is acfcd.SquaredHingeDual (-s 1), HingeDual (-s 3) or
	// LogisticDual (-s 7).
	Problem acfcd.Problem
	C       float64 // the cost, > 0
	Bias    float64 // > 0: every example gets a bias feature of this value
	// Select is the local selection; Auto means ACF.
	Select acfcd.Selection
	Seed   uint64 // 0 means acfcd.DefaultSeed
	ACF    acf.Config
	// K is the number of blocks.
	K int
	// Sigma is σ', the scale of each block's quadratic term; 0 means K,
	// which makes the added updates safe (γ = 1). A smaller σ' takes
	// bolder local steps and needs the driver's line search
	// (Options.LineSearch) to scale their sum.
	Sigma float64
	// Kappa > 0 makes every block solve the dual of the proximal problem
	// P(w) + κ/2‖w − z‖² of Catalyst (Options.OuterRounds): its σ' is
	// divided by 1 + κ, and the driver's w is κz/(1+κ) + Σ α_i y_i x_i/(1+κ).
	Kappa float64
	// Features is the number of features of all the data (1 + the
	// largest 0-based index), without the bias.
	Features int
	// Labels are the two class labels in liblinear's order (Labels):
	// Labels[0] is the positive class.
	Labels []float64
	Tuning *solver.Tuning // the driver's (nil: the defaults)
}

func (s *Spec) check() error {
	switch s.Problem {
	case acfcd.SquaredHingeDual, acfcd.HingeDual, acfcd.LogisticDual:
	default:
		return fmt.Errorf("cocoa: -s %s is not a dual problem of CoCoA+ (want -s 1, 3 or 7)", s.Problem.Flag())
	}
	if !(s.C > 0) || math.IsInf(s.C, 0) {
		return fmt.Errorf("cocoa: C = %g must be a positive finite number", s.C)
	}
	if s.K < 1 {
		return fmt.Errorf("cocoa: %d blocks (want at least 1)", s.K)
	}
	if s.Sigma != 0 && !(s.Sigma >= 1 && s.Sigma <= float64(s.K)) {
		return fmt.Errorf("cocoa: σ' = %g (want 1 to K = %d)", s.Sigma, s.K)
	}
	if len(s.Labels) != 2 {
		return fmt.Errorf("cocoa: %d classes; distributed training takes two", len(s.Labels))
	}
	if s.Features < 0 || s.Features >= math.MaxInt32 {
		return fmt.Errorf("cocoa: %d features", s.Features)
	}
	return nil
}

// sigma is σ'.
func (s *Spec) sigma() float64 {
	if s.Sigma != 0 {
		return s.Sigma
	}
	return float64(s.K)
}

func (s *Spec) loss() dcd.Loss {
	switch s.Problem {
	case acfcd.HingeDual:
		return dcd.L1SVM
	case acfcd.LogisticDual:
		return dcd.Logistic
	}
	return dcd.L2SVM
}

func (s *Spec) selection() solver.Selection {
	sel := s.Select
	if sel == acfcd.AutoSelection {
		sel = solver.ACF
	}
	if s.Problem == acfcd.LogisticDual && (sel == solver.Shrink || sel == solver.ACFShrink) {
		// No α_i of the logistic dual sits at a bound: nothing to shrink.
		sel = map[solver.Selection]solver.Selection{solver.Shrink: solver.Uniform, solver.ACFShrink: solver.ACF}[sel]
	}
	return sel
}

func (s *Spec) tuning() *solver.Tuning {
	if s.Tuning != nil {
		return s.Tuning
	}
	t := solver.DefaultTuning()
	return &t
}

func (s *Spec) bias() float64 {
	if s.Bias > 0 {
		return s.Bias
	}
	return -1
}

// Dim is the length of w: the features and a slot for the bias weight
// (0 without a bias).
func (s *Spec) Dim() int { return s.Features + 1 }

// Model returns the liblinear model of weights w (len Dim()).
func (s *Spec) Model(w []float64) *model.Model {
	rows := s.Features
	if s.Bias > 0 {
		rows++
	}
	return &model.Model{SolverType: s.Problem.String(), Labels: append([]float64(nil), s.Labels...),
		NumFeature: s.Features, Bias: s.bias(), NrW: 1, W: append([]float64(nil), w[:rows]...)}
}

// Labels returns the class labels of y in liblinear's order (first
// appearance, except that -1 then +1 becomes +1, -1), or an error naming
// the row if y does not hold exactly two integer labels. seen, if not nil,
// are labels already found (earlier shards) in that order.
func Labels(seen, y []float64) ([]float64, error) {
	labels := append([]float64(nil), seen...)
	if len(labels) == 2 && labels[0] == 1 && labels[1] == -1 {
		labels[0], labels[1] = -1, 1 // undo the swap: first appearance
	}
	for i, v := range y {
		if v != math.Trunc(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("row %d: label %g is not an integer", i+1, v)
		}
		if v == 0 {
			v = 0
		}
		found := false
		for _, l := range labels {
			found = found || l == v
		}
		if !found {
			if len(labels) == 2 {
				return nil, fmt.Errorf("row %d: a third class, label %g (distributed training takes two)", i+1, v)
			}
			labels = append(labels, v)
		}
	}
	if len(labels) == 2 && labels[0] == -1 && labels[1] == 1 {
		labels[0], labels[1] = 1, -1
	}
	return labels, nil
}

// Block is one worker's part of the examples and its state: α and the
// local selection, kept from round to round.
type Block struct {
	ID     int
	p      *dcd.Problem
	run    *solver.Budget
	alpha0 []float64
	dw     []float64 // Δw accumulator, all 0 between rounds
	v      []float64 // w + σ'Δw during a round
	moved  []int32
	start  Sparse
	rounds int
}

// NewBlock returns block id of spec over the examples of d (its rows; its
// feature count must not exceed spec.Features) at the dual's starting
// point.
func NewBlock(spec Spec, id int, d *dataio.Dataset) (*Block, error) {
	if err := spec.check(); err != nil {
		return nil, err
	}
	if d.Features > spec.Features {
		return nil, fmt.Errorf("cocoa: block %d has %d features, more than the %d of all the data", id, d.Features, spec.Features)
	}
	for i, v := range d.Label {
		if v != spec.Labels[0] && v != spec.Labels[1] {
			return nil, fmt.Errorf("cocoa: block %d, row %d: label %g is neither %g nor %g", id, i+1, v, spec.Labels[0], spec.Labels[1])
		}
	}
	dd := *d
	dd.Features = spec.Features
	t, dt := spec.tuning(), dcd.DefaultTuning()
	sh := dcd.NewData(&dd, spec.bias(), &dt)
	p := dcd.New(sh, spec.loss(), 0, make([]float64, spec.Dim()), nil, t, &dt)
	p.Reset(spec.Labels[0], spec.C, spec.C)
	p.SetSigma(spec.sigma() / (1 + spec.Kappa))
	seed := spec.Seed
	if seed == 0 {
		seed = acfcd.DefaultSeed
	}
	seed = mix.Seed(seed, uint64(id))
	cfg := solver.Config{Selection: spec.selection(), Seed: seed, ACF: spec.ACF, Work: 2 * sh.NNZ(), Tuning: t}
	b := &Block{ID: id, p: p, alpha0: make([]float64, sh.N), dw: make([]float64, spec.Dim())}
	b.run = solver.NewBudget(p, cfg, mix.Seed(seed, 1))
	for j, v := range p.W {
		if v != 0 {
			b.start.Index = append(b.start.Index, int32(j))
			b.start.Value = append(b.start.Value, v)
		}
	}
	return b, nil
}

// Len is the number of examples of the block.
func (b *Block) Len() int { return b.p.N }

// Start returns the block's part Σ_{i∈k} α_i y_i x_i of w at the starting
// point (empty but for -s 7, whose α starts above 0).
func (b *Block) Start() Sparse { return b.start }

// Gap returns the block's parts of the duality gap at the shared w (len
// Spec.Dim()) and the block's α: Σ_i C_i loss_i(w) and Σ_i ℓ*_i(α_i).
func (b *Block) Gap(w []float64) (loss, conj float64) { return b.p.GapParts(w) }

// Update is what a block sends back from a round.
type Update struct {
	Block int
	DW    Sparse // Δw = Σ_{i∈k} Δα_i y_i x_i
	Steps int64  // coordinate steps taken
}

// Round takes steps coordinate steps on the local subproblem from the
// shared w (len Spec.Dim(), not changed) and returns Δw. The block's α
// moves on to α + Δα: the caller adds Δw to w.
func (b *Block) Round(w []float64, steps int64) Update {
	p := b.p
	if len(w) != len(b.dw) {
		panic(fmt.Sprintf("cocoa: w has %d entries, want %d", len(w), len(b.dw)))
	}
	if b.v == nil {
		b.v = make([]float64, len(w))
	}
	copy(b.v, w)
	p.W = b.v
	copy(b.alpha0, p.Alpha)
	// The subproblem is new (its linear term is the new w): shrinking
	// decisions made in the last round no longer hold.
	b.run.Moved()
	before := b.run.Run().Steps
	b.run.Steps(steps)
	u := Update{Block: b.ID, Steps: b.run.Run().Steps - before}
	b.rounds++
	b.moved = b.moved[:0]
	p.AddDelta(b.alpha0, b.dw, func(i int32) { b.moved = append(b.moved, i) })
	// Gather the non-zeros of Δw by the rows that moved, clearing the
	// accumulator as they are taken.
	for _, i := range b.moved {
		a, e := p.RP[i], p.RP[i+1]
		for _, j := range p.Idx[a:e] {
			if v := b.dw[j]; v != 0 {
				u.DW.Index = append(u.DW.Index, j)
				u.DW.Value = append(u.DW.Value, v)
				b.dw[j] = 0
			}
		}
	}
	if nf := len(b.dw) - 1; b.dw[nf] != 0 {
		u.DW.Index = append(u.DW.Index, int32(nf))
		u.DW.Value = append(u.DW.Value, b.dw[nf])
		b.dw[nf] = 0
	}
	return u
}

// Line returns the block's parts of the dual along its last round's
// step Δ (see dcd.Problem.LineParts): lin, quad and the largest feasible
// γ; ok is false for logistic regression, which has no closed form.
func (b *Block) Line() (lin, quad, top float64, ok bool) { return b.p.LineParts(b.alpha0) }

// Scale applies the line search's γ to the last round's step: α becomes
// α0 + γΔ, which matches the w + γΣ_k Δw_k the driver forms.
func (b *Block) Scale(gamma float64) { b.p.ScaleStep(b.alpha0, gamma) }

// StepStart returns a copy of α at the start of the last round: with
// State, what Scale needs in another process.
func (b *Block) StepStart() []float64 { return append([]float64(nil), b.alpha0...) }

// Alpha returns the block's α (the solver's slice: read only).
func (b *Block) Alpha() []float64 { return b.p.Alpha }

// ErrEmpty is returned for data without examples.
var ErrEmpty = errors.New("cocoa: no examples")

// State is a block's state between rounds: what a block rebuilt from its
// examples in another process needs to go on as if it had stayed (but
// for the random stream of the local selection, which a Spec.Seed of its
// own for each round should renew).
type State struct {
	Alpha  []float64
	AlphaC []float64 // -s 7: C_i − α_i, kept apart for precision
	Pref   []float32 // the ACF preferences; nil for the other selections
	Credit []float32 // the ACF scheduler's credits
	Rbar   float64
	Warm   bool  // the ACF warm-up has ended
	Steps  int64 // coordinate steps so far
	Rounds int   // rounds taken
	// Alpha0 is α at the start of the last round, kept only for a line
	// search (Block.StepStart), whose γ the next round applies with
	// Block.Scale.
	Alpha0 []float64
}

// State returns a copy of the block's state.
func (b *Block) State() State {
	st := State{Alpha: append([]float64(nil), b.p.Alpha...), Steps: b.run.Run().Steps, Rounds: b.rounds}
	if b.p.AlphaC != nil {
		st.AlphaC = append([]float64(nil), b.p.AlphaC...)
	}
	if pr := b.run.Prefs(); pr != nil {
		st.Pref, st.Rbar, st.Warm = pr.State()
		st.Credit = b.run.Scheduler().Credits()
	}
	return st
}

// Restore sets the block's state to st, taken from a block over the same
// examples and Spec.
func (b *Block) Restore(st State) error {
	p := b.p
	if len(st.Alpha) != p.N || (p.AlphaC != nil) != (st.AlphaC != nil) || st.AlphaC != nil && len(st.AlphaC) != p.N {
		return fmt.Errorf("cocoa: block %d: a state of %d examples for %d", b.ID, len(st.Alpha), p.N)
	}
	if pr := b.run.Prefs(); pr != nil && st.Pref != nil {
		if err := pr.Restore(st.Pref, st.Rbar, st.Warm); err != nil {
			return fmt.Errorf("cocoa: block %d: %v", b.ID, err)
		}
		if st.Credit != nil {
			if err := b.run.Scheduler().SetCredits(st.Credit); err != nil {
				return fmt.Errorf("cocoa: block %d: %v", b.ID, err)
			}
		}
		b.run.Resumed()
	}
	if st.Alpha0 != nil {
		if len(st.Alpha0) != p.N {
			return fmt.Errorf("cocoa: block %d: a step start of %d examples for %d", b.ID, len(st.Alpha0), p.N)
		}
		copy(b.alpha0, st.Alpha0)
	}
	copy(p.Alpha, st.Alpha)
	copy(p.AlphaC, st.AlphaC)
	b.run.Run().Steps = st.Steps
	b.rounds = st.Rounds
	return nil
}
