package main

import (
	"context"
	"github.com/acfcd/acfcd"
	"runtime"
	"runtime/debug"
	"time"

	"github.com/acfcd/acfcd/bench/internal/benchkit"
)

// acfcdRun is one in-process acfcd run, timed as liblinear-train's
// process is: read the text file, train, write the model file.
type acfcdRun struct {
	Model    *acfcd.Model
	Result   *acfcd.Result
	LoadSec  float64 // acfcd.Load of the plain text file
	TrainSec float64 // acfcd.Train (wall)
	SaveSec  float64 // Model.Save
	TotalSec float64 // load + train + save
	CPUSec   float64 // process user+sys seconds over the run (all goroutines, GC included)
	TimedOut bool
}

// runACFCD loads path, trains with p and saves the model to modelPath
// ("" = no save). The deadline of ctx covers the whole run: training is
// cancelled at the deadline (acfcd then returns its partial model) and
// the run is reported as timed out.
func runACFCD(ctx context.Context, path string, p acfcd.Params, threads int, modelPath string) (r acfcdRun, err error) {
	// Start every run from a clean heap, so that garbage of the previous
	// run is not collected on this one's clock.
	runtime.GC()
	debug.FreeOSMemory()

	c0 := benchkit.ProcessCPU()
	defer func() { r.CPUSec = benchkit.ProcessCPU() - c0 }()
	t0 := time.Now()
	d, err := acfcd.Load(path, acfcd.Options{Threads: threads})
	if err != nil {
		return r, err
	}
	defer d.Close()
	t1 := time.Now()
	r.LoadSec = t1.Sub(t0).Seconds()
	if ctx.Err() != nil {
		r.TimedOut = true
		r.TotalSec = r.LoadSec
		return r, nil
	}
	m, res, err := acfcd.Train(ctx, d, p)
	if err != nil && (res == nil || !res.Cancelled) {
		return r, err
	}
	t2 := time.Now()
	r.TrainSec = t2.Sub(t1).Seconds()
	r.Model, r.Result = m, res
	if res.Cancelled || ctx.Err() != nil {
		r.TimedOut = true
		r.TotalSec = t2.Sub(t0).Seconds()
		return r, nil
	}
	if modelPath != "" {
		if err := m.Save(modelPath); err != nil {
			return r, err
		}
	}
	t3 := time.Now()
	r.SaveSec = t3.Sub(t2).Seconds()
	r.TotalSec = t3.Sub(t0).Seconds()
	return r, nil
}
