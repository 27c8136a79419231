package solver

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
	"unsafe"

	"github.com/acfcd/acfcd/kernel"
)

func TestExploreDot(t *testing.T) {
	d := readLibSVM(t, "/tmp/debian-desc.binary")
	w := make([]float64, d.Features+1)
	for j := range w {
		w[j] = rand.Float64()
	}
	perm := rand.Perm(d.Rows)
	best := map[string]float64{}
	names := []string{"seq", "rand", "pf1", "pf2", "pf4", "pf1+w"}
	for rep := 0; rep < 7; rep++ {
		for _, mode := range names {
			ahead := map[string]int{"pf1": 1, "pf2": 2, "pf4": 4, "pf1+w": 1}[mode]
			t0 := time.Now()
			var s float64
			for k := 0; k < 3; k++ {
				for r := 0; r < d.Rows; r++ {
					i := r
					if mode != "seq" {
						i = perm[r]
					}
					if ahead > 0 && r+ahead < d.Rows {
						nx := perm[r+ahead]
						a, b := d.RowPtr[nx], d.RowPtr[nx+1]
						if b > a {
							prefetchRow(unsafe.Pointer(&d.Index[a]), uintptr(b-a)*4, unsafe.Pointer(&d.Value[a]), uintptr(b-a)*8)
						}
					}
					idx, val := d.Row(i)
					s += kernel.Dot(idx, val, w)
				}
			}
			v := time.Since(t0).Seconds() * 1e9 / float64(3*d.NNZ())
			if b, ok := best[mode]; !ok || v < b {
				best[mode] = v
			}
			_ = s
		}
	}
	for _, m := range names {
		fmt.Printf("%s: %.2f ns/nnz\n", m, best[m])
	}
}
