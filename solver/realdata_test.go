package solver

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/acfcd/acfcd/acf"
	dataio "github.com/acfcd/acfcd/io"
)

// readLibSVM is a plain libsvm text reader for tests and measurements
// (1-based indices in the file, 0-based in the Dataset).
func readLibSVM(t testing.TB, path string) *dataio.Dataset {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d := &dataio.Dataset{RowPtr: []int64{0}, Source: path}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	maxIdx := int32(0)
	for sc.Scan() {
		line := sc.Bytes()
		if i := bytes.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		fields := bytes.Fields(line)
		if len(fields) == 0 {
			continue
		}
		y, err := strconv.ParseFloat(string(fields[0]), 64)
		if err != nil {
			t.Fatalf("%s: label %q: %v", path, fields[0], err)
		}
		d.Label = append(d.Label, y)
		for _, tok := range fields[1:] {
			c := bytes.IndexByte(tok, ':')
			j, err1 := strconv.Atoi(string(tok[:c]))
			v, err2 := strconv.ParseFloat(string(tok[c+1:]), 64)
			if c < 0 || err1 != nil || err2 != nil || j < 1 {
				t.Fatalf("%s: bad token %q", path, tok)
			}
			if v == 0 {
				continue
			}
			d.Index = append(d.Index, int32(j-1))
			d.Value = append(d.Value, v)
			maxIdx = max(maxIdx, int32(j))
		}
		d.RowPtr = append(d.RowPtr, int64(len(d.Index)))
		d.Rows++
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	d.Features = int(maxIdx)
	return d
}

// TestRealData measures the selections on real files. It runs only with
// ACFCD_REALDATA set to a comma-separated list of name=path:solver:C:eps
// entries, e.g.
//
//	ACFCD_REALDATA=/tmp/debian-desc.binary:3:100:0.01 go test -run RealData -v ./solver
func TestRealData(t *testing.T) {
	spec := os.Getenv("ACFCD_REALDATA")
	if spec == "" {
		t.Skip("set ACFCD_REALDATA=path:solver:C:eps[,...] to measure on real data")
	}
	sels := allSelections
	if s := os.Getenv("ACFCD_SELECT"); s != "" {
		sels = strings.Split(s, ",")
	}
	if os.Getenv("ACFCD_DEBUG") != "" {
		debugf = func(format string, args ...any) { fmt.Printf("  "+format+"\n", args...) }
		debugBatches = os.Getenv("ACFCD_DEBUG") == "2"
		defer func() { debugf, debugBatches = nil, false }()
	}
	if os.Getenv("ACFCD_NOPREFETCH") != "" {
		usePrefetch = false
		defer func() { usePrefetch = true }()
	}
	if os.Getenv("ACFCD_NOPUSH") != "" {
		usePushDups = false
		defer func() { usePushDups = true }()
	}
	cache := map[string]*dataio.Dataset{}
	for _, e := range strings.Split(spec, ",") {
		f := strings.Split(e, ":")
		target := math.Inf(-1) // ACFCD_REALDATA entries may end in :target objective
		if len(f) == 5 {
			target, _ = strconv.ParseFloat(f[4], 64)
			f = f[:4]
		}
		if len(f) != 4 {
			t.Fatalf("bad entry %q", e)
		}
		d := cache[f[0]]
		if d == nil {
			d = readLibSVM(t, f[0])
			cache[f[0]] = d
		}
		s, _ := strconv.Atoi(f[1])
		c, _ := strconv.ParseFloat(f[2], 64)
		eps, _ := strconv.ParseFloat(f[3], 64)
		for _, sel := range sels {
			var cfg acf.Config
			if v := os.Getenv("ACFCD_ACF"); v != "" {
				fmt.Sscanf(v, "%g,%g,%g", &cfg.C, &cfg.PMin, &cfg.PMax)
			}
			cpu0 := cpuSeconds()
			hit := math.NaN()
			progress := func(p Progress) {
				if math.IsNaN(hit) && p.Objective <= target {
					hit = cpuSeconds() - cpu0
				}
			}
			maxEpochs, _ := strconv.Atoi(os.Getenv("ACFCD_MAXEPOCHS"))
			_, res, err := Train(context.Background(), d, Params{Solver: s, C: c, Eps: eps, Bias: -1, Select: sel, Seed: 1, ACF: cfg, Progress: progress, MaxEpochs: maxEpochs, NoFallback: os.Getenv("ACFCD_NOFALLBACK") != ""})
			cpu := cpuSeconds() - cpu0
			if err != nil {
				t.Fatal(err)
			}
			fmt.Printf("%-28s -s %d -c %-5g -e %-5g %-10s iters %10d epochs %5d ops %12d  %7.3fs wall %7.3fs cpu  obj %.8g gap %.3g viol %.3g conv %v\n",
				f[0], s, c, eps, sel, res.Iterations, res.Epochs, res.Operations, res.Seconds, cpu, res.Objective, res.Gap, res.Violation, res.Converged)
			if !math.IsInf(target, -1) {
				fmt.Printf("    reached target %.10g after %.3fs cpu\n", target, hit)
			}
		}
	}
}
