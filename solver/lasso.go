package solver

import (
	"context"
	"errors"

	dataio "github.com/acfcd/acfcd/io"
)

// trainLasso fits the LASSO by primal coordinate descent. (being written)
func trainLasso(ctx context.Context, d *dataio.Dataset, p Params) (*Model, *Result, error) {
	return nil, nil, errors.New("solver: LASSO is not implemented yet")
}
