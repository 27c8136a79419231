package benchkit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// LLOutput is what a liblinear-train process printed on stdout.
//
// liblinear's dual solvers print, once per one-vs-rest subproblem,
//
//	optimization finished, #iter = N
//	Objective value = X        (printf "%lf": six decimals)
//
// where X is the minimised dual in the same convention as
// acfcd.Result.Objective: for -s 1/3 solve_l2r_l1l2_svc prints v/2 with
// v = ‖w‖² + Σ α_i(α_i·D_ii − 2), i.e. ½αᵀ(Q+D)α − Σα; for -s 7
// solve_l2r_lr_dual prints ½‖w‖² + Σ[α log α + (C−α) log(C−α) − C log C].
// Both are ≤ 0 and minus the dual function, so primal + X = duality gap.
type LLOutput struct {
	Iter      int64   // Σ #iter over subproblems (outer sweeps)
	Subprobs  int     // number of "optimization finished" lines
	Objective float64 // Σ "Objective value" over subproblems
	NObj      int     // number of "Objective value" lines
	// Capped: "WARNING: reaching max number of iterations" was printed
	// (2.3.0: after 1000 sweeps; 2.50: after 300, see Switched).
	Capped bool
	// Switched is set when liblinear ≥ 2.42 gave up on the dual after
	// its cap and re-solved the primal ("Switching to use -s 2" for -s 1,
	// "-s 0" for -s 7): the model is then the primal solver's and the
	// printed dual objective is the one at the cap, not at the model.
	Switched string
}

var (
	reIter     = regexp.MustCompile(`optimization finished, #iter = (\d+)`)
	reObj      = regexp.MustCompile(`Objective value = (\S+)`)
	reCap      = regexp.MustCompile(`WARNING: reaching max number of iterations`)
	reSwitched = regexp.MustCompile(`Switching to use (-s \d+)`)
	reInit     = regexp.MustCompile(`(?m)^init f `)
	reNewton   = regexp.MustCompile(`(?m)^iter +\d+ f `)
)

// ParseLiblinearOutput extracts the counters of a liblinear-train run.
func ParseLiblinearOutput(out string) (LLOutput, error) {
	var r LLOutput
	for _, m := range reIter.FindAllStringSubmatch(out, -1) {
		n, err := strconv.ParseInt(m[1], 10, 64)
		if err != nil {
			return r, err
		}
		r.Iter += n
		r.Subprobs++
	}
	for _, m := range reObj.FindAllStringSubmatch(out, -1) {
		v, err := strconv.ParseFloat(m[1], 64)
		if err != nil {
			return r, fmt.Errorf("objective %q: %w", m[1], err)
		}
		r.Objective += v
		r.NObj++
	}
	r.Capped = reCap.MatchString(out)
	if m := reSwitched.FindStringSubmatch(out); m != nil {
		r.Switched = m[1]
	}
	if r.Subprobs == 0 {
		// The primal Newton solvers (-s 0, 2, 11) print "init f …" once per
		// subproblem and "iter N f …" per Newton iteration.
		r.Subprobs = len(reInit.FindAllStringIndex(out, -1))
		r.Iter = int64(len(reNewton.FindAllStringIndex(out, -1)))
	}
	if r.Subprobs == 0 {
		return r, errors.New("no \"optimization finished\" or \"init f\" line in its output")
	}
	return r, nil
}

// FmtArg formats a number as a command-line argument, exactly.
func FmtArg(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// TrainArgs are liblinear-train's arguments for one configuration.
func TrainArgs(s int, c, eps, bias float64, data, model string) []string {
	args := []string{"-s", strconv.Itoa(s), "-c", FmtArg(c), "-e", FmtArg(eps)}
	if bias >= 0 {
		args = append(args, "-B", FmtArg(bias))
	}
	return append(args, data, model)
}

// ProcResult is one finished (or killed) process.
type ProcResult struct {
	Seconds  float64 // wall time from start to exit
	CPU      float64 // user + system seconds
	Output   string  // stdout and stderr
	TimedOut bool
}

// RunProcess runs bin with args under the deadline of ctx; a process
// still running at the deadline is killed and reported as TimedOut.
func RunProcess(ctx context.Context, bin string, args ...string) (ProcResult, error) {
	return RunProcessEnv(ctx, nil, bin, args...)
}

// RunProcessEnv is RunProcess with env (KEY=value) added to the
// environment.
func RunProcessEnv(ctx context.Context, env []string, bin string, args ...string) (ProcResult, error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	if len(env) > 0 {
		cmd.Env = append(os.Environ(), env...)
	}
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	err := cmd.Run()
	r := ProcResult{Seconds: time.Since(start).Seconds(), Output: out.String()}
	if ps := cmd.ProcessState; ps != nil {
		r.CPU = (ps.UserTime() + ps.SystemTime()).Seconds()
	}
	if ctx.Err() != nil {
		r.TimedOut = true
		return r, nil
	}
	if err != nil {
		return r, fmt.Errorf("%s %s: %v\n%s", bin, strings.Join(args, " "), err, Tail(r.Output, 800))
	}
	return r, nil
}

// Tail returns the last n bytes of s.
func Tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// PredictLabels runs liblinear-predict on test with model and returns the
// predicted labels, one per test row.
func PredictLabels(ctx context.Context, bin, test, model, outPath string) ([]float64, error) {
	r, err := RunProcess(ctx, bin, test, model, outPath)
	if err != nil {
		return nil, err
	}
	if r.TimedOut {
		return nil, errors.New("liblinear-predict timed out")
	}
	b, err := os.ReadFile(outPath)
	if err != nil {
		return nil, err
	}
	var labels []float64
	for _, f := range strings.Fields(string(b)) {
		v, err := strconv.ParseFloat(f, 64)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", outPath, err)
		}
		labels = append(labels, v)
	}
	return labels, nil
}
