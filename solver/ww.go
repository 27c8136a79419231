package solver

import (
	"context"
	"errors"

	dataio "github.com/acfcd/acfcd/io"
)

// trainWW fits the Weston–Watkins multi-class SVM. (being written)
func trainWW(ctx context.Context, d *dataio.Dataset, p Params) (*Model, *Result, error) {
	return nil, nil, errors.New("solver: the Weston–Watkins SVM is not implemented yet")
}
