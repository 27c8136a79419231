// Package testkit holds the small checks that the tests of several
// packages share, and the comparisons with liblinear-train (liblinear.go).
// It imports nothing of acfcd, so any package's tests may use it (package
// io's own included).
package testkit

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// SameBits reports whether a and b hold the same float64s, bit for bit.
func SameBits(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) })
}

// RelDiff returns |a − b| relative to the larger of |a|, |b| and 1.
func RelDiff(a, b float64) float64 {
	return math.Abs(a-b) / math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

// Allocated returns the bytes the Go heap handed out while f ran.
func Allocated(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// Tolerances returns the eps values for tests of a full pass, from the
// sorted violations at the test point: none violates; the largest 1, 2,
// 3, 5, 10 and 30; half of them.
func Tolerances(sorted []float64) []float64 {
	n := len(sorted)
	eps := []float64{2 * sorted[n-1]}
	for _, k := range []int{1, 2, 3, 5, 10, 30, n / 2} {
		eps = append(eps, sorted[n-1-k])
	}
	return eps
}

// EmulatorEnv names the environment variable that holds the command a
// cross-architecture test run executes binaries with, as go test's -exec
// does (for example ACFCD_TEST_EXEC=qemu-aarch64 with GOARCH=arm64
// go test -exec qemu-aarch64): tests that start their own binary again
// must start it through that command too.
const EmulatorEnv = "ACFCD_TEST_EXEC"

// Command returns the command that runs the test binary exe with args,
// through the emulator that EmulatorEnv names, if any.
func Command(exe string, args ...string) *exec.Cmd {
	if em := strings.Fields(os.Getenv(EmulatorEnv)); len(em) > 0 {
		return exec.Command(em[0], append(append(em[1:], exe), args...)...)
	}
	return exec.Command(exe, args...)
}

// SkipEmulated skips t when the tests run under an emulator (EmulatorEnv
// set), for a property the emulator does not reproduce; why says which.
func SkipEmulated(t testing.TB, why string) {
	t.Helper()
	if em := os.Getenv(EmulatorEnv); em != "" {
		t.Skipf("under %s: %s", em, why)
	}
}

// Seeds checks that the folder dir (a fuzz target's checked-in corpus,
// testdata/fuzz/FuzzX) holds every seed file of seeds (name → content) as
// given, or with update writes them there. Other files in dir (inputs
// fuzzing found) are left alone.
func Seeds(t testing.TB, dir string, seeds map[string]string, update bool) {
	t.Helper()
	if update {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	var stale []string
	for name, seed := range seeds {
		path := filepath.Join(dir, name)
		if update {
			if err := os.WriteFile(path, []byte(seed), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if b, err := os.ReadFile(path); err != nil || string(b) != seed {
			stale = append(stale, name)
		}
	}
	if len(stale) > 0 {
		slices.Sort(stale)
		t.Errorf("%s: %d of %d seed files missing or out of date (%s): rewrite them with go test -run '^%s$' -update-seeds", dir, len(stale), len(seeds), strings.Join(stale, ", "), t.Name())
	}
}

// WithProcs runs f at GOMAXPROCS n and restores the previous setting (so
// tests that use it do not run in parallel).
func WithProcs(n int, f func()) {
	old := runtime.GOMAXPROCS(n)
	defer runtime.GOMAXPROCS(old)
	f()
}

// DenseRows returns the rows of a sparse matrix (row gives row i's
// indices and values) as dense rows of features entries, for brute-force
// checks.
func DenseRows(rows, features int, row func(i int) ([]int32, []float64)) [][]float64 {
	X := make([][]float64, rows)
	for i := range X {
		X[i] = make([]float64, features)
		idx, val := row(i)
		for k, j := range idx {
			X[i][j] = val[k]
		}
	}
	return X
}

// Residual is y − Xw − b with plain loops (w has an entry per column).
func Residual(X [][]float64, y, w []float64, b float64) []float64 {
	r := make([]float64, len(y))
	for i := range r {
		s := y[i] - b
		for j, v := range X[i] {
			s -= v * w[j]
		}
		r[i] = s
	}
	return r
}

// PanicText returns what f panics with, formatted, or "" when it returns.
func PanicText(f func()) (msg string) {
	defer func() {
		if r := recover(); r != nil {
			msg = fmt.Sprint(r)
		}
	}()
	f()
	return ""
}
