package solver

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	dataio "github.com/acfcd/acfcd/io"
)

// TestMeasureKKTShare is a measurement, not a test: with
// ACFCD_KKT_DATA=path[,path...] it trains -s 1, 3 and 7 (C = 1, default
// settings) on each file at GOMAXPROCS 1 and 2 and prints the training
// time, the time spent in full KKT passes and its share, the passes and
// how many of them found violators. Run it alone on a quiet machine.
func TestMeasureKKTShare(t *testing.T) {
	spec := os.Getenv("ACFCD_KKT_DATA")
	if spec == "" {
		t.Skip("set ACFCD_KKT_DATA=path[,path...]")
	}
	var mu sync.Mutex
	var passes, failed int
	var inPasses time.Duration
	testHookKKTPass = func(d time.Duration, ok bool, _ int) {
		mu.Lock()
		defer mu.Unlock()
		passes++
		inPasses += d
		if !ok {
			failed++
		}
	}
	defer func() { testHookKKTPass = nil }()
	fmt.Printf("%-10s %2s %5s %9s %9s %6s %6s %6s\n", "data", "s", "procs", "train_s", "kkt_s", "share", "passes", "failed")
	for _, path := range strings.Split(spec, ",") {
		d, err := dataio.Load(path, dataio.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range allSolvers {
			for _, procs := range []int{1, 2} {
				withProcs(procs, func() {
					runtime.GC()
					passes, failed, inPasses = 0, 0, 0
					_, res, err := Train(context.Background(), d, Params{Solver: s, C: 1})
					if err != nil {
						t.Fatal(err)
					}
					fmt.Printf("%-10s %2d %5d %9.3f %9.4f %5.1f%% %6d %6d\n", filepath.Base(path), s, procs, res.Seconds,
						inPasses.Seconds(), 100*inPasses.Seconds()/res.Seconds, passes, failed)
				})
			}
		}
		d.Close()
	}
}
