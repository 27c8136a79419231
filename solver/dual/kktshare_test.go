package dual

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

	"github.com/acfcd/acfcd/internal/testkit"
	dataio "github.com/acfcd/acfcd/io"
	"github.com/acfcd/acfcd/solver/fit"
)

// BenchmarkKKTShare trains -s 1, 3 and 7 (C = 1, the defaults otherwise)
// at GOMAXPROCS 1 and 2 and reports the share of the training time spent
// in the driver's full KKT passes, the passes and how many found
// violators. A pass is timed from the driver's trace, which writes a line
// after each batch and after each pass (fit.Spec.Trace, not part of acfcd's
// API, hence a benchmark of the package and not a command of bench/); the pass that certifies a
// finisher's answer is not among them. It trains the generated text
// problem of benchText, or the binary data files listed in
// $ACFCD_KKT_DATA:
//
//	ACFCD_KKT_DATA=/tmp/d/a9a,/tmp/d/w8a go test -run '^$' -bench KKTShare -benchtime 1x ./solver/dual
func BenchmarkKKTShare(b *testing.B) {
	type set struct {
		name string
		load func() (*dataio.Dataset, error)
	}
	sets := []set{{"text", func() (*dataio.Dataset, error) { return benchText(), nil }}}
	if list := os.Getenv("ACFCD_KKT_DATA"); list != "" {
		sets = nil
		for _, path := range strings.Split(list, ",") {
			sets = append(sets, set{filepath.Base(path), func() (*dataio.Dataset, error) { return dataio.Load(path, dataio.Options{}) }})
		}
	}
	for _, ds := range sets {
		d, err := ds.load()
		if err != nil {
			b.Fatal(err)
		}
		labels := map[float64]bool{}
		for _, y := range d.Label {
			if labels[y] = true; len(labels) > 2 {
				// One-vs-rest classes train in parallel; their trace lines
				// interleave.
				b.Fatalf("%s: more than two labels; the passes are timed on binary problems only", ds.name)
			}
		}
		for _, k := range classifierKinds {
			for _, n := range []int{1, 2} {
				b.Run(fmt.Sprintf("data=%s/problem=%s/procs=%d", ds.name, flag(k), n), func(b *testing.B) {
					var mu sync.Mutex
					var last time.Time
					var inPasses time.Duration
					var passes, failed int
					s := Spec{Spec: fit.Spec{C: 1}, Kind: k}
					s.Trace = func(format string, args ...any) {
						mu.Lock()
						defer mu.Unlock()
						now := time.Now()
						if strings.HasPrefix(format, "kkt pass") {
							passes++
							inPasses += now.Sub(last)
							if ok, _ := args[0].(bool); !ok {
								failed++
							}
						}
						last = now
					}
					var secs float64
					testkit.WithProcs(n, func() {
						for b.Loop() {
							runtime.GC()
							_, res, err := train(context.Background(), d, s)
							if err != nil {
								b.Fatal(err)
							}
							secs += res.Seconds
						}
					})
					b.ReportMetric(secs/float64(b.N), "train-s/op")
					b.ReportMetric(inPasses.Seconds()/float64(b.N), "kkt-s/op")
					b.ReportMetric(100*inPasses.Seconds()/secs, "kkt-%")
					b.ReportMetric(float64(passes)/float64(b.N), "passes/op")
					b.ReportMetric(float64(failed)/float64(b.N), "failed/op")
				})
			}
		}
		d.Close()
	}
}
