package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/acfcd/acfcd/cocoa"
	"github.com/apache/beam/sdks/v2/go/pkg/beam"
)

// Config configures Train.
type Config struct {
	// Spec is the problem; Train fills in K (from Workers), Features and
	// Labels from the data.
	Spec cocoa.Spec
	// Data is a libsvm file or a glob of shards, in any Beam filesystem.
	Data string
	// WorkDir holds the blocks, states, updates and w between pipelines;
	// on a cluster it must be storage that every worker reaches.
	WorkDir string
	// Runner is a registered Beam runner: prism, flink, spark, dataflow…
	Runner string
	// Workers is K, the number of blocks.
	Workers int
	// Epochs is the local budget of a round in epochs of a block (0: 1).
	Epochs float64
	// MaxRounds caps the rounds (0: 100).
	MaxRounds int
	// Gap stops at an absolute duality gap; RelGap at a gap of RelGap
	// times the primal objective. Either may be 0 (off); both 0 means
	// RelGap = 1e-3.
	Gap, RelGap float64
	// Step is how the driver combines the blocks' updates: cocoa.Add
	// (CoCoA+), Line or Line1 (a line search on their sum; -s 1 and 3).
	Step cocoa.Step
	// Kappa > 0 accelerates the rounds by Catalyst (cocoa.Spec.Kappa):
	// every OuterRounds rounds (0: cocoa.DefaultOuterRounds) the centre of
	// the proximal problem moves; a negative Kappa means
	// cocoa.DefaultKappa from the data, 0 none.
	Kappa       float64
	OuterRounds int
	// Log, if set, gets a line per round.
	Log io.Writer
}

// Round is what Train reports of a round; see cocoa.Round.
type Round struct {
	cocoa.Round
	StateBytes int64   // bytes of block state written (α, preferences)
	Stage      float64 // seconds of the round's pipeline
}

// Result is Train's answer.
type Result struct {
	W         []float64
	Spec      cocoa.Spec
	Rounds    []Round
	Converged bool
	Rows      int
}

func run(ctx context.Context, runner string, p *beam.Pipeline) error {
	_, err := beam.Run(ctx, runner, p)
	return err
}

// Split runs the pipeline that reads the shards and writes the blocks,
// and returns what it learnt of each shard.
func Split(ctx context.Context, cfg Config, files []string) ([]ShardInfo, error) {
	p, s := beam.NewPipelineWithRoot()
	elems := make([]string, len(files))
	for i, f := range files {
		elems[i] = fmt.Sprintf("%d %s", i, f)
	}
	beam.ParDo0(s, &splitFn{WorkDir: cfg.WorkDir, K: cfg.Workers}, beam.CreateList(s, elems))
	if err := run(ctx, cfg.Runner, p); err != nil {
		return nil, fmt.Errorf("reading %s: %w", cfg.Data, err)
	}
	infos := make([]ShardInfo, len(files))
	for i := range files {
		b, err := readFile(ctx, shardInfoPath(cfg.WorkDir, i))
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(b, &infos[i]); err != nil {
			return nil, fmt.Errorf("%s: %v", shardInfoPath(cfg.WorkDir, i), err)
		}
	}
	return infos, nil
}

// Train runs CoCoA+ on the engine: Split, then a pipeline per round until
// the gap is small enough or MaxRounds.
func Train(ctx context.Context, cfg Config) (*Result, error) {
	start := time.Now()
	if cfg.Workers < 1 {
		return nil, fmt.Errorf("--workers %d: want at least 1", cfg.Workers)
	}
	if cfg.Epochs == 0 {
		cfg.Epochs = 1
	}
	if !(cfg.Epochs > 0) || math.IsInf(cfg.Epochs, 0) {
		return nil, fmt.Errorf("local budget of %g epochs: want > 0", cfg.Epochs)
	}
	if cfg.MaxRounds == 0 {
		cfg.MaxRounds = 100
	}
	if cfg.Gap == 0 && cfg.RelGap == 0 {
		cfg.RelGap = 1e-3
	}
	files, err := Glob(ctx, cfg.Data)
	if err != nil {
		return nil, err
	}
	infos, err := Split(ctx, cfg, files)
	if err != nil {
		return nil, err
	}
	forget(cfg.WorkDir) // blocks of an earlier Train on this directory
	defer forget(cfg.WorkDir)
	spec := cfg.Spec
	spec.K = cfg.Workers
	spec.Sigma = cfg.Step.Sigma()
	search := cfg.Step.LineSearch()
	if search && spec.Problem.Flag() == "7" {
		return nil, fmt.Errorf("--step %s: the line search needs -s 1 or 3 (the logistic dual has no closed form); use --step add", cfg.Step)
	}
	var labels []float64
	rows := 0
	for _, in := range infos {
		spec.Features = max(spec.Features, in.Features)
		if labels, err = cocoa.Labels(labels, in.Labels); err != nil {
			return nil, fmt.Errorf("%s: %v", in.Path, err)
		}
		rows += in.Rows
	}
	if rows == 0 {
		return nil, fmt.Errorf("%s: no examples", cfg.Data)
	}
	if len(labels) != 2 {
		return nil, fmt.Errorf("%s: %d class(es); distributed training takes two", cfg.Data, len(labels))
	}
	spec.Labels = labels
	if cfg.Kappa < 0 {
		var sq float64
		for _, in := range infos {
			sq += in.SumSq
		}
		if spec.Bias > 0 {
			sq += float64(rows) * spec.Bias * spec.Bias
		}
		cfg.Kappa = cocoa.DefaultKappa(spec.Problem, spec.C, sq/float64(rows), spec.K)
	}
	if cfg.OuterRounds == 0 {
		cfg.OuterRounds = cocoa.DefaultOuterRounds
	}
	spec.Kappa = cfg.Kappa
	var cat *cocoa.Catalyst
	js, err := json.Marshal(spec)
	if err != nil {
		return nil, err
	}
	res := &Result{Spec: spec, Rows: rows}
	w := make([]float64, spec.Dim())
	gamma := 1.0 // the last round's line search step, applied by the next
	stage := func(round int, init bool) ([]update, error) {
		p, s := beam.NewPipelineWithRoot()
		ids := make([]int, spec.K)
		for k := range ids {
			ids[k] = k
		}
		beam.ParDo0(s, &roundFn{WorkDir: cfg.WorkDir, Round: round, Shards: len(files), Spec: string(js), Epochs: cfg.Epochs, Init: init,
			LineSearch: search, Gamma: gamma},
			beam.Reshuffle(s, beam.CreateList(s, ids)))
		if err := run(ctx, cfg.Runner, p); err != nil {
			return nil, fmt.Errorf("round %d: %w", round, err)
		}
		ups := make([]update, spec.K)
		if init {
			round = -1
		}
		for k := range ups {
			if err := readGob(ctx, updatePath(cfg.WorkDir, round, k), &ups[k]); err != nil {
				return nil, err
			}
		}
		return ups, nil
	}
	if spec.Problem.Flag() == "7" {
		// The logistic dual starts at α > 0: w is the blocks' Σ α y x.
		ups, err := stage(0, true)
		if err != nil {
			return nil, err
		}
		for _, u := range ups {
			cocoa.Sparse{Index: u.Index, Value: u.Value}.AddTo(w)
		}
	}
	if spec.Kappa > 0 {
		cat = cocoa.NewCatalyst(spec.Kappa, cfg.OuterRounds, w)
	}
	var steps int64
	var scratch []float64
	for r := 0; ; r++ {
		t0 := time.Now()
		if err := writeGob(ctx, wPath(cfg.WorkDir, r), w); err != nil {
			return nil, err
		}
		ups, err := stage(r, false)
		if err != nil {
			return nil, err
		}
		var ww, loss, conj float64
		for _, x := range w {
			ww += float64(x * x)
		}
		rd := Round{Round: cocoa.Round{Round: r, Steps: steps}}
		if r > 0 {
			rd.Gamma = gamma // the step that led here
		}
		rd.Bytes = int64(spec.K) * cocoa.VectorBytes(w)
		for _, u := range ups {
			loss += u.Loss
			conj += u.Conj
			rd.Bytes += 16 + cocoa.Sparse{Index: u.Index}.Bytes()
			rd.StateBytes += u.StateBytes
		}
		vv := ww
		if cat != nil {
			vv = cat.VV()
		}
		rd.Primal = float64(0.5*ww) + loss
		rd.Dual = float64(0.5*vv) + conj
		rd.Gap = rd.Primal + rd.Dual
		done := rd.Gap <= cfg.Gap || rd.Gap <= cfg.RelGap*math.Abs(rd.Primal)
		last := r+1 >= cfg.MaxRounds
		if !done && !last {
			// The measured point is w_r; the round's Δw, times the line
			// search's γ, moves it on.
			dws := make([]cocoa.Sparse, len(ups))
			lin, quad, top := 0.0, 0.0, math.Inf(1)
			for k, u := range ups {
				dws[k] = cocoa.Sparse{Index: u.Index, Value: u.Value}
				steps += u.Steps
				lin, quad, top = lin+u.Lin, quad+u.Quad, min(top, u.Top)
			}
			if search {
				if scratch == nil {
					scratch = make([]float64, len(w))
				}
				rd.Bytes += 24 * int64(spec.K)
			}
			gamma = cocoa.Apply(w, scratch, dws, search, lin, quad, top, cat, r, rd.Primal)
		}
		rd.Stage = time.Since(t0).Seconds()
		rd.Seconds = time.Since(start).Seconds()
		res.Rounds = append(res.Rounds, rd)
		if cfg.Log != nil {
			fmt.Fprintf(cfg.Log, "round %d: duality gap %.6g, primal %.10g, dual %.10g, %d bytes communicated, %d bytes of state, %d local steps, %.3f s (round %.3f s)\n",
				r, rd.Gap, rd.Primal, -rd.Dual, rd.Bytes, rd.StateBytes, rd.Steps, rd.Seconds, rd.Stage)
		}
		if done || last {
			res.Converged = done
			break
		}
	}
	res.W = w
	return res, nil
}
