package solver

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	dataio "github.com/acfcd/acfcd/io"
)

// TestMeasureStreamedSweeps is a measurement, not a test: with
// ACFCD_STREAM_DATA=path[,path...] (and optionally ACFCD_STREAM_SEEDS=k)
// it trains -s 1 -c 1 -e 0.1 (acf+shrink) on each file with whole sweeps
// and with streamed ones, in chunks of a fifth of the examples (10 rounds
// per sweep, as sweepChunk gives a 10⁷-example kdd problem), for seeds
// 1..k, and prints
// epochs, steps, seconds and the dual objective: does streaming cost
// convergence? Run it alone on a quiet machine.
func TestMeasureStreamedSweeps(t *testing.T) {
	spec := os.Getenv("ACFCD_STREAM_DATA")
	if spec == "" {
		t.Skip("set ACFCD_STREAM_DATA=path[,path...]")
	}
	seeds := 3
	if v, err := strconv.Atoi(os.Getenv("ACFCD_STREAM_SEEDS")); err == nil && v > 0 {
		seeds = v
	}
	fmt.Printf("%-12s %-9s %4s %6s %12s %9s %16s\n", "data", "sweeps", "seed", "epochs", "steps", "train_s", "dual")
	for _, path := range strings.Split(spec, ",") {
		d, err := dataio.Load(path, dataio.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for seed := uint64(1); seed <= uint64(seeds); seed++ {
			for _, streamed := range []bool{false, true} {
				name, restore := "whole", func() {}
				if streamed {
					name, restore = "streamed", streamSweeps(max(1, d.Rows/5))
				}
				runtime.GC()
				_, res, err := Train(context.Background(), d, Params{Solver: 1, C: 1, Eps: 0.1, Seed: seed})
				restore()
				if err != nil {
					t.Fatal(err)
				}
				fmt.Printf("%-12s %-9s %4d %6d %12d %9.2f %16.8g\n", filepath.Base(path), name, seed, res.Epochs, res.Iterations, res.Seconds, res.Objective)
			}
		}
		d.Close()
	}
}
