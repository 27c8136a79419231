package acfcd

import (
	"context"
	"errors"

	"github.com/acfcd/acfcd/internal/procs"
)

// trainPrimal trains -s 0, 2 and 11.
func trainPrimal(ctx context.Context, d *Dataset, p Params, pool *procs.Pool) (*Model, *Result, error) {
	return nil, nil, errors.New("-s " + p.Problem.Flag() + ": not implemented yet")
}
