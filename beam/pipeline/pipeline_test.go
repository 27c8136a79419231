package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/acfcd/acfcd"
	"github.com/acfcd/acfcd/cocoa"
	"github.com/acfcd/acfcd/internal/synth"
	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"
)

func TestMain(m *testing.M) {
	beam.Init()
	os.Exit(m.Run())
}

// writeShards writes d as n libsvm files in dir and returns their glob.
func writeShards(t *testing.T, d *acfcd.Dataset, dir string, n int) string {
	t.Helper()
	per := (d.Rows + n - 1) / n
	for s := range n {
		var b bytes.Buffer
		for i := s * per; i < min(d.Rows, (s+1)*per); i++ {
			b.WriteString(strconv.FormatFloat(d.Label[i], 'g', -1, 64))
			idx, val := d.Row(i)
			for k, j := range idx {
				fmt.Fprintf(&b, " %d:%s", j+1, strconv.FormatFloat(val[k], 'g', -1, 64))
			}
			b.WriteByte('\n')
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("part-%d.svm", s)), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "part-*.svm")
}

func data() *acfcd.Dataset {
	return synth.Text(synth.TextConfig{Rows: 600, Features: 300, MeanNNZ: 10, Informative: 20, Noise: 0.05, Seed: 5})
}

// primal recomputes ½‖w‖² + C Σ max(0, 1 − y wᵀx)² from a model.
func primal(m *acfcd.Model, d *acfcd.Dataset, c float64) float64 {
	var ww, loss float64
	for _, v := range m.W {
		ww += v * v
	}
	out := []float64{0}
	for i := range d.Rows {
		idx, val := d.Row(i)
		m.Decision(idx, val, out)
		y := -1.0
		if d.Label[i] == m.Labels[0] {
			y = 1
		}
		if h := 1 - y*out[0]; h > 0 {
			loss += c * h * h
		}
	}
	return ww/2 + loss
}

// TestTrainOnPrism: CoCoA+ (add), the line search at σ' = 1 (line1) and
// line1 under Catalyst (κ from the data) reach the optimum of one machine
// on the engine.
func TestTrainOnPrism(t *testing.T) {
	for _, c := range []struct {
		st    cocoa.Step
		kappa float64
	}{{cocoa.Add, 0}, {cocoa.Line1, 0}, {cocoa.Line1, -1}} {
		t.Run(fmt.Sprintf("step=%s/kappa=%g", c.st, c.kappa), func(t *testing.T) { trainOnPrism(t, c.st, c.kappa) })
	}
}

func trainOnPrism(t *testing.T, st cocoa.Step, kappa float64) {
	d := data()
	dir := t.TempDir()
	glob := writeShards(t, d, dir, 3)
	var log bytes.Buffer
	cfg := Config{Spec: cocoa.Spec{Problem: acfcd.SquaredHingeDual, C: 0.1}, Data: glob, WorkDir: filepath.Join(dir, "work"),
		Runner: "prism", Workers: 2, Epochs: 2, Gap: 1e-4, MaxRounds: 100, Log: &log, Step: st, Kappa: kappa}
	res, err := Train(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if st.LineSearch() {
		moved := false
		for _, r := range res.Rounds[1:] {
			moved = moved || r.Gamma != 1
		}
		if !moved {
			t.Errorf("every γ of the line search is 1")
		}
	}
	t.Logf("%d rounds", len(res.Rounds))
	if testing.Verbose() {
		t.Logf("%s", log.String())
	}
	if !res.Converged {
		t.Fatalf("not converged in %d rounds", len(res.Rounds))
	}
	m := res.Spec.Model(res.W)
	// The same data in one file, trained on one machine.
	whole := filepath.Join(t.TempDir(), "whole.svm")
	writeShards(t, d, filepath.Dir(whole), 1)
	one, err := acfcd.Load(filepath.Join(filepath.Dir(whole), "part-0.svm"), acfcd.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ms, _, err := acfcd.Train(context.Background(), one, acfcd.Params{Problem: acfcd.SquaredHingeDual, C: 0.1, Eps: 1e-6})
	if err != nil {
		t.Fatal(err)
	}
	got, want := primal(m, one, 0.1), primal(ms, one, 0.1)
	if math.Abs(got-want) > 1e-4 {
		t.Errorf("primal %.9g on the engine, %.9g on one machine", got, want)
	}
	if m.Labels[0] != ms.Labels[0] || m.NumFeature != ms.NumFeature || m.Bias != ms.Bias {
		t.Errorf("model header: labels %v, %d features, bias %g; one machine: %v, %d, %g", m.Labels, m.NumFeature, m.Bias, ms.Labels, ms.NumFeature, ms.Bias)
	}
}

// A round run again from the same files (a retried bundle, a second
// attempt) writes the same update and state, byte for byte.
func TestRoundIdempotent(t *testing.T) {
	d := data()
	dir := t.TempDir()
	glob := writeShards(t, d, dir, 2)
	work := filepath.Join(dir, "work")
	for _, c := range []struct {
		p  acfcd.Problem
		st cocoa.Step
	}{{acfcd.HingeDual, cocoa.Add}, {acfcd.LogisticDual, cocoa.Add}, {acfcd.SquaredHingeDual, cocoa.Line1}} {
		p := c.p
		cfg := Config{Spec: cocoa.Spec{Problem: p, C: 1}, Data: glob, WorkDir: work, Runner: "prism", Workers: 3, Epochs: 0.5, MaxRounds: 3, Step: c.st}
		res, err := Train(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Rounds) != 3 {
			t.Fatalf("%v: %d rounds, want 3", p, len(res.Rounds))
		}
		js, _ := json.Marshal(res.Spec)
		for _, k := range []int{0, 2} {
			upd, st := updatePath(work, 1, k), statePath(work, 2, k)
			before := [][]byte{readAll(t, upd), readAll(t, st)}
			pl, s := beam.NewPipelineWithRoot()
			beam.ParDo0(s, &roundFn{WorkDir: work, Round: 1, Shards: 2, Spec: string(js), Epochs: 0.5,
				LineSearch: c.st.LineSearch(), Gamma: res.Rounds[1].Gamma}, beam.Create(s, k))
			if _, err := beam.Run(context.Background(), "prism", pl); err != nil {
				t.Fatal(err)
			}
			after := [][]byte{readAll(t, upd), readAll(t, st)}
			for i := range before {
				if !bytes.Equal(before[i], after[i]) {
					t.Errorf("%v: block %d: round 1 run again wrote a different %s", p, k, []string{"update", "state"}[i])
				}
			}
		}
	}
}

func readAll(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestTrainErrors(t *testing.T) {
	dir := t.TempDir()
	three := filepath.Join(dir, "three.svm")
	os.WriteFile(three, []byte("1 1:1\n2 2:1\n3 1:1\n"), 0o644)
	bad := filepath.Join(dir, "bad.svm")
	os.WriteFile(bad, []byte("1 1:1\n-1 2:x\n"), 0o644)
	for _, c := range []struct{ data, want string }{
		{filepath.Join(dir, "none-*.svm"), "no such file"},
		{three, "a third class"},
		{bad, "bad.svm:2"},
	} {
		_, err := Train(context.Background(), Config{Spec: cocoa.Spec{Problem: acfcd.HingeDual, C: 1}, Data: c.data, WorkDir: filepath.Join(dir, "w"), Runner: "prism", Workers: 2})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.data, err, c.want)
		}
	}
}
