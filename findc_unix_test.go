//go:build unix

package acfcd

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/acfcd/acfcd/internal/testkit"
)

// TestFindCOnTruncatedCache: the search's fold goroutines read the mapped
// data (copying folds, predicting): a cache truncated during the search
// is an error naming the file and the C, not a crash.
func TestFindCOnTruncatedCache(t *testing.T) {
	testkit.SkipEmulated(t, "qemu-user delivers SIGBUS without the fault address, which the runtime needs to tell a memory fault from a nil dereference")
	src := genData(genSpec{seed: 32, rows: 3000, feats: 200, density: 0.3, labels: []float64{1, -1}, noise: 0.1})
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
		withProcs(procs, func() {
			_, err = FindC(context.Background(), d, p, 5, SearchOptions{})
		})
		if err == nil || !strings.HasPrefix(err.Error(), "C = ") || !strings.Contains(err.Error(), path+": memory fault while training") {
			t.Errorf("procs %d: error %v, want a fold's memory fault naming %s", procs, err, path)
		}
		d.Close()
	}
}
