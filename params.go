package acfcd

import (
	"context"
	"encoding"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/acfcd/acfcd/internal/procs"
	dataio "github.com/acfcd/acfcd/io"
	"github.com/acfcd/acfcd/solver/fit"
	"github.com/acfcd/acfcd/solver/lasso"
)

// ParamError is a parameter that a call refuses: the field (Param, e.g.
// "Params.C" or "SearchOptions.StartC"), the value it was given and why.
// Every check of Params is the library's; acfcd train maps Param to its
// flag.
type ParamError struct {
	Param  string
	Value  any
	Reason string
}

func (e *ParamError) Error() string { return e.Message(dataio.GoName) }

// Message is the error's text with the parameter and its value named by
// name (dataio.GoName gives "Params.C = -1"; acfcd train, "-c -1").
func (e *ParamError) Message(name func(param, value string) string) string {
	v := fmt.Sprint(e.Value)
	if t, ok := e.Value.(encoding.TextMarshaler); ok { // a Problem as its -s value
		if b, err := t.MarshalText(); err == nil {
			v = string(b)
		}
	}
	return name(e.Param, v) + ": " + e.Reason
}

func paramError(param string, value any, format string, args ...any) error {
	return &ParamError{Param: param, Value: value, Reason: fmt.Sprintf(format, args...)}
}

// finite reports whether x is a finite number.
func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// Check returns the error Train would return for p before it looks at
// any data (a *ParamError), as liblinear's check_parameter does, but for
// the LASSO without a Lambda: TrainPath, TrainPathLambdas and
// CrossValidatePath take that (they choose λ), Train and CrossValidate
// refuse it.
func (p Params) Check() error { return p.resolve() }

// checkOne is Check for one model at p's λ (CrossValidate).
func (p Params) checkOne() error { return p.resolveOne() }

// resolveOne is resolve for one model (Train, CrossValidate): the LASSO
// then needs its λ, which the path functions choose themselves.
func (p *Params) resolveOne() error {
	if err := p.resolve(); err != nil {
		return err
	}
	if p.Problem == Lasso && p.Lambda == 0 {
		// λ = 0 is least squares, which would run to the epoch cap on
		// most data: an unset Lambda is far likelier than that intent.
		return paramError("Params.Lambda", p.Lambda, "the LASSO needs a penalty λ > 0 (TrainPath, TrainPathLambdas and CrossValidatePath choose λ themselves)")
	}
	return nil
}

// resolve checks p and fills in the defaults of its zero fields.
func (p *Params) resolve() error {
	if !p.Problem.known() {
		return paramError("Params.Problem", int(p.Problem), "not a problem; the values are %s", problemList())
	}
	if p.C == 0 {
		p.C = 1
	}
	if !(p.C > 0) || math.IsInf(p.C, 0) {
		return paramError("Params.C", p.C, "must be a positive finite number")
	}
	if !(p.Eps >= 0) || math.IsInf(p.Eps, 0) {
		return paramError("Params.Eps", p.Eps, "must be a finite number >= 0 (0: the problem's default)")
	}
	if !finite(p.Bias) {
		return paramError("Params.Bias", p.Bias, "must be a finite number")
	}
	for lab, w := range p.Weights {
		if !finite(lab) {
			// A NaN key matches no label, not even itself in a map.
			return paramError("Params.Weights", lab, "a class label must be a finite number (the key of a weight)")
		}
		if !(w > 0) || math.IsInf(w, 0) {
			return paramError("Params.Weights", w, "the weight of class %g must be a positive finite number", lab)
		}
	}
	if p.UnregularizedBias {
		switch p.Problem {
		case LogisticPrimal, SquaredHingePrimal, L1SquaredHinge, L1Logistic, SquaredSVRPrimal:
		default:
			return paramError("Params.UnregularizedBias", true, "only -s 0, 2, 5, 6 and 11 (L2R_LR, L2R_L2LOSS_SVC, L1R_L2LOSS_SVC, "+
				"L1R_LR and L2R_L2LOSS_SVR) leave the bias unregularised, not -s %s (%s)", p.Problem.Flag(), p.Problem)
		}
		if !(p.Bias > 0) {
			return paramError("Params.UnregularizedBias", true, "needs a bias feature (a positive bias; liblinear's -B 1), whose weight it leaves out of the regulariser")
		}
	}
	if p.Problem == OneClassSVM && p.Bias > 0 {
		return paramError("Params.Bias", p.Bias, "the one-class SVM has no bias term (liblinear refuses -B for -s 21)")
	}
	if p.ZeroBias && p.Bias > 0 {
		return paramError("Params.ZeroBias", true, "a bias feature of value 0 excludes the bias %g", p.Bias)
	}
	if p.ZeroBias && p.Problem == OneClassSVM {
		return paramError("Params.ZeroBias", true, "the one-class SVM has no bias term (liblinear refuses -B for -s 21)")
	}
	if p.Seed == 0 {
		p.Seed = DefaultSeed
	}
	if p.MaxEpochs < 0 {
		return paramError("Params.MaxEpochs", p.MaxEpochs, "must be >= 0 (0: the problem's default)")
	}
	if err := p.ACF.Validate(); err != nil {
		return &ParamError{Param: "Params.ACF", Value: p.ACF, Reason: err.Error()}
	}
	if p.P == 0 {
		p.P = DefaultP
	}
	if !finite(p.P) {
		return paramError("Params.P", p.P, "must be a finite number (negative: ε = 0)")
	}
	if p.Nu == 0 {
		p.Nu = DefaultNu
	}
	if !(p.Nu > 0 && p.Nu <= 1) {
		return paramError("Params.Nu", p.Nu, "must be in (0, 1]")
	}
	if p.Problem == Lasso {
		if err := p.resolveLasso(); err != nil {
			return err
		}
	}
	allowed := families[p.Problem].sel
	if p.Select == AutoSelection {
		if p.Problem == Lasso {
			return nil // chosen per working-set run (lasso.Problem.Fit)
		}
		p.Select = allowed[0]
	}
	for _, s := range allowed {
		if p.Select == s {
			return nil
		}
	}
	names := make([]string, len(allowed))
	for k, s := range allowed {
		names[k] = s.String()
	}
	return paramError("Params.Select", p.Select, "-s %s (%s) takes %s", p.Problem.Flag(), p.Problem, strings.Join(names, ", "))
}

// resolveLasso checks the LASSO's parameters.
func (p *Params) resolveLasso() error {
	if p.Alpha == 0 {
		p.Alpha = 1
	}
	switch {
	case !(p.Alpha > 0 && p.Alpha <= 1):
		return paramError("Params.Alpha", p.Alpha, "the elastic-net mixing must be in (0, 1]")
	case !(p.Lambda >= 0) || math.IsInf(p.Lambda, 0):
		return paramError("Params.Lambda", p.Lambda, "must be a finite number >= 0")
	case !(p.GapTol >= 0) || math.IsInf(p.GapTol, 0):
		return paramError("Params.GapTol", p.GapTol, "must be a finite number >= 0")
	case !(p.Thresh >= 0) || math.IsInf(p.Thresh, 0):
		return paramError("Params.Thresh", p.Thresh, "must be a finite number >= 0")
	case p.Thresh > 0 && (p.Eps > 0 || p.GapTol > 0):
		return paramError("Params.Thresh", p.Thresh, "glmnet's stopping rule cannot be combined with a KKT tolerance or a gap tolerance")
	}
	return nil
}

// Selections returns the coordinate selections p takes (acfcd train
// --select), its default first (the LASSO's default: Params.Select).
func (p Problem) Selections() []Selection {
	if !p.known() {
		return nil
	}
	return append([]Selection(nil), families[p].sel...)
}

// problemList names every problem's value and solver type, for errors.
func problemList() string {
	var b strings.Builder
	for k, q := range problems() {
		if k > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%d (%s)", uint8(q), q)
	}
	return b.String()
}

// bias returns the bias feature's value, or −1 for none (the model
// file's convention).
func (p *Params) bias() float64 {
	if p.Bias > 0 {
		return p.Bias
	}
	return -1
}

// spec is the families' view of p, resolved, with the processors of pool.
func (p *Params) spec(pool *procs.Pool) fit.Spec {
	return fit.Spec{C: p.C, Eps: p.Eps, Bias: p.bias(), Weights: p.Weights, Select: p.Select, Seed: p.Seed,
		MaxEpochs: p.MaxEpochs, ACF: p.ACF, NoFallback: p.NoFallback, Progress: p.Progress,
		Pool: pool, Warm: p.warm, Trace: p.trace}
}

// lassoSpec is the LASSO's view of p, resolved, with the common part s.
func (p *Params) lassoSpec(s fit.Spec) lasso.Spec {
	return lasso.Spec{Spec: s, Lambda: p.Lambda, Alpha: p.Alpha, Intercept: p.Intercept, Standardize: p.Standardize,
		GapTol: p.GapTol, Thresh: p.Thresh}
}

// checkArgs refuses what no call can work with and would otherwise panic,
// for some calls in a worker goroutine where the caller cannot recover.
func checkArgs(ctx context.Context, d *Dataset) error {
	if ctx == nil {
		return errors.New("nil context: pass context.Background() or a context of your own")
	}
	if d == nil {
		return errors.New("nil dataset")
	}
	return nil
}
