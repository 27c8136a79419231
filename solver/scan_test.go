package solver

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/acfcd/acfcd/internal/procs"
)

// rowData is a full pass's data for RowPass: row r violates by v[r],
// has loss l[r] and costs o[r] non-zeros.
type rowData struct {
	v, l []float64
	o    []int64
	eps  float64
}

// newRowData returns n rows whose losses span many magnitudes (so that
// the order of the sums shows in their bits), none violating by more
// than eps except the rows in bad.
func newRowData(seed uint64, n int, bad ...int) *rowData {
	rng := rand.New(rand.NewPCG(seed, 31))
	d := &rowData{v: make([]float64, n), l: make([]float64, n), o: make([]int64, n), eps: 0.5}
	for r := range n {
		d.v[r] = 0.5 * rng.Float64()
		d.l[r] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(12)))
		d.o[r] = 1 + rng.Int64N(9)
	}
	for _, r := range bad {
		d.v[r] = 1 + rng.Float64()
	}
	return d
}

// scan is the read-only scan of rows [lo, hi): with repair it stops at
// the first row violating by more than eps.
func (d *rowData) scan(lo, hi int, repair bool) Chunk {
	c := Chunk{Stop: -1}
	for r := lo; r < hi; r++ {
		if repair && d.v[r] > d.eps {
			c.Stop = r
			break
		}
		c.Viol = max(c.Viol, d.v[r])
		c.Loss += d.l[r]
		c.Ops += d.o[r]
	}
	return c
}

// sequential is the plain loop a pass's result must equal: rows in order,
// the loss summed per chunk of size rows and the chunk sums added in
// order, up to the first violator; from it on (with repair) row by row.
func (d *rowData) sequential(size int, repair bool) (viol, loss float64, ops int64, first int) {
	first = -1
	var chunk float64
	for r := range d.v {
		if r%size == 0 {
			loss += chunk
			chunk = 0
		}
		if repair && d.v[r] > d.eps {
			first = r
			break
		}
		viol = max(viol, d.v[r])
		chunk += d.l[r]
		ops += d.o[r]
	}
	loss += chunk
	if first >= 0 {
		for r := first; r < len(d.v); r++ {
			viol = max(viol, d.v[r])
			loss += d.l[r]
		}
	}
	return viol, loss, ops, first
}

// rowPass runs RowPass over d and returns its results, the row rest
// started at (−1 if not called) and the number of helper goroutines that
// scanned.
func (d *rowData) rowPass(t *Tuning, pool *procs.Pool, repair bool) (viol, loss float64, ops int64, ok bool, first int, helpers int) {
	var nnz int64
	for _, o := range d.o {
		nnz += o
	}
	var h atomic.Int64
	var chunks []Chunk
	first = -1
	viol, loss, ops, ok = RowPass(t, pool, &chunks, len(d.v), nnz,
		func(helper bool) func(lo, hi int) Chunk {
			if helper {
				h.Add(1)
			}
			return func(lo, hi int) Chunk { return d.scan(lo, hi, repair) }
		},
		func(f int, viol, loss *float64) {
			if first >= 0 {
				panic("rest called twice")
			}
			first = f
			for r := f; r < len(d.v); r++ {
				*viol = max(*viol, d.v[r])
				*loss += d.l[r]
			}
		})
	return viol, loss, ops, ok, first, int(h.Load())
}

// withProcs runs f at GOMAXPROCS p and restores it.
func withProcs(p int, f func()) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(p))
	f()
}

// TestRowPass: the chunked scan of a full pass, with and without helper
// goroutines, gives the sequential loop's violation, loss (bit for bit:
// chunk sums added in chunk order) and first violator, for chunk sizes
// that divide n and that do not; helpers scan when the pool has spare
// tokens and the data has KKTParallelNNZ non-zeros, and give every token
// back.
func TestRowPass(t *testing.T) {
	plainDiffers := false
	for _, p := range []int{1, 2} {
		withProcs(p, func() {
			for _, n := range []int{1, 64, 1000} {
				for _, size := range []int{1, 7, 16, 64, 1024} {
					for _, bad := range [][]int{nil, {0}, {size - 1, n - 1}, {size}, {n / 2}, {n - 1}} {
						if len(bad) > 0 && bad[0] >= n {
							continue
						}
						d := newRowData(uint64(n*size), n, bad...)
						var nnz int64
						for _, o := range d.o {
							nnz += o
						}
						for _, repair := range []bool{false, true} {
							wv, wl, wo, wf := d.sequential(size, repair)
							var plain float64
							for _, l := range d.l {
								plain += l
							}
							plainDiffers = plainDiffers || plain != wl
							for _, tokens := range []int{-1, 0, 1, 3} {
								for _, minNNZ := range []int64{0, nnz, nnz + 1} {
									var pool *procs.Pool
									if tokens >= 0 {
										pool = procs.NewPool(tokens)
									}
									tune := tuned(func(t *Tuning) { t.KKTChunkRows, t.KKTParallelNNZ = size, minNNZ })
									v, l, o, ok, f, h := d.rowPass(tune, pool, repair)
									name := fmt.Sprintf("procs %d n %d size %d bad %v repair %v tokens %d min %d", p, n, size, bad, repair, tokens, minNNZ)
									if v != wv || l != wl || f != wf || ok != (wf < 0) {
										t.Fatalf("%s: viol %v loss %v first %d ok %v, want %v %v %d", name, v, l, f, ok, wv, wl, wf)
									}
									// The scans' non-zeros up to the first violator, none beyond.
									if o != wo {
										t.Fatalf("%s: ops %d, want %d", name, o, wo)
									}
									nch := (n + size - 1) / size
									wantH := 0
									if nch > 1 && nnz >= minNNZ {
										wantH = min(max(tokens, 0), nch-1)
									}
									if h != wantH {
										t.Fatalf("%s: %d helpers, want %d", name, h, wantH)
									}
									if got := pool.Take(100); got != max(tokens, 0) {
										t.Fatalf("%s: %d tokens back, want %d", name, got, tokens)
									}
								}
							}
						}
					}
				}
			}
		})
	}
	if !plainDiffers {
		t.Fatal("the chunked sums never differed from the plain sum: the test cannot see the order")
	}
}

// fakeFault stands for the runtime's memory-fault error.
type fakeFault struct{ addr uintptr }

func (f *fakeFault) Error() string { return "unexpected fault address" }
func (f *fakeFault) Addr() uintptr { return f.addr }

// TestRowPassPanic: a panic in a helper's scan (a memory fault on a
// truncated mapped file) or in the caller's is raised on the caller once
// every goroutine has returned, and the pool gets all its tokens back.
func TestRowPassPanic(t *testing.T) {
	for _, p := range []int{1, 2} {
		for _, inHelper := range []bool{true, false} {
			withProcs(p, func() {
				pool := procs.NewPool(3)
				want := &fakeFault{addr: 0xdead}
				var live atomic.Int32
				var once sync.Once
				panicked := make(chan struct{})
				scan := func(helper bool) func(lo, hi int) Chunk {
					return func(lo, hi int) Chunk {
						live.Add(1)
						defer live.Add(-1)
						if helper == inHelper {
							once.Do(func() { close(panicked) })
							panic(want)
						}
						// The others wait in their first chunk, so that
						// the panicking side gets a chunk to scan.
						<-panicked
						return Chunk{Stop: -1}
					}
				}
				func() {
					defer func() {
						if got := recover(); got != want {
							t.Fatalf("procs %d helper %v: recovered %v", p, inHelper, got)
						}
						if n := live.Load(); n != 0 {
							t.Fatalf("procs %d helper %v: %d scans still running when the panic came", p, inHelper, n)
						}
						if got := pool.Take(100); got != 3 {
							t.Fatalf("procs %d helper %v: %d tokens back, want 3", p, inHelper, got)
						}
					}()
					var chunks []Chunk
					tune := tuned(func(t *Tuning) { t.KKTChunkRows, t.KKTParallelNNZ = 16, 0 })
					RowPass(tune, pool, &chunks, 1000, 1000, scan, func(int, *float64, *float64) {})
					t.Fatalf("procs %d helper %v: no panic", p, inHelper)
				}()
			})
		}
	}
}
