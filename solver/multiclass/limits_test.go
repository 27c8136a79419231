package multiclass

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	dataio "github.com/acfcd/acfcd/io"
	solver "github.com/acfcd/acfcd/solver"
	"github.com/acfcd/acfcd/solver/fit"
)

// oneClassEach is rows examples of one feature of value 1, each its own
// class: the duals ask for rows² values where the data has 28 bytes a row.
func oneClassEach(rows int) *dataio.Dataset {
	d := &dataio.Dataset{Source: "many.svm", Rows: rows, Features: 1, RowPtr: make([]int64, rows+1),
		Index: make([]int32, rows), Value: make([]float64, rows), Label: make([]float64, rows)}
	for i := range rows {
		d.RowPtr[i+1] = int64(i + 1)
		d.Value[i] = 1
		d.Label[i] = float64(i + 1)
	}
	return d
}

// TestTrainRefusesDualsBeyondMemory: the duals of a class per example are
// refused before they are allocated (320 GB here), with the sizes and
// what to do instead.
func TestTrainRefusesDualsBeyondMemory(t *testing.T) {
	const tail = "A one-vs-rest solver (-s 0 to 3, 5 to 7) keeps the %s weight vectors without them; or merge the rare classes; " +
		"if the labels are regression targets rather than classes, the LASSO fits them"
	big, small := oneClassEach(200000), oneClassEach(10000)
	for _, c := range []struct {
		name string
		d    *dataio.Dataset
		s    Spec
		want string
	}{
		{"cs", big, Spec{Crammer: true}, "many.svm: 200000 classes in 200000 examples with 200000 non-zeros are too many for the Crammer–Singer SVM: " +
			"it keeps 8 bytes for each class of every example and would allocate 298.0 GiB for 5.3 MiB of data. "},
		{"ww", big, Spec{}, "many.svm: 200000 classes in 200000 examples with 200000 non-zeros are too many for the Weston–Watkins SVM: " +
			"it keeps 8 bytes for each class of every example and would allocate 298.0 GiB for 5.3 MiB of data. "},
		// Shrinking adds its permutation of the classes, 2 bytes each.
		{"cs-shrink-10000", small, Spec{Crammer: true}, "many.svm: 10000 classes in 10000 examples with 10000 non-zeros are too many for the Crammer–Singer SVM: " +
			"it keeps 10 bytes for each class of every example and would allocate 953.7 MiB for 273.4 KiB of data. "},
		{"ww-10000", small, Spec{}, "many.svm: 10000 classes in 10000 examples with 10000 non-zeros are too many for the Weston–Watkins SVM: " +
			"it keeps 8 bytes for each class of every example and would allocate 762.9 MiB for 273.4 KiB of data. "},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := Train(context.Background(), c.d, resolved(c.s))
			want := c.want + fmt.Sprintf(tail, strconv.Itoa(c.d.Rows))
			if err == nil || err.Error() != want {
				t.Fatalf("Train: %v\nwant %s", err, want)
			}
			if _, ok := err.(*fit.DataError); !ok {
				t.Errorf("error %T, want *fit.DataError", err)
			}
		})
	}
}

// TestTrainStopsSoonAfterCancel: a cancellation just before the full
// pass over 4,000 examples × 4,000 classes (seconds) ends Train within
// the bound, as a cancelled run; the pass used to run to its end.
func TestTrainStopsSoonAfterCancel(t *testing.T) {
	if testing.Short() {
		t.Skip("an epoch over 4,000 × 4,000 duals")
	}
	const rows, feats = 4000, 400
	r := rand.New(rand.NewPCG(7, 1))
	d := &dataio.Dataset{Rows: rows, Features: feats, RowPtr: make([]int64, rows+1), Label: make([]float64, rows)}
	for i := range rows {
		for j := range int32(feats) {
			d.Index, d.Value = append(d.Index, j), append(d.Value, r.Float64())
		}
		d.RowPtr[i+1] = int64(len(d.Index))
		d.Label[i] = float64(i)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var at time.Time
	// The epoch cap ends the sweep; the cancellation comes at its end,
	// before the pass that measures the point.
	s := Spec{Crammer: true, Spec: fit.Spec{Select: solver.ACFShrink, MaxEpochs: 1, Progress: func(fit.Progress) {
		if at.IsZero() {
			at = time.Now()
			cancel()
		}
	}}}
	_, res, err := Train(ctx, d, resolved(s))
	took := time.Since(at)
	if err != nil || at.IsZero() {
		t.Fatalf("Train: %v (cancelled: %v)", err, !at.IsZero())
	}
	t.Logf("returned %.3f s after the cancellation", took.Seconds())
	if !res.Cancelled || took > 2*time.Second {
		t.Errorf("returned %.3f s after the cancellation, Cancelled %v; want within 2 s, cancelled", took.Seconds(), res.Cancelled)
	}
}
