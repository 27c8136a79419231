//go:build unix

package acfcd

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/acfcd/acfcd/internal/synth"
	"github.com/acfcd/acfcd/internal/testkit"
	dataio "github.com/acfcd/acfcd/io"
)

// TestTrainOnTruncatedCache: a binary cache is used in place from its
// mapping; truncating the file during training must give an error naming
// the file, not a SIGBUS crash, for every problem.
func TestTrainOnTruncatedCache(t *testing.T) {
	testkit.SkipEmulated(t, "qemu-user delivers SIGBUS without the fault address, which the runtime needs to tell a memory fault from a nil dereference")
	src := synth.Classes(synth.ClassesConfig{Seed: 31, Rows: 3000, Feats: 200, Density: 0.3, Labels: []float64{1, -1, 2}, Noise: 0.1})
	for _, p := range []Params{
		{Problem: SquaredHingeDual, C: 1},
		{Problem: LogisticDual, C: 1},
		{Problem: WestonWatkins, C: 1},
		{Problem: Lasso, Lambda: 1},
	} {
		path, d := mappedCache(t, src)
		if err := os.Truncate(path, 0); err != nil {
			t.Fatal(err)
		}
		_, _, err := Train(context.Background(), d, p)
		if err == nil || !strings.Contains(err.Error(), path+": memory fault while training") {
			t.Errorf("-s %s: error %v, want a memory fault naming %s", p.Problem.Flag(), err, path)
		}
		d.Close()
	}
}

// TestCrossValidateOnTruncatedCache: the fold goroutines of
// CrossValidate read the mapped data too (copying the folds, predicting):
// a truncated cache is an error naming the file, not a crash, at any
// number of folds running at once.
func TestCrossValidateOnTruncatedCache(t *testing.T) {
	testkit.SkipEmulated(t, "qemu-user delivers SIGBUS without the fault address, which the runtime needs to tell a memory fault from a nil dereference")
	src := synth.Classes(synth.ClassesConfig{Seed: 32, Rows: 3000, Feats: 200, Density: 0.3, Labels: []float64{1, -1}, Noise: 0.1})
	for _, procs := range []int{1, 2} {
		path, d := mappedCache(t, src)
		var err error
		// Truncated while fold 1 trains, after the checks of the whole
		// data: the fault comes in a fold goroutine (copying a fold or
		// predicting held-out rows).
		var once sync.Once
		p := Params{Problem: SquaredHingeDual, C: 1, Eps: 1e-4}
		p.Progress = func(Progress) {
			once.Do(func() {
				if err := os.Truncate(path, 0); err != nil {
					t.Error(err)
				}
			})
		}
		testkit.WithProcs(procs, func() {
			_, err = CrossValidate(context.Background(), d, p, 5)
		})
		if err == nil || !strings.HasPrefix(err.Error(), "fold ") || !strings.Contains(err.Error(), path+": memory fault while training") {
			t.Errorf("procs %d: error %v, want a fold's memory fault naming %s", procs, err, path)
		}
		d.Close()
	}
}

// mappedCache writes src as a binary cache in a temporary folder and
// loads it, mapped: the caller truncates the file under the dataset.
func mappedCache(t *testing.T, src *dataio.Dataset) (string, *dataio.Dataset) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "d.acf")
	if err := dataio.WriteCache(path, src); err != nil {
		t.Fatal(err)
	}
	d, err := dataio.Load(path, dataio.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return path, d
}

// TestFindCOnTruncatedCache: the search's fold goroutines read the mapped
// data (copying folds, predicting): a cache truncated during the search
// is an error naming the file and the C, not a crash.
func TestFindCOnTruncatedCache(t *testing.T) {
	testkit.SkipEmulated(t, "qemu-user delivers SIGBUS without the fault address, which the runtime needs to tell a memory fault from a nil dereference")
	src := synth.Classes(synth.ClassesConfig{Seed: 32, Rows: 3000, Feats: 200, Density: 0.3, Labels: []float64{1, -1}, Noise: 0.1})
	for _, procs := range []int{1, 2} {
		path, d := mappedCache(t, src)
		var err error
		var once sync.Once
		p := Params{Problem: SquaredHingeDual, Eps: 1e-4}
		p.Progress = func(Progress) {
			once.Do(func() {
				if err := os.Truncate(path, 0); err != nil {
					t.Error(err)
				}
			})
		}
		testkit.WithProcs(procs, func() {
			_, err = FindC(context.Background(), d, p, 5, SearchOptions{})
		})
		if err == nil || !strings.HasPrefix(err.Error(), "C = ") || !strings.Contains(err.Error(), path+": memory fault while training") {
			t.Errorf("procs %d: error %v, want a fold's memory fault naming %s", procs, err, path)
		}
		d.Close()
	}
}
