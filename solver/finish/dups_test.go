package finish

import (
	"math"
	"slices"
	"testing"

	dataio "github.com/acfcd/acfcd/io"
	"github.com/acfcd/acfcd/solver/dcd"
)

// TestDupGroups: identical rows with more than one label are grouped,
// rows that differ in a value or an index are not.
func TestDupGroups(t *testing.T) {
	d := &dataio.Dataset{Rows: 6, Features: 4, RowPtr: []int64{0, 2, 4, 6, 7, 9, 11},
		Index: []int32{0, 2, 0, 2, 0, 3, 1, 0, 2, 0, 2},
		Value: []float64{1, 2, 1, 2, 1, 2, 5, 1, 2.5, 1, 2},
		Label: []float64{1, -1, 1, 1, -1, 1}}
	groups := func() *Dups {
		t.Helper()
		dt := dcd.DefaultTuning()
		sh := dcd.NewData(d, -1, &dt)
		dd := FindDups(sh)
		if dd == nil {
			t.Fatal("no groups")
		}
		return dd
	}
	if dd := groups(); !slices.Equal(dd.rows, []int32{0, 1, 5}) || !slices.Equal(dd.off, []int32{0, 3}) {
		t.Errorf("groups %v at %v, want [0 1 5] at [0 3]", dd.rows, dd.off)
	}
	d.Index[1] = 3 // row 0 now equals row 2 instead
	if dd := groups(); !slices.Equal(dd.rows, []int32{1, 5}) || !slices.Equal(dd.off, []int32{0, 2}) {
		t.Errorf("groups %v at %v, want only {1,5} ({0,2} share their label)", dd.rows, dd.off)
	}
	d.Label[1] = 1 // every copy now shares its label
	dt := dcd.DefaultTuning()
	sh := dcd.NewData(d, -1, &dt)
	if dd := FindDups(sh); dd != nil {
		t.Errorf("groups %v at %v, want none", dd.rows, dd.off)
	}
}

// TestPush: Push moves α along the directions that leave w unchanged
// (x_p = x_m, y_p = −y_m) and returns exactly the decrease of f. For -s 3
// it pushes the pairs of a group up until one side is at its bound C; for
// -s 1 it solves each group for its net Σ y_i α_i, so that no move along
// those directions decreases f further.
func TestPush(t *testing.T) {
	// Rows 0, 1 and 3 are one point with labels +1, −1, +1; rows 2 and 4
	// another, both −1 (no group).
	d := &dataio.Dataset{Rows: 5, Features: 3, RowPtr: []int64{0, 2, 4, 5, 7, 8},
		Index: []int32{0, 2, 0, 2, 1, 0, 2, 1},
		Value: []float64{1.5, -2, 1.5, -2, 0.5, 1.5, -2, 0.5},
		Label: []float64{1, -1, -1, 1, -1}}
	start := []float64{0.5, 1, 0.25, 0.2, 0.4}
	for _, loss := range []dcd.Loss{dcd.L1SVM, dcd.L2SVM} {
		dt := dcd.DefaultTuning()
		sh := dcd.NewData(d, 1, &dt)
		dd := FindDups(sh)
		if dd == nil || !slices.Equal(dd.rows, []int32{0, 1, 3}) {
			t.Fatalf("loss %d: groups %v", loss, dd)
		}
		p := dcd.New(sh, loss, 1e-3, nil, nil, nil, &dt)
		p.Reset(1, 2, 3) // C = 2 for the positives, 3 for the negatives
		set := func(alpha []float64) float64 {
			copy(p.Alpha, alpha)
			clear(p.W)
			for i, a := range p.Alpha {
				p.AxpyRow(a*float64(p.Y[i]), int32(i), p.W)
			}
			return p.Objective()
		}
		f0 := set(start)
		w0 := slices.Clone(p.W)
		gain := dd.Push(p)
		pushed := slices.Clone(p.Alpha)
		f1 := set(pushed)
		if maxDiff(p.W, w0) > 1e-12 {
			t.Errorf("loss %d: w moved from %v to %v", loss, w0, p.W)
		}
		if !(gain > 0) || math.Abs(f0-f1-gain) > 1e-12 {
			t.Errorf("loss %d: gain %v, f %v → %v", loss, gain, f0, f1)
		}
		if pushed[2] != start[2] || pushed[4] != start[4] {
			t.Errorf("loss %d: rows out of the group moved: %v", loss, pushed)
		}
		if loss == dcd.L1SVM {
			// 0 and 1 rise by 1.5 (row 0 reaches 2), then 3 and 1 by 0.5
			// (row 1 reaches 3): f falls by twice the moves.
			if want := []float64{2, 3, 0.25, 0.7, 0.4}; maxDiff(pushed, want) > 1e-15 || math.Abs(gain-4) > 1e-12 {
				t.Errorf("α %v, gain %v; want %v, 4", pushed, gain, want)
			}
			continue
		}
		// -s 1: no move of a positive and the negative together, nor from
		// one positive to the other (both keep w), lowers f.
		for _, mv := range []struct {
			i, j int
			sign float64
		}{{0, 1, 1}, {3, 1, 1}, {0, 3, -1}} {
			for _, delta := range []float64{1e-3, -1e-3} {
				a := slices.Clone(pushed)
				a[mv.i] += delta
				a[mv.j] += mv.sign * delta
				if f := set(a); f < f1-1e-12 {
					t.Errorf("move %+v by %v: f %v below the pushed %v", mv, delta, f, f1)
				}
			}
		}
		set(pushed)
		if again := dd.Push(p); math.Abs(again) > 1e-12 {
			t.Errorf("a second push gained %v", again)
		}
	}
}

func maxDiff(a, b []float64) float64 {
	var m float64
	for i := range a {
		m = max(m, math.Abs(a[i]-b[i]))
	}
	return m
}
