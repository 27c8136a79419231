package acfcd

import (
	"context"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"strings"
	"testing"
	"time"
)

// tiny is a well-formed binary problem of four examples.
func tiny() *Dataset {
	return &Dataset{Rows: 4, Features: 2, RowPtr: []int64{0, 2, 4, 5, 6}, Index: []int32{0, 1, 0, 1, 0, 1},
		Value: []float64{1, 2, -1, -2, 0.5, -0.5}, Label: []float64{1, -1, 1, -1}}
}

// A hand-built row with a repeated or unordered index, or a NaN value, is
// refused with the row and what is wrong, as the reader refuses such a
// line: a row {1, 1} used to train a model that matched neither reading.
func TestHandBuiltRowsChecked(t *testing.T) {
	ctx := context.Background()
	m, _, err := Train(ctx, tiny(), Params{Problem: SquaredHingeDual})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		edit func(d *Dataset)
		want string
	}{
		{"repeated index", func(d *Dataset) { d.Index[1] = 0 }, "malformed dataset: row 0: feature indices not strictly increasing (0 after 0)"},
		{"unordered", func(d *Dataset) { d.Index[2], d.Index[3] = 1, 0 }, "malformed dataset: row 1: feature indices not strictly increasing (0 after 1)"},
		{"negative", func(d *Dataset) { d.Index[4] = -3 }, "malformed dataset: row 2: negative feature index -3"},
		{"beyond Features", func(d *Dataset) { d.Index[5] = 2 }, "malformed dataset: row 3: feature index 2 is not below the feature count 2"},
		{"NaN value", func(d *Dataset) { d.Value[3] = math.NaN() }, "malformed dataset: row 1: value NaN is not finite"},
		{"NaN label", func(d *Dataset) { d.Label[2] = math.NaN() }, "malformed dataset: row 2: label NaN is not finite"},
		{"row offsets", func(d *Dataset) { d.RowPtr[2] = 1 }, "malformed dataset: row 1: the row offsets decrease (1 after 2)"},
		{"labels", func(d *Dataset) { d.Label = d.Label[:3] }, "malformed dataset: Label has 3 entries for 4 rows"},
	} {
		d := tiny()
		c.edit(d)
		for _, p := range []Params{{Problem: SquaredHingeDual}, {Problem: LogisticPrimal}, {Problem: Lasso, Lambda: 0.1}, {Problem: CrammerSinger}} {
			if _, _, err := Train(ctx, d, p); err == nil || err.Error() != c.want {
				t.Errorf("%s, %v: Train: %v\nwant %s", c.name, p.Problem, err, c.want)
			}
		}
		if _, err := CrossValidate(ctx, d, Params{Problem: SquaredHingeDual}, 2); err == nil || err.Error() != c.want {
			t.Errorf("%s: CrossValidate: %v", c.name, err)
		}
		if _, err := Evaluate(m, d); err == nil || err.Error() != "evaluate: "+c.want {
			t.Errorf("%s: Evaluate: %v", c.name, err)
		}
	}
}

// Calls that used to panic (some in a worker goroutine, which no caller
// can recover) return errors, and Predict of a zero Model is NaN.
func TestNoPanics(t *testing.T) {
	ctx := context.Background()
	d := tiny()
	m, _, err := Train(ctx, d, Params{Problem: SquaredHingeDual})
	if err != nil {
		t.Fatal(err)
	}
	const noCtx = "nil context: pass context.Background() or a context of your own"
	lasso := Params{Problem: Lasso}
	for _, c := range []struct {
		name string
		call func() error
		want string
	}{
		{"Train(nil ctx)", func() error { _, _, err := Train(nil, d, Params{Problem: SquaredHingeDual}); return err }, noCtx},
		{"Train(nil)", func() error { _, _, err := Train(ctx, nil, Params{Problem: SquaredHingeDual}); return err }, "nil dataset"},
		{"CrossValidate(nil ctx)", func() error { _, err := CrossValidate(nil, d, Params{Problem: SquaredHingeDual}, 2); return err }, noCtx},
		{"FindC(nil ctx)", func() error {
			_, err := FindC(nil, d, Params{Problem: SquaredHingeDual}, 2, SearchOptions{})
			return err
		}, noCtx},
		{"CrossValidatePath(nil ctx)", func() error { _, err := CrossValidatePath(nil, d, lasso, CVPathOptions{Folds: 2}); return err }, noCtx},
		{"TrainPath(nil ctx)", func() error { _, err := TrainPath(nil, d, lasso, 5, 0); return err }, noCtx},
		{"TrainPath(nil)", func() error { _, err := TrainPath(ctx, nil, lasso, 5, 0); return err }, "nil dataset"},
		{"TrainPathLambdas(nil)", func() error { _, err := TrainPathLambdas(ctx, nil, lasso, []float64{1}); return err }, "nil dataset"},
		{"LambdaSequence(nil)", func() error { _, err := LambdaSequence(nil, lasso, 5, 0); return err }, "nil dataset"},
		{"Evaluate(nil, d)", func() error { _, err := Evaluate(nil, d); return err }, "evaluate: nil model or dataset"},
		{"Evaluate(m, nil)", func() error { _, err := Evaluate(m, nil); return err }, "evaluate: nil model or dataset"},
		{"Evaluate(zero model)", func() error { _, err := Evaluate(&Model{}, d); return err }, `evaluate: unknown solver type ""`},
		{"Read(nil)", func() error { _, err := Read(nil, "x.svm", Options{}); return err }, "x.svm: nil reader"},
		{"ReadModel(nil)", func() error { _, err := ReadModel(nil, "x.model"); return err }, "x.model: nil reader"},
		{"FoldIDs(-1, 2)", func() error { _, err := FoldIDs(-1, 2, 1); return err }, "rows = -1: a row count cannot be negative"},
		{"FoldIDs(5, 0)", func() error { _, err := FoldIDs(5, 0, 1); return err }, "nfolds = 0: folds are numbered from 1: at least 1 is needed"},
		{"(*Model)(nil).Save", func() error { var z *Model; return z.Save(t.TempDir() + "/m") }, "save model " + "PATH" + ": nil model"},
	} {
		var err error
		func() {
			defer func() {
				if r := recover(); r != nil {
					err = errors.New("panic")
				}
			}()
			err = c.call()
		}()
		want := c.want
		if strings.Contains(want, "PATH") && err != nil {
			want = strings.Replace(want, "PATH", strings.TrimSuffix(strings.TrimPrefix(err.Error(), "save model "), ": nil model"), 1)
		}
		if err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %s", c.name, err, want)
		}
	}
	var zero Model
	var none *Model
	if y := zero.Predict([]int32{0}, []float64{1}); !math.IsNaN(y) {
		t.Errorf("a zero Model predicts %v", y)
	}
	if y := none.Predict([]int32{0}, []float64{1}); !math.IsNaN(y) {
		t.Errorf("a nil Model predicts %v", y)
	}
}

// FuzzTrainDataset builds datasets from random bytes (shape, indices that
// may repeat, go backwards or out of range, values and labels that may be
// NaN, huge or tiny) and random parameters: Train, CrossValidate and
// Evaluate return an error or a model, never panic or hang.
func FuzzTrainDataset(f *testing.F) {
	f.Add([]byte{3, 2, 1, 0, 1, 1, 0x3f, 0xf0, 0, 0, 0, 0, 0, 0})
	f.Add([]byte{8, 5, 0, 2, 2, 1, 4, 3, 0, 9, 1, 7, 6, 5, 4, 3, 2, 1, 0, 200, 100, 50, 25})
	f.Add([]byte{1, 1, 12, 0, 0, 0x7f, 0xf8, 0, 0, 0, 0, 0, 1})
	problems := []Problem{SquaredHingeDual, HingeDual, LogisticDual, Lasso, WestonWatkins, LogisticPrimal,
		SquaredHingePrimal, CrammerSinger, L1SquaredHinge, L1Logistic, SquaredSVRPrimal, SquaredSVRDual, SVRDual, OneClassSVM}
	f.Fuzz(func(t *testing.T, b []byte) {
		next := func() byte {
			if len(b) == 0 {
				return 0
			}
			v := b[0]
			b = b[1:]
			return v
		}
		float := func() float64 {
			switch k := next(); k % 8 {
			case 0:
				if len(b) >= 8 {
					v := math.Float64frombits(binary.LittleEndian.Uint64(b))
					b = b[8:]
					return v
				}
				return 0
			case 1:
				return float64(int8(next())) * 1e150
			case 2:
				return float64(int8(next())) * 1e-160
			default:
				return float64(int8(k)) / 16
			}
		}
		rows := int(next()%12) + 1
		d := &Dataset{Rows: rows, Features: int(next() % 9), RowPtr: make([]int64, rows+1), Label: make([]float64, rows)}
		for i := 0; i < rows; i++ {
			n := int(next() % 5)
			for k := 0; k < n; k++ {
				d.Index = append(d.Index, int32(int8(next()))%10)
				d.Value = append(d.Value, float())
			}
			d.RowPtr[i+1] = int64(len(d.Index))
			d.Label[i] = float64(int8(next()) % 4)
		}
		if d.Value == nil {
			d.Value = []float64{}
		}
		if next()%7 == 0 { // an inconsistent row offset now and then
			d.RowPtr[next()%byte(rows+1)] += int64(int8(next()))
		}
		p := Params{Problem: problems[int(next())%len(problems)], MaxEpochs: 20 + int(next()%50), Seed: uint64(next())}
		switch next() % 4 {
		case 1:
			p.C = math.Ldexp(1, int(int8(next()))%40)
		case 2:
			p.C = float()
		}
		if p.Problem == Lasso {
			p.Lambda = math.Abs(float())
		}
		if next()%3 == 0 {
			p.Bias = 1
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		m, _, err := Train(ctx, d, p)
		if ctx.Err() != nil {
			t.Fatalf("Train ran past 20 s on %d rows", rows)
		}
		if err == nil {
			if m == nil {
				t.Fatal("no model and no error")
			}
			if err := m.Check(); err != nil {
				t.Fatalf("Train returned a model that fails Check: %v", err)
			}
			if _, err := Evaluate(m, d); err != nil {
				t.Fatalf("Evaluate of the training data: %v", err)
			}
		}
		if rows >= 2 && p.Problem != Lasso {
			CrossValidate(ctx, d, p, 2)
		}
	})
}

// Messages that were unclear or wrong: an oversized index echoed whole, the
// smallest int32 label refused, a zero-row cache and a closed cache
// without their file or with the wrong cause, a NaN weight key ignored,
// negative reader options accepted.
func TestMessages(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := dir + "/big.svm"
	huge := strings.Repeat("9", 1<<20)
	if err := os.WriteFile(path, []byte("+1 1:1 "+huge+":1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(path, Options{})
	if want := path + ":1:8: feature index 99999999999999999999... (1048576 digits) is too large (at most 2147483647 features are supported)"; err == nil || err.Error() != want {
		t.Errorf("oversized index: %.300v\nwant %s", err, want)
	}

	d := tiny()
	d.Label = []float64{math.MinInt32, 1, math.MinInt32, 1}
	if m, _, err := Train(ctx, d, Params{Problem: SquaredHingeDual}); err != nil || m.Labels[0] != math.MinInt32 {
		t.Errorf("label -2147483648: %v", err)
	}
	d.Label[2] = math.MinInt32 - 1
	d.Source = "lab.svm"
	if _, _, err := Train(ctx, d, Params{Problem: SquaredHingeDual}); err == nil || !strings.HasPrefix(err.Error(), "lab.svm: example 3: label -2147483649 is not a class label: classifiers take integer labels in the int32 range [-2147483648, 2147483647]") {
		t.Errorf("label -2147483649: %v", err)
	}

	empty := dir + "/empty.acf"
	if err := WriteCache(empty, &Dataset{Features: 2, RowPtr: []int64{0}, Value: []float64{}}); err != nil {
		t.Fatal(err)
	}
	z, err := Load(empty, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := Train(ctx, z, Params{Problem: SquaredHingeDual}); err == nil || err.Error() != empty+": no training examples" {
		t.Errorf("zero-row cache: %v", err)
	}

	cache := dir + "/t.acf"
	if err := WriteCache(cache, tiny()); err != nil {
		t.Fatal(err)
	}
	c, err := Load(cache, Options{})
	if err != nil {
		t.Fatal(err)
	}
	m, _, err := Train(ctx, c, Params{Problem: SquaredHingeDual})
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	closed := cache + ": the dataset was closed: Close released the memory-mapped cache that held it"
	if _, _, err := Train(ctx, c, Params{Problem: SquaredHingeDual}); err == nil || err.Error() != closed {
		t.Errorf("closed cache, Train: %v\nwant %s", err, closed)
	}
	if _, err := Evaluate(m, c); err == nil || err.Error() != "evaluate: "+closed {
		t.Errorf("closed cache, Evaluate: %v", err)
	}

	p := Params{Problem: SquaredHingeDual, Weights: map[float64]float64{math.NaN(): 2}}
	if _, _, err := Train(ctx, tiny(), p); err == nil || err.Error() != "Params.Weights = NaN: a class label must be a finite number (the key of a weight)" {
		t.Errorf("NaN weight key: %v", err)
	}

	for _, c := range []struct {
		opt  Options
		want string
	}{
		{Options{Threads: -1}, "Options.Threads = -1: a thread count cannot be negative (0: all cores)"},
		{Options{MaxFeatures: -1}, "Options.MaxFeatures = -1: a feature cap cannot be negative (0: the int32 limit)"},
	} {
		if _, err := Load(cache, c.opt); err == nil || err.Error() != c.want {
			t.Errorf("%+v: %v", c.opt, err)
		}
	}
}
