package dataio

import (
	"fmt"
	"math"
	"runtime"
	"sort"
	"sync"
)

// CSC is a compressed sparse column copy of a dataset, for solvers that
// sweep over features. Column j holds RowIndex[ColPtr[j]:ColPtr[j+1]]
// (increasing) and the matching values.
type CSC struct {
	Rows, Features int
	ColPtr         []int64 // len Features+1
	RowIndex       []int32
	Value          []float64
}

// keptCSC is the column view that KeepCSC keeps, built once, with what
// identifies the data it was built from.
type keptCSC struct {
	once  sync.Once
	c     *CSC
	rows  int
	feats int
	index *int32
	nnz   int64
}

// KeepCSC makes CSC build the column view once and return that same view
// afterwards (read-only: callers share it), for callers that train on d
// again and again (single fits along λ, say). It costs the view's memory
// for as long as d lives, and d must not be modified after the first CSC.
// Call it before d is shared between goroutines; CSC is then safe to call
// from several at once.
func (d *Dataset) KeepCSC() {
	if d.keep == nil {
		d.keep = &keptCSC{}
	}
}

// CSC returns the column-wise copy of d: the one kept since KeepCSC, or
// a new one built by a counting sort, in parallel when the per-thread
// counters are small next to the data. Values stored as float32 are
// widened. It panics if d has more than math.MaxInt32 rows, which
// RowIndex cannot hold.
func (d *Dataset) CSC() *CSC {
	k := d.keep
	if k == nil {
		return d.buildCSC()
	}
	k.once.Do(func() {
		k.c, k.rows, k.feats, k.nnz = d.buildCSC(), d.Rows, d.Features, d.NNZ()
		if len(d.Index) > 0 {
			k.index = &d.Index[0]
		}
	})
	var index *int32
	if len(d.Index) > 0 {
		index = &d.Index[0]
	}
	if k.rows != d.Rows || k.feats != d.Features || k.nnz != d.NNZ() || k.index != index {
		// A copy of the struct with other data: not the view kept.
		return d.buildCSC()
	}
	return k.c
}

func (d *Dataset) buildCSC() *CSC {
	if d.Rows > math.MaxInt32 {
		panic(fmt.Sprintf("dataio: CSC: %d rows do not fit in int32 row indices", d.Rows))
	}
	nnz := d.NNZ()
	c := &CSC{
		Rows:     d.Rows,
		Features: d.Features,
		ColPtr:   make([]int64, d.Features+1),
		RowIndex: make([]int32, nnz),
		Value:    make([]float64, nnz),
	}
	threads := runtime.GOMAXPROCS(0)
	// Each thread needs a counter per feature; only worth it when those
	// counters are small next to the non-zeros they sort.
	for threads > 1 && (nnz < 1<<18 || int64(d.Features)*int64(threads) > nnz/4) {
		threads--
	}
	if threads > d.Rows {
		threads = max(d.Rows, 1)
	}

	if threads == 1 {
		c.serial(d)
		return c
	}

	// Row blocks with about the same number of non-zeros.
	bounds := make([]int, threads+1)
	for t := 1; t < threads; t++ {
		want := nnz * int64(t) / int64(threads)
		bounds[t] = sort.Search(d.Rows, func(i int) bool { return d.RowPtr[i] >= want })
	}
	bounds[threads] = d.Rows

	// pos[t][j]: count, then first slot, of thread t's entries in column j.
	pos := make([][]int64, threads)
	run := func(f func(t int)) {
		var wg sync.WaitGroup
		wg.Add(threads)
		for t := 0; t < threads; t++ {
			go func() { defer wg.Done(); f(t) }()
		}
		wg.Wait()
	}
	run(func(t int) {
		cnt := make([]int64, d.Features)
		for _, j := range d.Index[d.RowPtr[bounds[t]]:d.RowPtr[bounds[t+1]]] {
			cnt[j]++
		}
		pos[t] = cnt
	})
	var off int64
	for j := 0; j < d.Features; j++ {
		c.ColPtr[j] = off
		for t := 0; t < threads; t++ {
			n := pos[t][j]
			pos[t][j] = off
			off += n
		}
	}
	c.ColPtr[d.Features] = off
	run(func(t int) {
		p := pos[t]
		for i := bounds[t]; i < bounds[t+1]; i++ {
			a, b := d.RowPtr[i], d.RowPtr[i+1]
			for k := a; k < b; k++ {
				j := d.Index[k]
				q := p[j]
				p[j] = q + 1
				c.RowIndex[q] = int32(i)
				if d.Value != nil {
					c.Value[q] = d.Value[k]
				} else {
					c.Value[q] = float64(d.Value32[k])
				}
			}
		}
	})
	return c
}

// serial fills c from d with no memory beyond c: ColPtr[j+1] counts column
// j, then ColPtr[j] serves as column j's write cursor, which leaves it at
// the start of column j+1; shifting ColPtr up one restores it.
func (c *CSC) serial(d *Dataset) {
	for _, j := range d.Index {
		c.ColPtr[j+1]++
	}
	for j := 1; j <= d.Features; j++ {
		c.ColPtr[j] += c.ColPtr[j-1]
	}
	for i := 0; i < d.Rows; i++ {
		for k := d.RowPtr[i]; k < d.RowPtr[i+1]; k++ {
			j := d.Index[k]
			q := c.ColPtr[j]
			c.ColPtr[j] = q + 1
			c.RowIndex[q] = int32(i)
			if d.Value != nil {
				c.Value[q] = d.Value[k]
			} else {
				c.Value[q] = float64(d.Value32[k])
			}
		}
	}
	copy(c.ColPtr[1:], c.ColPtr[:d.Features])
	c.ColPtr[0] = 0
}
