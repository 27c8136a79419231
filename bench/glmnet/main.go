// Command glmnet compares acfcd's LASSO with glmnet and scikit-learn.
//
//	go run ./bench/glmnet [flags]
//
// On each data set it runs, on the same libsvm file and in one go,
// acfcd in process (acfcd.Train, TrainPath, TrainPathLambdas on a
// loaded Dataset), glmnet through a long-lived Rscript process (the file
// read into a sparse dgCMatrix once; only the glmnet() call is timed) and
// scikit-learn through a long-lived python process (CSC once; only the
// fits are timed): single λ at fractions of λ_max and paths, each at each
// tool's default stopping rule and at a tight one, rounds interleaved.
// Every tool's coefficients are read back and its objective
// ½‖y − Xw − b‖² + λ‖w‖₁ evaluated here against a reference solve (acfcd
// at a tiny KKT tolerance). With -cv-sets it also runs cv.glmnet and
// acfcd.CrossValidatePath on the same folds and compares λ.min and
// λ.1se. Output: Markdown (and CSV); see README.md.
package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/acfcd/acfcd"
	"github.com/acfcd/acfcd/bench/internal/benchkit"
	"github.com/acfcd/acfcd/internal/synth"
)

func main() {
	benchkit.Main("glmnet-bench", parseOptions, func(o *options) error { return run(context.Background(), o, os.Stdout) })
}

// tools in the order of the report.
var tools = []string{"acfcd", "glmnet", "sklearn"}

// result is one tool's run of one cell at one level.
type result struct {
	Set, Cell, Level, Tool string
	Seconds                []float64 // per round
	Points                 int       // λ fitted
	Excess                 float64   // largest (F − F*)/F* over the points (NaN: unknown)
	NNZ                    int       // non-zero weights at the last point
	Status                 string    // ok, not converged, timeout, error: ..., skipped: ...
	objs                   []float64 // F at each point (round 1)
	lams                   []float64 // the points' λ in acfcd's units
}

func (r *result) median() float64 { return benchkit.Median(r.Seconds) }

func (o *options) logf(format string, a ...any) {
	if !o.Quiet {
		fmt.Fprintf(os.Stderr, format+"\n", a...)
	}
}

func run(ctx context.Context, o *options, stdout io.Writer) error {
	ws, err := benchkit.NewWorkspace(o.DataDir, o.WorkDir, o.Quiet)
	if err != nil {
		return err
	}
	defer ws.Close()
	scripts, err := writeScripts(ws)
	if err != nil {
		return err
	}
	avail := map[string]string{"acfcd": ""}
	if o.Rscript != "" {
		if out, err := exec.Command(o.Rscript, "-e", `suppressMessages(library(glmnet)); cat(as.character(packageVersion("glmnet")))`).CombinedOutput(); err == nil {
			avail["glmnet"] = "glmnet " + strings.TrimSpace(string(out))
		} else {
			o.logf("glmnet left out: %s: %v", o.Rscript, err)
		}
	}
	if o.Python != "" {
		if out, err := exec.Command(o.Python, "-c", "import sklearn, scipy, numpy; print(sklearn.__version__)").CombinedOutput(); err == nil {
			avail["sklearn"] = "scikit-learn " + strings.TrimSpace(string(out))
		} else {
			o.logf("scikit-learn left out: %s: %v", o.Python, err)
		}
	}

	var out bytes.Buffer
	fmt.Fprintf(&out, "# acfcd vs glmnet and scikit-learn: the LASSO\n\n%s, %s/%s, GOMAXPROCS %d, %d CPUs; %s; %s; rounds %d, timeout %v\n\n",
		runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.GOMAXPROCS(0), runtime.NumCPU(),
		orNone(avail["glmnet"], "glmnet absent"), orNone(avail["sklearn"], "scikit-learn absent"), o.Rounds, o.Timeout)
	var all []*result
	var sets []string
	var cvRows []*cvRow
	// The files are rewritten after every set, so that a run cut short
	// keeps what it measured.
	report := func(final bool) error {
		var md bytes.Buffer
		md.Write(out.Bytes())
		if len(o.Sets) > 0 {
			writeMarkdown(&md, o, sets, all)
		}
		if len(cvRows) > 0 {
			writeCVMarkdown(&md, o, cvRows)
		}
		if final {
			if _, err := stdout.Write(md.Bytes()); err != nil {
				return err
			}
		}
		if o.Out == "" {
			return nil
		}
		if err := os.MkdirAll(o.Out, 0o755); err != nil {
			return err
		}
		files := map[string][]byte{"glmnet.md": md.Bytes()}
		if len(o.Sets) > 0 {
			var csv bytes.Buffer
			if err := writeCSV(&csv, all); err != nil {
				return err
			}
			files["glmnet.csv"] = csv.Bytes()
		}
		if len(cvRows) > 0 {
			var c bytes.Buffer
			if err := writeCVCSV(&c, cvRows); err != nil {
				return err
			}
			files["cv.csv"] = c.Bytes()
			var cc bytes.Buffer
			if err := writeCVCurves(&cc, cvRows); err != nil {
				return err
			}
			files["cv-curves.csv"] = cc.Bytes()
		}
		for f, b := range files {
			if err := os.WriteFile(filepath.Join(o.Out, f), b, 0o644); err != nil {
				return err
			}
		}
		return nil
	}
	for _, name := range o.Sets {
		rs, info, err := runSet(ctx, o, ws, scripts, avail, name)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		sets = append(sets, info)
		all = append(all, rs...)
		if err := report(false); err != nil {
			return err
		}
	}
	for _, name := range o.CVSets {
		r, err := runCV(ctx, o, ws, scripts, avail, name)
		if err != nil {
			return fmt.Errorf("%s: cross-validation: %w", name, err)
		}
		cvRows = append(cvRows, r)
		if err := report(false); err != nil {
			return err
		}
	}
	return report(true)
}

func orNone(s, none string) string {
	if s == "" {
		return none
	}
	return s
}

// scratch names a file of this process in the workspace, so that runs
// sharing a -workdir do not read each other's λ and coefficients.
func scratch(name string) string { return fmt.Sprintf("acfcd-%d-%s", os.Getpid(), name) }

// writeScripts puts the R and python scripts into the workspace.
func writeScripts(ws *benchkit.Workspace) (map[string]string, error) {
	m := map[string]string{"glmnet": ws.Path(scratch("glmnet.R")), "sklearn": ws.Path(scratch("sklearnfit.py"))}
	if err := os.WriteFile(m["glmnet"], []byte(glmnetR), 0o644); err != nil {
		return nil, err
	}
	if err := os.WriteFile(m["sklearn"], []byte(sklearnPy), 0o644); err != nil {
		return nil, err
	}
	return m, nil
}

// dataPath returns the plain libsvm file of set name, generating gen.
func dataPath(o *options, ws *benchkit.Workspace, name string) (string, error) {
	if name != "gen" {
		ds, err := ws.Prepare(name)
		if err != nil {
			return "", err
		}
		return ds.Path, nil
	}
	return genSet(ws, o.GenRows, o.GenFeatures, o.GenNNZ)
}

// genSet writes the generated text-like set: acfcd gen's url preset (a
// tenth of its values real, the rest binary with power-law frequencies)
// at the given size, seed 1, the bytes of
// acfcd gen --preset url --rows R --features F --nnz-per-row N --out FILE.
func genSet(ws *benchkit.Workspace, rows, features int, nnz float64) (string, error) {
	path := ws.Path(fmt.Sprintf("gen-url-%d-%d-%g.svm", rows, features, nnz))
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	p := synth.Presets["url"]
	p.Rows, p.Features, p.NNZ = rows, features, nnz
	m := synth.NewModel(p, 1)
	return path, benchkit.WriteAtomic(path, func(w io.Writer) error {
		return m.Generate(runtime.GOMAXPROCS(0), true, func(b *synth.Block) error {
			_, err := w.Write(b.Text)
			return err
		})
	})
}

// newServers returns the R and python processes for a data file (not yet
// started).
func newServers(o *options, scripts, avail map[string]string, path string, features int) map[string]*server {
	s := map[string]*server{}
	if avail["glmnet"] != "" {
		s["glmnet"] = &server{name: "glmnet", argv: []string{o.Rscript, scripts["glmnet"], path, fmt.Sprint(features)}, load: o.LoadTimeout}
	}
	if avail["sklearn"] != "" {
		s["sklearn"] = &server{name: "sklearn", argv: []string{o.Python, scripts["sklearn"], path, fmt.Sprint(features)}, load: o.LoadTimeout}
	}
	return s
}

// startAll starts the servers concurrently (they read the file while the
// others do).
func startAll(srv map[string]*server) map[string]error {
	errs := map[string]error{}
	done := make(chan struct{})
	type e struct {
		n   string
		err error
	}
	ch := make(chan e, len(srv))
	for n, s := range srv {
		go func() { ch <- e{n, s.start()} }()
	}
	for range srv {
		x := <-ch
		if x.err != nil {
			errs[x.n] = x.err
		}
	}
	close(done)
	return errs
}

func runSet(ctx context.Context, o *options, ws *benchkit.Workspace, scripts, avail map[string]string, name string) ([]*result, string, error) {
	path, err := dataPath(o, ws, name)
	if err != nil {
		return nil, "", err
	}
	d, err := acfcd.Load(path, acfcd.Options{})
	if err != nil {
		return nil, "", err
	}
	defer d.Close()
	if o.KeepCSC {
		// The column view built once, untimed, as glmnet's dgCMatrix
		// and scikit-learn's CSC matrix are.
		d.KeepCSC()
		d.CSC()
	}
	base := acfcd.Params{Problem: acfcd.Lasso, Intercept: true, Seed: o.Seed}
	defSeq, err := acfcd.LambdaSequence(d, base, 0, 0)
	if err != nil {
		return nil, "", err
	}
	lamMax := defSeq[0]
	info := fmt.Sprintf("| %s | %d | %d | %d | %.6g | %d λ to %g |", name, d.Rows, d.Features, d.NNZ(), lamMax, len(defSeq), defSeq[len(defSeq)-1]/lamMax)
	o.logf("%s: %d rows, %d features, %d non-zeros, λ_max %g", name, d.Rows, d.Features, d.NNZ(), lamMax)

	srv := newServers(o, scripts, avail, path, d.Features)
	defer func() {
		for _, s := range srv {
			s.close()
		}
	}()
	startErr := startAll(srv)
	for n, err := range startErr {
		o.logf("%s: %v", n, err)
	}
	ev := newEvaluator(d)
	refCut := map[string]bool{}

	type key struct{ c, l, t int }
	res := map[key]*result{}
	lamsOf := make([][]float64, len(o.Cells))
	for ci, c := range o.Cells {
		switch {
		case !c.path():
			lamsOf[ci] = []float64{c.Frac * lamMax}
		case c.N == 0:
			lamsOf[ci] = defSeq
		default:
			if lamsOf[ci], err = acfcd.LambdaSequence(d, base, c.N, c.Ratio); err != nil {
				return nil, "", err
			}
		}
		for li, l := range o.Levels {
			for ti, t := range tools {
				r := &result{Set: name, Cell: c.Name, Level: l.Name, Tool: t, Excess: math.NaN(), NNZ: -1}
				switch {
				case t != "acfcd" && avail[t] == "":
					r.Status = "skipped: absent"
				case startErr[t] != nil:
					r.Status = "error: " + startErr[t].Error()
				}
				res[key{ci, li, ti}] = r
			}
		}
	}
	for round := 0; round < o.Rounds; round++ {
		for ci, c := range o.Cells {
			for li, l := range o.Levels {
				for k := range tools {
					ti := (k + round + ci) % len(tools) // a different tool first each time
					r := res[key{ci, li, ti}]
					if r.Status != "" && r.Status != "ok" && r.Status != "not converged" {
						continue
					}
					secs, pts, status := runTool(ctx, o, ws, srv, d, base, tools[ti], c, l, lamsOf[ci])
					o.logf("%s: round %d, %s, %s, %s: %.3g s, %s", name, round+1, c.Name, l.Name, tools[ti], secs, status)
					if status != "ok" && status != "not converged" {
						r.Status = status
						r.Seconds = append(r.Seconds, secs)
						continue
					}
					r.Seconds = append(r.Seconds, secs)
					if round == 0 {
						r.Status = status
						r.Points = len(pts)
						for _, p := range pts {
							r.lams = append(r.lams, p.lambda)
							r.objs = append(r.objs, ev.objective(p, 1))
						}
						r.NNZ = len(pts[len(pts)-1].idx)
					}
				}
			}
		}
	}
	var extras []*result
	// The reference: acfcd at a tiny tolerance, at the λ of each cell.
	for ci, c := range o.Cells {
		o.logf("%s: reference solve, %s", name, c.Name)
		refLams := lamsOf[ci]
		p := base
		p.Eps = o.RefRel * refLams[len(refLams)-1]
		start := time.Now()
		rctx, cancel := context.WithTimeout(ctx, o.RefTimeout)
		pp, err := acfcd.TrainPathLambdas(rctx, d, p, refLams)
		cancel()
		if err != nil && rctx.Err() == nil {
			return nil, "", fmt.Errorf("reference solve: %w", err)
		}
		o.logf("%s: reference solve, %s: %.3g s, %d of %d λ", name, c.Name, time.Since(start).Seconds(), len(pp), len(refLams))
		ref := make([]float64, len(refLams))
		for k := range ref {
			ref[k] = math.Inf(1) // cut short: F* is the best run's
			if k < len(pp) {
				ref[k] = ev.objective(fromModel(pp[k].Lambda, pp[k].Model), 1)
			}
		}
		if len(pp) < len(refLams) || !pp[len(pp)-1].Converged {
			refCut[name+" / "+c.Name] = true
		}
		// F* is the lowest objective any run reached at that λ.
		var rs []*result
		for li := range o.Levels {
			for ti := range tools {
				rs = append(rs, res[key{ci, li, ti}])
			}
		}
		for _, r := range rs {
			for k, lam := range r.lams {
				if j := matchLambda(refLams, lam); j >= 0 {
					ref[j] = min(ref[j], r.objs[k])
				}
			}
		}
		excess := func(r *result) {
			if len(r.lams) == 0 {
				return
			}
			r.Excess = 0
			for k, lam := range r.lams {
				j := matchLambda(refLams, lam)
				if j < 0 {
					r.Excess = math.NaN()
					r.Status += fmt.Sprintf(" (λ %g is not on the reference path)", lam)
					break
				}
				r.Excess = max(r.Excess, (r.objs[k]-ref[j])/ref[j])
			}
		}
		for _, r := range rs {
			excess(r)
		}
		// extra times acfcd at level "level" (rounds of run, the first one's
		// points kept) beside a copy of glmnet's row g.
		extra := func(g *result, level, what string, run func() (float64, []point, string)) {
			r := &result{Set: name, Cell: c.Name, Level: level, Tool: "acfcd", Excess: math.NaN(), NNZ: -1}
			for round := 0; round < o.Rounds; round++ {
				secs, pts, status := run()
				o.logf("%s: round %d, %s, %s, acfcd: %.3g s, %s", name, round+1, c.Name, what, secs, status)
				r.Seconds = append(r.Seconds, secs)
				r.Status = status
				if status != "ok" && status != "not converged" {
					break
				}
				if round == 0 {
					r.Points = len(pts)
					for _, p := range pts {
						r.lams = append(r.lams, p.lambda)
						r.objs = append(r.objs, ev.objective(p, 1))
					}
					r.NNZ = len(pts[len(pts)-1].idx)
				}
			}
			excess(r)
			gc := *g
			gc.Level = level
			sk := &result{Set: name, Cell: c.Name, Level: level, Tool: "sklearn", Excess: math.NaN(), NNZ: -1, Status: "skipped: absent"}
			extras = append(extras, r, &gc, sk)
		}
		for li, l := range o.Levels {
			g := res[key{ci, li, 1}]
			lams, cl := fittedPrefix(g, c, lamsOf[ci])
			if lams == nil {
				continue
			}
			// acfcd under glmnet's own stopping rule at the level's thresh
			// (and at stricter or looser multiples of it).
			for _, f := range o.RuleScales {
				name, t := "glmnet's rule, "+l.Name, f*l.GlmnetThresh
				if f != 1 {
					name = fmt.Sprintf("glmnet's rule ×%g, %s", f, l.Name)
				}
				extra(g, name, fmt.Sprintf("glmnet's rule at thresh %g", t), func() (float64, []point, string) {
					return runACFCD(ctx, o, d, base, cl, lams, 0, 0, t)
				})
			}
			if !o.Matched || math.IsNaN(g.Excess) {
				continue
			}
			// acfcd stopped by a duality gap at most glmnet's distance to
			// F*: at least as close to the optimum as glmnet, in the
			// table's measure. The table's excess is the largest relative
			// one over a path's λ: a gap of at most glmnet's times the
			// smallest F* keeps acfcd's at or below it at every λ.
			rel, fmin := o.MatchFloor, math.Inf(1)
			for k, lam := range g.lams {
				j := matchLambda(refLams, lam)
				rel = max(rel, (g.objs[k]-ref[j])/ref[j])
				fmin = min(fmin, ref[j])
			}
			tol := rel * fmin
			extra(g, "glmnet's "+l.Name, fmt.Sprintf("gap at most glmnet's %s excess (%.3g)", l.Name, tol), func() (float64, []point, string) {
				return runACFCD(ctx, o, d, base, cl, lams, 0, tol, 0)
			})
		}
	}
	var out []*result
	for ci := range o.Cells {
		for li := range o.Levels {
			for ti := range tools {
				out = append(out, res[key{ci, li, ti}])
			}
		}
	}
	out = append(out, extras...)
	for k := range refCut {
		info += "\n" + k
	}
	return out, info, nil
}

// fittedPrefix returns the λ on which acfcd's extra rows beside glmnet's
// row g run, and the cell to run them as: the cell's own when glmnet
// converged; when it stopped a path early (its maxit, "not converged"),
// the λ it did fit, which lead the cell's sequence, as an explicit path,
// so that both tools fit the same λ. nil: no like-for-like run.
func fittedPrefix(g *result, c cell, lams []float64) ([]float64, cell) {
	switch {
	case len(g.lams) == 0 || g.Status != "ok" && g.Status != "not converged":
		return nil, c
	case g.Status == "ok":
		return lams, c
	case !c.path() || len(g.lams) > len(lams):
		return nil, c
	}
	for k, lam := range g.lams {
		if math.Abs(lam-lams[k]) > 1e-9*lams[k] {
			return nil, c
		}
	}
	pre := cell{Name: c.Name, N: len(g.lams), Ratio: c.Ratio}
	return lams[:len(g.lams)], pre
}

// matchLambda is the index of lam in lams (to 1e-9, relative), or −1.
func matchLambda(lams []float64, lam float64) int {
	for j, l := range lams {
		if math.Abs(l-lam) <= 1e-9*l {
			return j
		}
	}
	return -1
}

// point is one fitted λ of any tool, in acfcd's units.
type point struct {
	lambda float64
	b      float64
	idx    []int32
	val    []float64
}

func fromModel(lam float64, m *acfcd.Model) point {
	p := point{lambda: lam}
	for j, v := range m.W[:m.NumFeature] {
		if v != 0 {
			p.idx = append(p.idx, int32(j))
			p.val = append(p.val, v)
		}
	}
	if m.Bias > 0 {
		p.b = m.Bias * m.W[m.NumFeature]
	}
	return p
}

func fromCoef(c *coefPath, scale float64) []point {
	pts := make([]point, c.Len())
	for k := range pts {
		a, b := c.ColPtr[k], c.ColPtr[k+1]
		p := point{lambda: c.Lambda[k] * scale, b: c.Intercept[k]}
		for q := a; q < b; q++ {
			if c.Value[q] != 0 {
				p.idx = append(p.idx, c.Index[q])
				p.val = append(p.val, c.Value[q])
			}
		}
		pts[k] = p
	}
	return pts
}

// runTool runs one tool on one cell at one level and returns its seconds,
// its points and a status.
func runTool(ctx context.Context, o *options, ws *benchkit.Workspace, srv map[string]*server, d *acfcd.Dataset,
	base acfcd.Params, tool string, c cell, l level, lams []float64) (float64, []point, string) {
	rows := float64(d.Rows)
	switch tool {
	case "acfcd":
		eps := 0.0
		if l.ACFCDRel > 0 {
			eps = l.ACFCDRel * lams[len(lams)-1]
		}
		return runACFCD(ctx, o, d, base, c, lams, eps, 0, 0)
	case "glmnet", "sklearn":
		s := srv[tool]
		outFile := ws.Path(scratch(tool + "-coef.bin"))
		lamFile := ws.Path(scratch("glmnet-lambda.txt"))
		var cmd string
		if tool == "glmnet" {
			lam := lamFile
			if c.path() && c.N == 0 {
				lam = "default"
			} else if err := writeLambdas(lamFile, lams, rows); err != nil {
				return 0, nil, "error: " + err.Error()
			}
			cmd = fmt.Sprintf("cmd=fit lambda=%s nlambda=100 thresh=%s alpha=1 intercept=1 standardize=0 out=%s", lam, benchkit.FmtArg(l.GlmnetThresh), outFile)
		} else {
			alphas := make([]string, len(lams))
			for k, v := range lams {
				alphas[k] = benchkit.FmtArg(v / rows)
			}
			cmd = fmt.Sprintf(`{"cmd": "fit", "alphas": [%s], "l1_ratio": 1, "tol": %s, "max_iter": %d, "intercept": true, "out": %q}`,
				strings.Join(alphas, ", "), benchkit.FmtArg(l.SklearnTol), l.SklearnIter, outFile)
		}
		os.Remove(outFile)
		kv, timedOut, err := s.call(ctx, cmd, o.Timeout)
		if timedOut {
			return o.Timeout.Seconds(), nil, "timeout"
		}
		if err != nil {
			return 0, nil, "error: " + err.Error()
		}
		secs, err := num(kv, "seconds")
		if err != nil {
			return 0, nil, "error: " + err.Error()
		}
		b, err := os.ReadFile(outFile)
		if err != nil {
			return secs, nil, "error: " + err.Error()
		}
		cp, err := readCoefPath(b, d.Features)
		if err != nil {
			return secs, nil, "error: " + err.Error()
		}
		if cp.Len() == 0 {
			return secs, nil, "error: no λ fitted"
		}
		status := "ok"
		if kv["jerr"] != "" && kv["jerr"] != "0" || kv["converged"] == "0" {
			status = "not converged"
		}
		return secs, fromCoef(cp, rows), status
	}
	return 0, nil, "error: unknown tool"
}

// writeLambdas writes glmnet's λ (acfcd's / rows), one per line.
func writeLambdas(path string, lams []float64, rows float64) error {
	var b strings.Builder
	for _, l := range lams {
		b.WriteString(benchkit.FmtArg(l/rows) + "\n")
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// runACFCD fits one cell with acfcd: KKT tolerance eps, or absolute
// duality gap gapTol, or glmnet's rule at thresh, or (all 0) its default
// rule.
func runACFCD(ctx context.Context, o *options, d *acfcd.Dataset, base acfcd.Params, c cell, lams []float64, eps, gapTol, thresh float64) (float64, []point, string) {
	p := base
	p.Eps, p.GapTol, p.Thresh = eps, gapTol, thresh
	cctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	var pts []acfcd.PathPoint
	var err error
	start := time.Now()
	switch {
	case !c.path():
		p.Lambda = lams[0]
		var m *acfcd.Model
		var res *acfcd.Result
		m, res, err = acfcd.Train(cctx, d, p)
		if m != nil && res != nil {
			pts = []acfcd.PathPoint{{Lambda: lams[0], Model: m, Converged: res.Converged}}
		}
	case c.N == 0:
		pts, err = acfcd.TrainPath(cctx, d, p, 0, 0)
	default:
		pts, err = acfcd.TrainPathLambdas(cctx, d, p, lams)
	}
	secs := time.Since(start).Seconds()
	if cctx.Err() != nil {
		return secs, nil, "timeout"
	}
	if err != nil {
		return secs, nil, "error: " + err.Error()
	}
	status := "ok"
	out := make([]point, len(pts))
	for k, pt := range pts {
		out[k] = fromModel(pt.Lambda, pt.Model)
		if !pt.Converged {
			status = "not converged"
		}
	}
	return secs, out, status
}
