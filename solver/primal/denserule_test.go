package primal

import (
	"context"
	"testing"

	"github.com/acfcd/acfcd/internal/rows"
)

// TestDenseRule: exact Newton steps where the Cholesky factor is cheap
// next to the data (dense low-d rows, short rows over few features), and
// Newton-CG where the factor alone would cost more than forming H and a
// whole CG solve (2000 features, 8 non-zeros a row): there -s 11 converges
// in fewer operations than one factor.
func TestDenseRule(t *testing.T) {
	ctx := context.Background()
	tu := DefaultTuning()
	for _, c := range []struct {
		name        string
		rows, feats int
		density     float64
		dense       bool
	}{
		{"dense low-d", 2000, 20, 1, true},
		{"short rows, few features", 1600, 120, 0.1, true},
		{"short rows, 2000 features", 1000, 2000, 0.004, false},
	} {
		d := targets(overlapping(3, c.rows, c.feats, c.density, 0, 1), 4)
		if got := Dense(rows.New(d, -1), &tu); got != c.dense {
			t.Errorf("%s: Dense %v, want %v", c.name, got, c.dense)
		}
		if c.dense {
			continue
		}
		_, res := mustTrain(t, ctx, d, params{loss: SquaredTube})
		factor := int64(c.feats+1) * int64(c.feats+1) * int64(c.feats+1) / 6
		if !res.Converged || res.Operations >= factor {
			t.Errorf("%s: converged %v in %d operations, want fewer than a factor's %d", c.name, res.Converged, res.Operations, factor)
		}
	}
}
