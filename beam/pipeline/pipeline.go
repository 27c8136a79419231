// Package pipeline trains acfcd's dual problems (-s 1, 3, 7, two classes)
// by CoCoA+ (package cocoa) on Apache Beam: the examples, libsvm shards,
// are split into K blocks; every round each block takes a budget of ACF
// coordinate steps on its local subproblem from the shared w and returns
// Δw; the driver combines them (cocoa's line search and Catalyst) and stops
// at a duality gap.
//
// # One pipeline per round, driven by a Go loop
//
// Beam has no loops: a pipeline is a DAG fixed before it runs. Rounds can
// be unrolled into one pipeline only for a number of rounds fixed in
// advance, and every unrolled stage would carry all blocks' data and state
// through the engine's shuffle. CoCoA+ instead stops when the duality gap
// is small, which only the sum of all blocks' parts tells, so Train runs
// one pipeline per round from a Go loop: the loop is the driver that
// sums Δw, measures the gap and broadcasts w. A first pipeline (Split)
// reads every shard once with acfcd's libsvm parser, one shard per
// element, and writes each block's rows; a round's pipeline has one
// element per block, whose DoFn reads its rows, its state and w, and
// writes its new state and its update. Everything between pipelines lives
// in WorkDir (any Beam filesystem: a local or shared directory, gs://…),
// named by round and block.
//
// # State and retries
//
// A block's α and ACF preferences (cocoa.State) are written to
// state/r<R+1>/b<k> by round R from state/r<R>/b<k>, which is never
// written again; w for round R is w/r<R>, and the local selection is
// seeded by the round. A round is thus a pure function of files that do
// not change: a bundle that fails and is retried, or runs twice, writes
// the same bytes, and the driver reads the updates of round R only after
// its pipeline succeeded, so no round is applied twice.
package pipeline

import (
	"bytes"
	"context"
	"encoding/gob"
	"encoding/json"
	"fmt"
	"io"
	"path"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/acfcd/acfcd/cocoa"
	"github.com/acfcd/acfcd/internal/mix"
	dataio "github.com/acfcd/acfcd/io"
	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
)

func init() {
	register.DoFn2x1[context.Context, string, error](&splitFn{})
	register.DoFn2x1[context.Context, int, error](&roundFn{})
	beam.RegisterType(reflect.TypeOf((*splitFn)(nil)).Elem())
	beam.RegisterType(reflect.TypeOf((*roundFn)(nil)).Elem())
}

// ShardInfo is what Split learns of a shard.
type ShardInfo struct {
	Path     string
	Rows     int
	Features int
	NNZ      int64
	SumSq    float64   // Σ_i ‖x_i‖², for cocoa.DefaultKappa
	Labels   []float64 // in order of first appearance (at most three)
}

// blockPiece is the rows of one shard that go to one block.
type blockPiece struct {
	RowPtr []int64
	Index  []int32
	Value  []float64
	Label  []float64
}

func piecePath(dir string, block, shard int) string {
	return path.Join(dir, "blocks", fmt.Sprintf("b%d", block), fmt.Sprintf("s%d.gob", shard))
}
func shardInfoPath(dir string, shard int) string {
	return path.Join(dir, "shards", fmt.Sprintf("s%d.json", shard))
}
func statePath(dir string, round, block int) string {
	return path.Join(dir, "state", fmt.Sprintf("r%d", round), fmt.Sprintf("b%d.gob", block))
}
func updatePath(dir string, round, block int) string {
	return path.Join(dir, "updates", fmt.Sprintf("r%d", round), fmt.Sprintf("b%d.gob", block))
}
func wPath(dir string, round int) string {
	return path.Join(dir, "w", fmt.Sprintf("r%d.gob", round))
}

// writeFile writes b to name through Beam's filesystem for its scheme.
func writeFile(ctx context.Context, name string, b []byte) error {
	fs, err := filesystem.New(ctx, name)
	if err != nil {
		return err
	}
	defer fs.Close()
	w, err := fs.OpenWrite(ctx, name)
	if err != nil {
		return err
	}
	if _, err := w.Write(b); err != nil {
		w.Close()
		return fmt.Errorf("%s: %v", name, err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("%s: %v", name, err)
	}
	return nil
}

func readFile(ctx context.Context, name string) ([]byte, error) {
	fs, err := filesystem.New(ctx, name)
	if err != nil {
		return nil, err
	}
	defer fs.Close()
	r, err := fs.OpenRead(ctx, name)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return b, nil
}

func writeGob(ctx context.Context, name string, v any) error {
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(v); err != nil {
		return fmt.Errorf("%s: %v", name, err)
	}
	return writeFile(ctx, name, buf.Bytes())
}

func readGob(ctx context.Context, name string, v any) error {
	b, err := readFile(ctx, name)
	if err != nil {
		return err
	}
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(v); err != nil {
		return fmt.Errorf("%s: %v", name, err)
	}
	return nil
}

// Glob expands a file or a glob of files through Beam's filesystems,
// sorted by name: the order of the shards, which fixes the label order
// and the blocks.
func Glob(ctx context.Context, pattern string) ([]string, error) {
	fs, err := filesystem.New(ctx, pattern)
	if err != nil {
		return nil, err
	}
	defer fs.Close()
	files, err := fs.List(ctx, pattern)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", pattern, err)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: no such file", pattern)
	}
	sort.Strings(files)
	return files, nil
}

// splitFn reads one shard ("index path") with acfcd's parser and writes
// its rows to the blocks: row r of shard s goes to block (s + r) mod K,
// so that one file splits as cocoa.Partition splits it.
type splitFn struct {
	WorkDir string
	K       int
}

func (f *splitFn) ProcessElement(ctx context.Context, elem string) error {
	idx, name, ok := strings.Cut(elem, " ")
	s, err := strconv.Atoi(idx)
	if !ok || err != nil {
		return fmt.Errorf("split: bad element %q", elem)
	}
	raw, err := readFile(ctx, name)
	if err != nil {
		return err
	}
	d, err := dataio.Read(bytes.NewReader(raw), name, dataio.Options{})
	if err != nil {
		return err
	}
	raw = nil
	info := ShardInfo{Path: name, Rows: d.Rows, Features: d.Features, NNZ: d.NNZ(), SumSq: cocoa.MeanSq(d, 0) * float64(d.Rows)}
	for _, v := range d.Label {
		if len(info.Labels) == 3 {
			break
		}
		if !containsLabel(info.Labels, v) {
			info.Labels = append(info.Labels, v)
		}
	}
	for b := range f.K {
		var rows []int
		for r := (b - s%f.K + f.K) % f.K; r < d.Rows; r += f.K {
			rows = append(rows, r)
		}
		sub := d.Subset(rows)
		pc := blockPiece{RowPtr: sub.RowPtr, Index: sub.Index, Value: sub.Value, Label: sub.Label}
		if sub.Value == nil { // float32 values
			pc.Value = make([]float64, len(sub.Value32))
			for k, v := range sub.Value32 {
				pc.Value[k] = float64(v)
			}
		}
		if err := writeGob(ctx, piecePath(f.WorkDir, b, s), &pc); err != nil {
			return err
		}
	}
	js, _ := json.Marshal(info)
	return writeFile(ctx, shardInfoPath(f.WorkDir, s), js)
}

func containsLabel(l []float64, v float64) bool {
	for _, x := range l {
		if x == v {
			return true
		}
	}
	return false
}

// update is what a block writes in a round.
type update struct {
	Index      []int32
	Value      []float64
	Steps      int64
	Loss, Conj float64 // the gap parts at the round's w and starting α
	StateBytes int64
	// The block's parts of the line search (cocoa.Block.Line).
	Lin, Quad, Top float64
}

// roundFn runs one round of one block (the element).
type roundFn struct {
	WorkDir string
	Round   int
	Shards  int
	Spec    string // cocoa.Spec as JSON
	Epochs  float64
	Init    bool // only write the block's starting state and its part of w
	// LineSearch: the state keeps the round's start, and the next round
	// first applies the driver's Gamma to the last step.
	LineSearch bool
	Gamma      float64
}

func (f *roundFn) ProcessElement(ctx context.Context, k int) error {
	var spec cocoa.Spec
	if err := json.Unmarshal([]byte(f.Spec), &spec); err != nil {
		return err
	}
	// Each round its own random stream (shuffles), the same on a retry.
	spec.Seed = mix.Seed(spec.Seed, uint64(f.Round)+1)
	d, err := loadBlock(ctx, f.WorkDir, k, f.Shards, spec.Features)
	if err != nil {
		return err
	}
	b, err := cocoa.NewBlock(spec, k, d)
	if err != nil {
		return err
	}
	var u update
	if f.Init {
		s := b.Start()
		u.Index, u.Value = s.Index, s.Value
	} else {
		if f.Round > 0 || spec.Problem.Flag() == "7" {
			var st cocoa.State
			if err := readGob(ctx, statePath(f.WorkDir, f.Round, k), &st); err != nil {
				return err
			}
			if err := b.Restore(st); err != nil {
				return err
			}
			if f.LineSearch && st.Alpha0 != nil {
				b.Scale(f.Gamma)
			}
		}
		var w []float64
		if err := readGob(ctx, wPath(f.WorkDir, f.Round), &w); err != nil {
			return err
		}
		if len(w) != spec.Dim() {
			return fmt.Errorf("round %d: w has %d entries, want %d", f.Round, len(w), spec.Dim())
		}
		u.Loss, u.Conj = b.Gap(w)
		up := b.Round(w, budget(f.Epochs, b.Len()))
		u.Index, u.Value, u.Steps = up.DW.Index, up.DW.Value, up.Steps
	}
	st := b.State()
	if f.LineSearch && !f.Init {
		u.Lin, u.Quad, u.Top, _ = b.Line()
		st.Alpha0 = b.StepStart()
	}
	u.StateBytes = 8*int64(len(st.Alpha)+len(st.AlphaC)+len(st.Alpha0)) + 4*int64(len(st.Pref)+len(st.Credit))
	next := f.Round + 1
	if f.Init {
		next = 0
	}
	if err := writeGob(ctx, statePath(f.WorkDir, next, k), &st); err != nil {
		return err
	}
	round := f.Round
	if f.Init {
		round = -1
	}
	return writeGob(ctx, updatePath(f.WorkDir, round, k), &u)
}

func budget(epochs float64, n int) int64 {
	s := int64(epochs * float64(n))
	if float64(s) < epochs*float64(n) {
		s++
	}
	return s
}

// blocks caches the examples of the blocks this process has read: the
// files of a block are written once, by Split, and never change, so a
// worker that runs the same block in the next round (Prism always does;
// a cluster's long-lived workers often) skips reading and decoding them.
// Only the state, read every round, carries anything from round to round.
var blocks struct {
	sync.Mutex
	m map[string]*dataio.Dataset
}

// loadBlock reads block k's pieces of every shard, in shard order.
func loadBlock(ctx context.Context, dir string, k, shards, features int) (*dataio.Dataset, error) {
	key := fmt.Sprintf("%s\x00%d\x00%d\x00%d", dir, k, shards, features)
	blocks.Lock()
	d := blocks.m[key]
	blocks.Unlock()
	if d != nil {
		return d, nil
	}
	d, err := readBlock(ctx, dir, k, shards, features)
	if err != nil {
		return nil, err
	}
	blocks.Lock()
	if blocks.m == nil {
		blocks.m = map[string]*dataio.Dataset{}
	}
	blocks.m[key] = d
	blocks.Unlock()
	return d, nil
}

// forget drops the cached blocks of dir (Train's end: the directory may
// be reused for other data).
func forget(dir string) {
	blocks.Lock()
	defer blocks.Unlock()
	for key := range blocks.m {
		if strings.HasPrefix(key, dir+"\x00") {
			delete(blocks.m, key)
		}
	}
}

func readBlock(ctx context.Context, dir string, k, shards, features int) (*dataio.Dataset, error) {
	d := &dataio.Dataset{Features: features, RowPtr: []int64{0}, Source: fmt.Sprintf("block %d", k)}
	for s := range shards {
		var pc blockPiece
		if err := readGob(ctx, piecePath(dir, k, s), &pc); err != nil {
			return nil, err
		}
		base := d.RowPtr[len(d.RowPtr)-1]
		for _, p := range pc.RowPtr[1:] {
			d.RowPtr = append(d.RowPtr, base+p)
		}
		d.Index = append(d.Index, pc.Index...)
		d.Value = append(d.Value, pc.Value...)
		d.Label = append(d.Label, pc.Label...)
	}
	d.Rows = len(d.Label)
	if d.Value == nil {
		d.Value = []float64{}
	}
	return d, nil
}
