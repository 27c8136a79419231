package acfcd

import (
	"context"
	"strings"
	"testing"

	dataio "github.com/acfcd/acfcd/io"
)

// guardData returns rows of four small features each and one row with
// feature 17,000,000: a binary problem's dense arrays (16 bytes a feature,
// 272 MB) are within four times the whole data's 70 MB, not half of it.
func guardData() *dataio.Dataset {
	const rows, per, features = 1_100_000, 4, 17_000_000
	d := &dataio.Dataset{Rows: rows, Features: features, RowPtr: make([]int64, rows+1),
		Index: make([]int32, 0, rows*per), Value: make([]float64, 0, rows*per), Label: make([]float64, rows)}
	for i := range rows {
		base := int32(i % 50)
		for k := range int32(per) {
			d.Index = append(d.Index, base+k*50)
			d.Value = append(d.Value, 1)
		}
		if i == rows/2 {
			d.Index[len(d.Index)-1] = features - 1
		}
		d.RowPtr[i+1] = int64(len(d.Index))
		d.Label[i] = 1
		if base%2 == 1 {
			d.Label[i] = -1
		}
	}
	return d
}

// TestFoldsGuardedAsWhole: what Train takes, -v and -C take too.
func TestFoldsGuardedAsWhole(t *testing.T) {
	if testing.Short() {
		t.Skip("70 MB of data")
	}
	d := guardData()
	p := Params{Problem: HingeDual, MaxEpochs: 1, NoFallback: true}
	if _, _, err := Train(context.Background(), d, p); err != nil {
		t.Fatalf("Train: %v", err)
	}
	if _, err := CrossValidate(context.Background(), d, p, 2); err != nil {
		t.Errorf("CrossValidate: %v", err)
	}
	if _, err := FindC(context.Background(), d, p, 2, SearchOptions{StartC: 1024}); err != nil {
		t.Errorf("FindC: %v", err)
	}
	// What Train refuses, the folds refuse, in the whole data's words.
	d.Features = 40_000_000
	if _, _, err := Train(context.Background(), d, p); err == nil {
		t.Fatal("Train took 40M features")
	}
	want := "for 1100000 examples"
	if _, err := CrossValidate(context.Background(), d, p, 2); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("CrossValidate: %v, want an error with %q", err, want)
	}
	if _, err := FindC(context.Background(), d, p, 2, SearchOptions{StartC: 1024}); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("FindC: %v, want an error with %q", err, want)
	}
}
