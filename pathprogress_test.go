package acfcd

import (
	"context"
	"testing"

	"github.com/acfcd/acfcd/internal/synth"
)

// A path reports each point as it is done, in order, the same points
// TrainPath returns, and its epochs' progress says which λ is fitted: a
// long path is no longer silent until its end.
func TestPathProgress(t *testing.T) {
	d := synth.SparseRegression(synth.SparseRegressionConfig{Seed: 3, Rows: 80, Feats: 30, Density: 0.3, K: 6, Noise: 0.1})
	var seen []PathPoint
	points := map[int]float64{}
	p := Params{Problem: Lasso, Intercept: true,
		PathProgress: func(pt PathPoint) { seen = append(seen, pt) },
		Progress: func(pr Progress) {
			if pr.Points != 12 || pr.Point < 1 || pr.Point > 12 {
				t.Errorf("progress %+v outside the path's 12 points", pr)
			}
			points[pr.Point] = pr.Lambda
		}}
	pts, err := TrainPath(context.Background(), d, p, 12, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != len(pts) {
		t.Fatalf("%d points reported, %d returned", len(seen), len(pts))
	}
	for k := range pts {
		if seen[k].Lambda != pts[k].Lambda || seen[k].Objective != pts[k].Objective || seen[k].Model != pts[k].Model {
			t.Errorf("point %d reported %+v, returned %+v", k, seen[k], pts[k])
		}
		if lam, ok := points[k+1]; ok && lam != pts[k].Lambda {
			t.Errorf("progress of point %d has λ %g, the point %g", k+1, lam, pts[k].Lambda)
		}
	}
	if len(points) == 0 {
		t.Error("no progress during the path")
	}
}
